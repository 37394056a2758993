import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCommand } from '../../src/cli/argv.js';
import { DEV_DEFAULTS, devPortsFromEnv } from '../../src/cli/cli-config.js';
import { CliError, EXIT_CODES } from '../../src/cli/cli-error.js';
import { approveCommand, rejectCommand } from '../../src/cli/commands/decide.js';
import { demoCommand } from '../../src/cli/commands/demo.js';
import { devCommand, devPorts } from '../../src/cli/commands/dev.js';
import { helpCommand } from '../../src/cli/commands/help.js';
import { inspectCommand } from '../../src/cli/commands/inspect.js';
import { metricsCommand } from '../../src/cli/commands/metrics.js';
import { regressCommand } from '../../src/cli/commands/regress.js';
import { migrateCommand } from '../../src/cli/commands/migrate.js';
import { pendingCommand } from '../../src/cli/commands/pending.js';
import { COMMAND_GROUPS } from '../../src/cli/commands/registry.js';
import { resolveCommand } from '../../src/cli/commands/resolve.js';
import { startCommand } from '../../src/cli/commands/start.js';
import { unsettledCommand } from '../../src/cli/commands/unsettled.js';
import { workerCommand } from '../../src/cli/commands/worker.js';
import { USAGE } from '../../src/cli/usage.js';

/** Asserts that the command line is refused as bad input (exit 2), with the command's own usage when it names one. */
function usage(argv: string[]): void {
  assert.throws(
    () => parseCommand(argv),
    (error: unknown) => {
      assert.ok(error instanceof CliError, `${argv.join(' ')}: expected a CliError, got ${String(error)}`);
      assert.equal(error.exitCode, EXIT_CODES.usage, argv.join(' '));
      const command = COMMAND_GROUPS.flatMap((group) => group.commands).find((candidate) => candidate.name === argv[0]);
      assert.ok(
        error.message.includes(command?.usage.synopsis ?? 'Usage: tool-contract <command>'),
        `${argv.join(' ')}: the error shows the usage`,
      );
      return true;
    },
    argv.join(' '),
  );
}

test('the stack commands parse to typed input; flags override nothing they do not name', () => {
  assert.deepEqual(startCommand.parse([]), {
    json: false,
    demo: { approval: 'manual', exitAfterSummary: false },
    ports: {},
  });
  assert.deepEqual(startCommand.parse(['--auto-approve', '--exit', '--json', '--port', '7300', '--ui-port', '8300']), {
    json: true,
    demo: { approval: 'auto', exitAfterSummary: true },
    ports: { port: 7300, uiPort: 8300 },
  });
  assert.deepEqual(devCommand.parse(['--ui-port', '9000']), { json: false, ports: { uiPort: 9000 } });
  assert.deepEqual(devCommand.parse(['--write-env', '.env.dev']), { json: false, ports: {}, envFile: '.env.dev' });
  assert.deepEqual(demoCommand.parse(['--auto-approve']), {
    json: false,
    demo: { approval: 'auto', exitAfterSummary: false },
  });
  assert.deepEqual(workerCommand.parse([]), { json: false, source: { kind: 'demo' } });
  assert.deepEqual(workerCommand.parse(['--tools', './tools.ts', '--task-queue', 'agents', '--json']), {
    json: true,
    source: { kind: 'user', toolsModule: './tools.ts', taskQueue: 'agents' },
  });
  assert.deepEqual(workerCommand.parse(['--tools', 't.ts', '--workflows', 'w.ts', '--task-queue', 'q']).source, {
    kind: 'user',
    toolsModule: 't.ts',
    workflowsModule: 'w.ts',
    taskQueue: 'q',
  });
  assert.deepEqual(migrateCommand.parse(['--json']), { json: true });
  for (const name of ['start', 'dev', 'demo', 'worker', 'migrate'])
    assert.equal(parseCommand([name]).kind, 'stack', name);
  const json = parseCommand(['dev', '--json']);
  assert.ok(json.kind === 'stack' && json.json, '--json reaches the output of a stack command');
});

