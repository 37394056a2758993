import { parseArgs } from 'node:util';
import type { DecideInput } from './approve.js';
import { CliError, EXIT_CODES } from './cli-error.js';
import type { ResolveInput } from './resolve.js';

/** A parsed command line: what to run, with its validated input. */
export type CliCommand =
  | { readonly name: 'help' }
  | { readonly name: 'decide'; readonly input: DecideInput }
  | { readonly name: 'resolve'; readonly input: ResolveInput }
  | { readonly name: 'pending'; readonly workflowId?: string }
  | { readonly name: 'unsettled'; readonly limit?: number }
  | { readonly name: 'inspect'; readonly workflowId: string; readonly callId?: string };

/** Usage text printed by `help` and after bad input. */
export const USAGE = `Usage: tool-contract <command> [options]   (prints JSON on stdout)

  approve <workflowId> <callId> --digest <requestSha256> --approver <name> [--reason <text>]
  reject  <workflowId> <callId> --digest <requestSha256> --approver <name> [--reason <text>]
  resolve <idempotencyKey> (--committed <externalId> | --not-committed) --resolver <name> [--note <text>]
  pending [workflowId]          calls waiting for approval (one workflow, or all via visibility)
  unsettled [--limit <n>]       side effects whose outcome is unknown, with reconciliation metrics
  inspect <workflowId> [callId] model results, audit records, evidence and state patches

Environment: TEMPORAL_ADDRESS (default 127.0.0.1:7233), TEMPORAL_NAMESPACE (default default),
DATABASE_URL (default: the embedded Postgres under .data/postgres/main).
Exit codes: 0 ok, 1 failure, 2 bad input, 3 not found, 4 server unreachable, 5 refused by the workflow.`;

const SHA256_HEX = /^[0-9a-f]{64}$/;

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
    case 'inspect': {
      const { positionals } = parse(rest, {}, 1, 2, name);
      const [workflowId = '', callId] = positionals;
      return callId === undefined ? { name, workflowId } : { name, workflowId, callId };
    }
    default:
      throw usage(`unknown command '${name}'`);
  }
}

type StringOptions = Record<string, { readonly type: 'string' } | { readonly type: 'boolean' }>;

/** `parseArgs` in strict mode with a positional count check; its errors become usage errors. */
function parse(args: readonly string[], options: StringOptions, minPositionals: number, maxPositionals: number, command: string) {
  let parsed: { values: Record<string, string | boolean | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
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

function requiredString(values: Record<string, string | boolean | undefined>, option: string, command: string): string {
  const value = values[option];
  if (typeof value !== 'string' || value.trim() === '') throw usage(`${command}: --${option} <value> is required`);
  return value;
}

function optionalString(values: Record<string, string | boolean | undefined>, option: string): string | undefined {
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
