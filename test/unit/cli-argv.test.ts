import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isStackCommand, parseCommand } from '../../src/cli/argv.js';
import { DEV_DEFAULTS, devPortsFromEnv } from '../../src/cli/cli-config.js';
import { CliError, EXIT_CODES } from '../../src/cli/cli-error.js';

const usage = (argv: string[]) =>
  assert.throws(() => parseCommand(argv), (error: unknown) => error instanceof CliError && error.exitCode === EXIT_CODES.usage, argv.join(' '));

test('the stack commands parse to typed input; flags override nothing they do not name', () => {
  assert.deepEqual(parseCommand(['start']), { name: 'start', json: false, demo: { approval: 'manual', exitAfterSummary: false }, ports: {} });
  assert.deepEqual(parseCommand(['start', '--auto-approve', '--exit', '--json', '--port', '7300', '--ui-port', '8300']), {
    name: 'start',
    json: true,
    demo: { approval: 'auto', exitAfterSummary: true },
    ports: { port: 7300, uiPort: 8300 },
  });
  assert.deepEqual(parseCommand(['dev', '--ui-port', '9000']), { name: 'dev', json: false, ports: { uiPort: 9000 } });
  assert.deepEqual(parseCommand(['demo', '--auto-approve']), { name: 'demo', json: false, demo: { approval: 'auto', exitAfterSummary: false } });
  assert.deepEqual(parseCommand(['worker']), { name: 'worker', json: false, source: { kind: 'demo' } });
  assert.deepEqual(parseCommand(['worker', '--tools', './tools.ts', '--task-queue', 'agents', '--json']), {
    name: 'worker',
    json: true,
    source: { kind: 'user', toolsModule: './tools.ts', taskQueue: 'agents' },
  });
  assert.deepEqual(parseCommand(['worker', '--tools', 't.ts', '--workflows', 'w.ts', '--task-queue', 'q']).name, 'worker');
  assert.deepEqual(parseCommand(['migrate', '--json']), { name: 'migrate' });
  for (const name of ['start', 'dev', 'demo', 'worker', 'migrate']) assert.ok(isStackCommand(parseCommand([name])), name);
  assert.ok(!isStackCommand(parseCommand(['pending'])));
});

test('every command accepts --json; bad stack flags are usage errors', () => {
  assert.deepEqual(parseCommand(['pending', '--json']), { name: 'pending' });
  assert.deepEqual(parseCommand(['inspect', 'wf-1', '--json']), { name: 'inspect', workflowId: 'wf-1' });
  usage(['start', '--port', '0']);
  usage(['start', '--port', '65536']);
  usage(['dev', '--ui-port', 'x']);
  usage(['dev', 'extra']);
  assert.deepEqual(parseCommand(['metrics']), { name: 'metrics' });
  assert.deepEqual(parseCommand(['metrics', '--since', '2026-11-30T12:00:00Z', '--json']), { name: 'metrics', since: '2026-11-30T12:00:00Z' });
  usage(['metrics', '--since', 'yesterday']);
  usage(['metrics', '--since', '2026-11-30']);
  usage(['metrics', '--since', '2026-13-45T99:00:00Z']);
  usage(['demo', '--port', '7300']);
  usage(['worker', '--workflows', 'w.ts']);
  usage(['worker', '--task-queue', 'q']);
  usage(['worker', '--tools', 't.ts']);
  usage(['migrate', 'now']);
});

test('dev ports come from the environment, else the usual dev-server defaults; a bad value names its variable', () => {
  assert.deepEqual(devPortsFromEnv({}), DEV_DEFAULTS);
  assert.deepEqual(DEV_DEFAULTS, { port: 7233, uiPort: 8233 });
  assert.deepEqual(devPortsFromEnv({ TTC_DEV_PORT: '7400', TTC_DEV_UI_PORT: ' ' }), { port: 7400, uiPort: 8233 });
  assert.throws(() => devPortsFromEnv({ TTC_DEV_UI_PORT: '80a' }), /TTC_DEV_UI_PORT must be a TCP port \(1\.\.65535\), got '80a'/);
});
