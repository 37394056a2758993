import { spawn, spawnSync } from 'node:child_process';
import { chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from '../../src/testing/free-port.js';
import { serverOsUser } from '../../src/testing/postgres-os-user.js';
import { eventually } from './eventually.js';

/** On PATH, else where Debian installs it (/usr/sbin is not on a normal user's PATH). */
const PGBOUNCER_BINARIES = ['pgbouncer', '/usr/sbin/pgbouncer'];

/** The pgbouncer binary that runs here, if any. */
export function findPgBouncer(): string | undefined {
  return PGBOUNCER_BINARIES.find((candidate) => spawnSync(candidate, ['--version'], { stdio: 'ignore' }).status === 0);
}

/** A running PgBouncer in transaction mode in front of one Postgres. */
export interface PgBouncer {
  /** `postgres://127.0.0.1:<port>/postgres` without credentials: the caller's role and password pass through. */
  readonly url: string;
  /** Totals of the admin console's SHOW STATS: proof that the traffic went through the pooler. */
  stats(): Promise<{ transactions: number; queries: number }>;
  stop(): Promise<void>;
}

/**
 * Starts Debian's `pgbouncer` (1.18 on bookworm: before 1.21, so no prepared statements across transactions) in
 * transaction mode on a free loopback port, in front of the Postgres of `ownerUrl`. Every role of that server can
 * log in with its own password: PgBouncer looks the SCRAM secret up with `auth_query` as the owner, whose password
 * is the only one in its auth file. Throws (never skips) when pgbouncer is not installed.
 */
export async function startPgBouncer(ownerUrl: string): Promise<PgBouncer> {
  const binary = findPgBouncer();
  if (binary === undefined)
    throw new Error('pgbouncer is not installed: apt-get install pgbouncer (Debian), which .ci/run does');
  const owner = new URL(ownerUrl);
  const ownerRole = decodeURIComponent(owner.username);
  const dir = await mkdtemp(join(tmpdir(), 'ttc-pgbouncer-'));
  const port = await freePort();
  await writeFile(join(dir, 'userlist.txt'), `"${ownerRole}" "${decodeURIComponent(owner.password)}"\n`, {
    mode: 0o600,
  });
  await writeFile(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${owner.hostname} port=${owner.port}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'pool_mode = transaction',
      'auth_type = scram-sha-256',
      `auth_file = ${join(dir, 'userlist.txt')}`,
      `auth_user = ${ownerRole}`,
      'auth_query = SELECT usename, passwd FROM pg_shadow WHERE usename = $1',
      `admin_users = ${ownerRole}`,
      'max_client_conn = 2000',
      'default_pool_size = 20',
      // SHOW STATS totals are refreshed once per stats period (60 s by default).
      'stats_period = 1',
      `logfile = ${join(dir, 'pgbouncer.log')}`,
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  // PgBouncer refuses to run as root; then it runs as the user embedded Postgres runs as, who must read its files.
  const runAs = serverOsUser();
  if (runAs !== null)
    for (const file of ['', 'userlist.txt', 'pgbouncer.ini']) await chown(join(dir, file), runAs.uid, runAs.gid);
  const child = spawn(binary, [join(dir, 'pgbouncer.ini')], {
    stdio: 'ignore',
    ...(runAs === null ? {} : { uid: runAs.uid, gid: runAs.gid }),
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `postgres://127.0.0.1:${port}/postgres`;
  const admin = (): pg.Client => new pg.Client({ connectionString: withRole(url, owner, 'pgbouncer') });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await eventually('pgbouncer to accept connections', async () => {
      if (child.exitCode !== null) throw new Error(`pgbouncer exited with ${child.exitCode}`);
      const client = new pg.Client({ connectionString: withRole(url, owner, 'postgres') });
      await client.connect();
      await client.end();
      return true;
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    url,
    async stats() {
      const client = admin();
      await client.connect();
      try {
        // Without parameters pg sends the simple protocol, the only one the admin console speaks.
        const { rows } = await client.query<{ total_xact_count: string; total_query_count: string }>('SHOW STATS');
        return rows.reduce(
          (sum, row) => ({
            transactions: sum.transactions + Number(row.total_xact_count),
            queries: sum.queries + Number(row.total_query_count),
          }),
          { transactions: 0, queries: 0 },
        );
      } finally {
        await client.end();
      }
    },
    stop,
  };
}

/** `url` with the owner's credentials and another database name. */
function withRole(url: string, owner: URL, database: string): string {
  const target = new URL(url);
  target.username = owner.username;
  target.password = owner.password;
  target.pathname = `/${database}`;
  return target.toString();
}
