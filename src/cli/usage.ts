import { exitCodeMeanings } from './cli-error.js';
import type { CommandUsage, RegisteredCommand } from './command.js';
import { COMMAND_GROUPS } from './commands/registry.js';

/** Where descriptions start: a synopsis that does not fit before this column gets its description on the next lines. */
const DESCRIPTION_COLUMN = 32;
const INDENT = '  ';

/** What holds for every command: output modes, environment, exit codes. */
const FOOTER = `--json (any command): stdout carries only JSON; start/dev/worker/demo print one JSON line per milestone
({"event":"ready",...}, {"event":"summary",...}, {"event":"stopped"}) and their progress on stderr.
Passwords and tokens in URLs are masked in everything printed (inspect --protected prints its records as stored).
--profile <name>, --config-file <path> (any command): the temporal.toml profile to connect with, as the temporal
CLI reads it (@temporalio/envconfig; also TEMPORAL_PROFILE, TEMPORAL_CONFIG_FILE); start and dev run their own server.
Environment: TEMPORAL_ADDRESS (default 127.0.0.1:7233), TEMPORAL_NAMESPACE (default default), TEMPORAL_API_KEY,
TEMPORAL_TLS_CLIENT_CERT_PATH / TEMPORAL_TLS_CLIENT_KEY_PATH / TEMPORAL_TLS_SERVER_CA_CERT_PATH (and the rest of
envconfig's TEMPORAL_* variables; they override the profile),
DATABASE_URL (the application role; default: the embedded Postgres under .data/postgres/main), DATABASE_OWNER_URL (the
role that owns the tables and migrates), DATABASE_SCHEMA (the schema of the tables; default public),
TTC_PRINCIPAL_KEY (worker: 32+ byte secret keying audit principal refs),
TTC_CURSOR_KEY (worker: 32+ byte secret sealing continuation cursors; required by tools with a cursor continuation),
TTC_CODEC_KEYS (id:base64key[,...], the first encrypts: worker and demo encrypt payloads, the operator commands and
codec-server decode them), TTC_DEV_PORT / TTC_DEV_UI_PORT (dev, start), TEMPORAL_CLI_PATH (a Temporal CLI binary to use),
TTC_DECISION_KEY (the key approve/reject/resolve sign with) and TTC_DECISION_VERIFY_KEYS (the keys a worker verifies
decisions with); dev, start and demo create a project key pair in .data/decisions/ on first run, which the commands run
in this folder use. Keys are never printed.
Exit codes:
${exitCodeMeanings()
  .map(({ code, meaning }) => `${INDENT}${code}  ${meaning}`)
  .join('\n')}`;

/** One command's entry: the synopsis, and its description beside it (or below it, when the synopsis is long). */
function renderUsage({ synopsis, description }: CommandUsage): string {
  const column = ' '.repeat(DESCRIPTION_COLUMN);
  const line = `${INDENT}${synopsis}`;
  const [first, ...rest] = description;
  if (first === undefined) return line;
  const head =
    line.length < DESCRIPTION_COLUMN ? [`${line.padEnd(DESCRIPTION_COLUMN)}${first}`] : [line, `${column}${first}`];
  return [...head, ...rest.map((text) => `${column}${text}`)].join('\n');
}

/** Usage text printed by `help` (and the README's CLI section): every command of the registry, then the footer. */
export const USAGE = [
  'Usage: tool-contract <command> [options]',
  ...COMMAND_GROUPS.map((group) =>
    [group.title, ...group.commands.map((command) => renderUsage(command.usage))].join('\n'),
  ),
  FOOTER,
].join('\n\n');

/** What bad input to one command is answered with: that command's usage, and where to find the rest. */
export function commandUsage(command: RegisteredCommand): string {
  return `Usage: tool-contract\n${renderUsage(command.usage)}\n(the help command: every command, --json, the environment and exit codes)`;
}