test('the operator commands parse to typed input', () => {
  assert.deepEqual(
    rejectCommand.parse(['wf-1', 'call-1', '--digest', 'A'.repeat(64), '--approver', 'alice', '--reason', 'too much']),
    {
      workflowId: 'wf-1',
      callId: 'call-1',
      requestSha256: 'a'.repeat(64),
      decision: 'reject',
      approver: 'alice',
      reason: 'too much',
    },
  );
  assert.equal(
    approveCommand.parse(['wf-1', 'call-1', '--digest', 'b'.repeat(64), '--approver', 'alice']).decision,
    'approve',
  );
  assert.deepEqual(resolveCommand.parse(['k:1', '--committed', 'ch_1', '--resolver', 'ops', '--note', 'seen']), {
    idempotencyKey: 'k:1',
    resolvedBy: 'ops',
    note: 'seen',
    outcome: 'committed',
    externalId: 'ch_1',
  });
  assert.deepEqual(resolveCommand.parse(['k:1', '--not-committed', '--resolver', 'ops']), {
    idempotencyKey: 'k:1',
    resolvedBy: 'ops',
    outcome: 'not_committed',
  });
  assert.deepEqual(pendingCommand.parse(['--json']), {});
  assert.deepEqual(pendingCommand.parse(['wf-1']), { workflowId: 'wf-1' });
  assert.deepEqual(unsettledCommand.parse(['--limit', '5']), { limit: 5 });
  assert.deepEqual(metricsCommand.parse([]), { json: false });
  assert.deepEqual(metricsCommand.parse(['--since', '2026-11-30T12:00:00Z', '--json']), {
    since: '2026-11-30T12:00:00Z',
    json: true,
  });
  assert.deepEqual(metricsCommand.parse(['--tool', 'orders.get']), { tool: 'orders.get', json: false });
  assert.deepEqual(regressCommand.parse(['cases.jsonl', '--tools', 'tools.ts']), {
    casesFile: 'cases.jsonl',
    toolsModule: 'tools.ts',
    json: false,
  });
  assert.deepEqual(regressCommand.parse(['cases.jsonl', '--tools', 'tools.ts', '--baseline', 'old.ts', '--json']), {
    casesFile: 'cases.jsonl',
    toolsModule: 'tools.ts',
    baselineModule: 'old.ts',
    json: true,
  });
  assert.deepEqual(inspectCommand.parse(['wf-1', '--json']), {
    workflowId: 'wf-1',
    includeProtected: false,
    diagnose: false,
  });
  assert.deepEqual(inspectCommand.parse(['wf-1', 'call-2', '--protected']), {
    workflowId: 'wf-1',
    callId: 'call-2',
    includeProtected: true,
    diagnose: false,
  });
  assert.deepEqual(helpCommand.parse([]), {});
  for (const name of ['pending', 'unsettled', 'metrics', 'help'])
    assert.equal(parseCommand([name]).kind, 'operator', name);
  assert.equal(parseCommand(['regress', 'cases.jsonl', '--tools', 'tools.ts']).kind, 'operator');
});

test('a command line selects its command through the registry; no command at all is help', () => {
  for (const argv of [[], ['help'], ['--help'], ['-h']]) assert.equal(parseCommand(argv).name, 'help', argv.join(' '));
  assert.equal(
    parseCommand(['reject', 'wf-1', 'call-1', '--digest', 'a'.repeat(64), '--approver', 'a']).name,
    'reject',
  );
  const names = COMMAND_GROUPS.flatMap((group) => group.commands.map((command) => command.name));
  assert.equal(new Set(names).size, names.length, 'every command has its own name');
  for (const group of COMMAND_GROUPS) {
    assert.ok(USAGE.includes(`\n${group.title}\n`), group.title);
    for (const command of group.commands)
      assert.ok(USAGE.includes(`  ${command.usage.synopsis}`), `USAGE shows ${command.name}`);
  }
});

test('only inspect --protected prints unmasked output', () => {
  for (const argv of [['inspect', 'wf-1'], ['pending'], ['unsettled'], ['metrics']]) {
    const command = parseCommand(argv);
    assert.ok(command.kind === 'operator' && command.masked, argv.join(' '));
  }
  const revealed = parseCommand(['inspect', 'wf-1', '--protected']);
  assert.ok(revealed.kind === 'operator' && !revealed.masked);
});

