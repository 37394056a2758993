import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import pg from 'pg';
import { EXIT_CODES } from '../../src/cli/cli-error.js';
import { EmbeddedPostgresServer } from '../../src/testing/embedded-postgres-server.js';
import { runCli } from '../support/cli-process.js';

// As root (containers, CI), embedded Postgres runs as the postgres system user, which must enter every folder on the
// way to its data: a project in a shared folder (0755) works; one in a private folder (0700, as `mktemp -d` makes
// it and root's home is) is refused with the folder to open up, never an unhandled `spawn … EACCES`.
const asRoot = process.getuid?.() === 0;
const folders: string[] = [];
after(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function projectFolder(mode: number): string {
  const folder = mkdtempSync(join(tmpdir(), 'ttc-root-pg-'));
  chmodSync(folder, mode);
  folders.push(folder);
  return folder;
}

test('as root, a project in a 0755 folder gets a working embedded Postgres', { skip: asRoot ? false : 'the postgres system user only comes in as root', timeout: 120_000 }, async () => {
  const server = new EmbeddedPostgresServer({ dataDir: join(projectFolder(0o755), '.data', 'postgres', 'main'), ephemeral: true, postgresFlags: ['-c', 'fsync=off'] });
  try {
    await server.start();
    const client = new pg.Client({ connectionString: server.connectionString });
    await client.connect();
    assert.equal((await client.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one, 1);
    await client.end();
  } finally {
    await server.dispose();
  }
});

test('as root, a project in a 0700 folder is refused with the folder to open, by the server and by the CLI', { skip: asRoot ? false : 'the postgres system user only comes in as root', timeout: 120_000 }, async () => {
  const folder = projectFolder(0o700);
  const server = new EmbeddedPostgresServer({ dataDir: join(folder, '.data', 'postgres', 'main'), ephemeral: true });
  await assert.rejects(server.start(), (error: unknown) => error instanceof Error && error.message.includes(folder));

  const migrate = await runCli(['migrate'], { cwd: folder, env: { DATABASE_URL: undefined, DATABASE_OWNER_URL: undefined } });
  assert.equal(migrate.code, EXIT_CODES.unavailable, migrate.stderr);
  assert.ok(migrate.stderr.includes(`chmod o+x ${folder}`), migrate.stderr);
  assert.doesNotMatch(migrate.stderr, /EACCES|unexpected failure/);
});
