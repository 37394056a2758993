import { accessSync, constants, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

/** Where a Temporal CLI binary was found, and by which rule. */
export interface ResolvedTemporalCli {
  readonly path: string;
  readonly source: 'TEMPORAL_CLI_PATH' | 'PATH' | 'project-tools' | 'sdk-cache';
}

/** What {@link resolveTemporalCli} looks at; injected so tests and the CLI decide, not module state. */
export interface TemporalCliLookup {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Root of the project whose `.tools/bin/temporal` (see scripts/install-temporal-cli.sh) is searched. */
  readonly projectRoot: string;
}

/**
 * Finds the Temporal CLI in the order of DESIGN.md: `TEMPORAL_CLI_PATH`, `temporal` on `PATH`, the project-local
 * `.tools` folder, then the SDK's cached download in the temp directory. `null` when none is executable.
 * An explicit `TEMPORAL_CLI_PATH` that is not executable is an error, not a reason to fall through silently.
 */
export function resolveTemporalCli(lookup: TemporalCliLookup): ResolvedTemporalCli | null {
  const explicit = lookup.env['TEMPORAL_CLI_PATH'];
  if (explicit !== undefined && explicit !== '') {
    if (!isExecutable(explicit)) throw new Error(`TEMPORAL_CLI_PATH=${explicit} is not an executable file`);
    return { path: explicit, source: 'TEMPORAL_CLI_PATH' };
  }
  for (const dir of (lookup.env['PATH'] ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, 'temporal');
    if (isExecutable(candidate)) return { path: candidate, source: 'PATH' };
  }
  const local = join(lookup.projectRoot, '.tools', 'bin', 'temporal');
  if (isExecutable(local)) return { path: local, source: 'project-tools' };
  const cached = sdkCachedCli(lookup.env['TMPDIR'] || tmpdir());
  return cached === null ? null : { path: cached, source: 'sdk-cache' };
}

/** The SDK (core's ephemeral server) downloads the CLI to `<tmpdir>/temporal-cli-<sdk or version>`. */
function sdkCachedCli(dir: string): string | null {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return null;
  }
  const found = entries
    .filter((name) => name.startsWith('temporal-cli-'))
    .sort()
    .reverse();
  for (const name of found) {
    const candidate = join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return null;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return !path.endsWith('/');
  } catch {
    return false;
  }
}