test('mcp accepts a task queue of safe characters', () => {
  assert.equal(
    (
      parseCommand(['mcp', '--tools', 'tools.js', '--task-queue', 'team-a/payments_v2.1']).input as {
        taskQueue?: unknown;
      }
    ).taskQueue,
    'team-a/payments_v2.1',
  );
});

test("bad command lines are usage errors (exit 2) that show the command's usage", () => {
  usage(['frobnicate']);
  usage(['help', 'me']);
  usage(['approve', 'wf-1']);
  usage(['approve', 'wf-1', 'call-1', '--digest', 'abc', '--approver', 'a']);
  usage(['approve', 'wf-1', 'call-1', '--digest', 'a'.repeat(64)]);
  usage(['approve', 'wf-1', 'call-1', '--digest', 'a'.repeat(64), '--approver', 'a', '--bogus']);
  usage(['reject', 'wf-1', '', '--digest', 'a'.repeat(64), '--approver', 'a']);
  usage(['resolve', 'key-1', '--resolver', 'ops']);
  usage(['mcp', '--tools', 'tools.js', '--task-queue', "q' OR TaskQueue = 'other"]);
  usage(['mcp', '--tools', 'tools.js', '--task-queue', 'q\\']);
  usage(['resolve', 'key-1', '--committed', 'ch_1', '--not-committed', '--resolver', 'ops']);
  usage(['resolve', 'key-1', '--committed', 'ch_1']);
  usage(['unsettled', '--limit', '0']);
  usage(['inspect']);
  usage(['inspect', 'wf-1', '--protected=yes']);
  usage(['pending', 'a', 'b']);
  usage(['start', '--port', '0']);
  usage(['start', '--port', '65536']);
  usage(['dev', '--ui-port', 'x']);
  usage(['dev', 'extra']);
  usage(['metrics', '--since', 'yesterday']);
  usage(['metrics', '--since', '2026-11-30']);
  usage(['metrics', '--since', '2026-13-45T99:00:00Z']);
  usage(['demo', '--port', '7300']);
  usage(['worker', '--workflows', 'w.ts']);
  usage(['worker', '--task-queue', 'q']);
  usage(['worker', '--tools', 't.ts']);
  usage(['migrate', 'now']);
  usage(['console', '--trust-proxy-header', 'X User']);
  usage(['console', '--operator', 'a', '--trust-proxy-header', 'X-Forwarded-Email']);
  usage(['console', '--temporal-ui', 'javascript:alert(1)']);
  usage(['console', '--port', '0']);
  usage(['console', 'extra']);
});

test('console serves on its usual port as the named operator, or takes the operator from the proxy header it is told to trust', () => {
  assert.deepEqual(parseCommand(['console', '--operator', 'lead@example.com']).input, {
    json: false,
    port: 8234,
    allowedHosts: [],
    operator: 'lead@example.com',
  });
  assert.deepEqual(
    parseCommand([
      'console',
      '--trust-proxy-header',
      'X-Forwarded-Email',
      '--allowed-host',
      'console.example.com',
      '--temporal-ui',
      'https://temporal.example.com',
    ]).input,
    {
      json: false,
      port: 8234,
      allowedHosts: ['console.example.com'],
      trustProxyHeader: 'X-Forwarded-Email',
      temporalUi: 'https://temporal.example.com',
    },
  );
});

test('dev ports come from the environment, else the usual dev-server defaults; flags win; a bad value names its variable', () => {
  assert.deepEqual(devPortsFromEnv({}), DEV_DEFAULTS);
  assert.deepEqual(DEV_DEFAULTS, { port: 7233, uiPort: 8233 });
  assert.deepEqual(devPortsFromEnv({ TTC_DEV_PORT: '7400', TTC_DEV_UI_PORT: ' ' }), { port: 7400, uiPort: 8233 });
  assert.deepEqual(devPorts({ TTC_DEV_PORT: '7400', TTC_DEV_UI_PORT: '8400' }, { uiPort: 9000 }), {
    port: 7400,
    uiPort: 9000,
  });
  assert.throws(
    () => devPortsFromEnv({ TTC_DEV_UI_PORT: '80a' }),
    (error: unknown) =>
      error instanceof CliError && error.exitCode === EXIT_CODES.usage && error.message.startsWith('TTC_DEV_UI_PORT'),
  );
});
