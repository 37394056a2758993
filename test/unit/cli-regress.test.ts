import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseCommand } from '../../src/cli/argv.js';
import { configFromEnv } from '../../src/cli/cli-config.js';
import { CliError, EXIT_CODES } from '../../src/cli/cli-error.js';
import { regress } from '../../src/cli/regress.js';
import { startCli } from '../support/cli-process.js';
import { PROJECT_ROOT } from '../../testkit/project-root.js';

const CASES = 'test/support/golden/cases.jsonl';
const NOW = 'test/support/golden/tools-now.ts';
const BEFORE = 'test/support/golden/tools-before.ts';

async function usageErrorOf(work: Promise<unknown>): Promise<string> {
  try {
    await work;
  } catch (error) {
    assert.ok(error instanceof CliError && error.exitCode === EXIT_CODES.usage, String(error));
    return error.message;
  }
  assert.fail('expected a usage error');
}

describe('tool-contract regress', () => {
  it('reports exactly the case a new invariant version changes, against the baseline tools', async () => {
    const report = await regress({ casesFile: CASES, toolsModule: NOW, baselineModule: BEFORE, cwd: PROJECT_ROOT });
    assert.equal(report.baseline, 'module');
    assert.deepEqual(
      report.tools.map((tool) => [tool.tool, tool.changed, tool.notMet]),
      [['orders.get', ['wrong-total'], []]],
    );
    assert.deepEqual([report.changed, report.notMet], [1, 0]);
  });

  it('prints a table, exits 0 when every expectation is met and 1 when one is missed', async () => {
    const deps = {
      cli: 'tool-contract',
      client: () => Promise.reject(new Error('no Temporal')),
      store: () => Promise.reject(new Error('no store')),
      database: () => Promise.reject(new Error('no database')),
      config: configFromEnv({}),
      signingKey: () => Promise.reject(new Error('regress signs nothing')),
    };
    for (const [tools, exitCode] of [
      [NOW, EXIT_CODES.ok],
      [BEFORE, EXIT_CODES.failure],
    ] as const) {
      const command = parseCommand(['regress', join(PROJECT_ROOT, CASES), '--tools', join(PROJECT_ROOT, tools)]);
      assert.ok(command.kind === 'operator');
      const output = await command.run(deps);
      assert.equal(command.exitCode(output), exitCode, tools);
      const text = command.present(output);
      assert.equal(typeof text, 'string');
      assert.match(String(text), /^\| orders\.get \| wrong-total \| /m);
    }
  });

  it('refuses a malformed line, a duplicate id and a tool the module does not export, naming the line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ttc-regress-'));
    try {
      const [first = ''] = readFileSync(join(PROJECT_ROOT, CASES), 'utf8').split('\n');
      const cases = (lines: string[]) => {
        writeFileSync(join(dir, 'cases.jsonl'), lines.join('\n'));
        return regress({ casesFile: join(dir, 'cases.jsonl'), toolsModule: join(PROJECT_ROOT, NOW), cwd: dir });
      };
      assert.match(await usageErrorOf(cases([first, '{not json'])), /cases\.jsonl:2: not a JSON line/);
      assert.match(await usageErrorOf(cases(['', JSON.stringify({ id: 'x' })])), /cases\.jsonl:2: not a golden case/);
      assert.match(
        await usageErrorOf(cases([first, first])),
        /cases\.jsonl:2: case id 'right-order' is already used on line 1/,
      );
      assert.match(
        await usageErrorOf(cases([first.replace('"orders.get"', '"orders.lost"')])),
        /line 1: tool 'orders\.lost' is not exported/,
      );
      assert.match(await usageErrorOf(cases([])), /no cases/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('runs as documented in docs/contract.md', { timeout: 120_000 }, async () => {
    const documented = /^tool-contract (regress .*)$/m.exec(
      readFileSync(join(PROJECT_ROOT, 'docs', 'contract.md'), 'utf8'),
    )?.[1];
    assert.ok(documented !== undefined, 'docs/contract.md shows a regress command');
    const cli = startCli(documented.split(' '), { cwd: PROJECT_ROOT });
    assert.equal(await cli.exited(110_000), EXIT_CODES.ok, cli.stderr());
    assert.match(cli.stdout(), /1 changed against the baseline module, 0 miss their expectation/);
    assert.match(
      cli.stdout(),
      /^\| orders\.get \| wrong-total \| failed INVARIANT_VIOLATION at semantics \| succeeded \| changed \| met \|$/m,
    );
  });
});
