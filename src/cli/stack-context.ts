import type { CliConfig } from './cli-config.js';
import type { CliOutput } from './output.js';

/** What the stack commands get from the composition root (main): settings, where they run, how they talk, when to stop. */
export interface StackContext {
  readonly config: CliConfig;
  /** How to run this CLI again (see `cliInvocation`): the prefix of every command line it prints. */
  readonly cli: string;
  /** The project folder whose `.data/` and `.tools/` are used (the working directory). */
  readonly projectRoot: string;
  /** The environment the Temporal CLI is looked up in (TEMPORAL_CLI_PATH, PATH, TMPDIR). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly out: CliOutput;
  /** Aborts on SIGINT/SIGTERM: the command then stops what it started, in order, and returns. */
  readonly stop: AbortSignal;
}
