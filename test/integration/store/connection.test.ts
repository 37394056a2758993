import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { EMBEDDED_APP_ROLE } from '../../../src/testing/embedded-postgres-server.js';
import { EMBEDDED_DATA_ROOT, resolveDatabase, type ResolvedDatabase } from '../../../src/testing/resolve-database.js';
import { PROJECT_ROOT } from '../../../testkit/project-root.js';
import { openTestDatabase } from '../../support/postgres.js';

const cluster = `test-conn-${process.pid}-${Date.now().toString(16).slice(-6)}`;
const opened: ResolvedDatabase[] = [];
after(async () => {
  for (const db of opened.reverse()) await db.close();
});

/** The first row of one query, on a connection of its own. */
async function firstRow<T extends pg.QueryResultRow>(connectionString: string, sql: string): Promise<T> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows[0]!;
  } finally {
    await client.end();
  }
}

async function serverVersion(connectionString: string): Promise<string> {
  return (await firstRow<{ server_version: string }>(connectionString, 'SHOW server_version')).server_version;
}

describe('database resolution', () => {
  it('uses DATABASE_URL (and DATABASE_OWNER_URL) as given when set, starting nothing', async () => {
    const resolved = await resolveDatabase({
      databaseUrl: 'postgres://u:p@db.example:5432/app',
      projectRoot: PROJECT_ROOT,
    });
    assert.equal(resolved.connectionString, 'postgres://u:p@db.example:5432/app');
    assert.equal(resolved.ownerConnectionString, null, 'no owner URL: the application role migrates itself');
    assert.equal(resolved.embedded, null);
    await resolved.close();
    const split = await resolveDatabase({
      databaseUrl: 'postgres://app:p@db.example/app',
      databaseOwnerUrl: 'postgres://owner:q@db.example/app',
      projectRoot: PROJECT_ROOT,
    });
    assert.deepEqual(
      [split.connectionString, split.ownerConnectionString],
      ['postgres://app:p@db.example/app', 'postgres://owner:q@db.example/app'],
    );
  });

  it('starts a real embedded Postgres under .data/postgres when no URL is set, and a second resolver attaches to it', async () => {
    const first = await resolveDatabase({
      databaseUrl: '',
      projectRoot: PROJECT_ROOT,
      clusterName: cluster,
      embedded: { ephemeral: true },
    });
    opened.push(first);
    assert.ok(first.embedded?.ownsServer);
    assert.ok(existsSync(join(PROJECT_ROOT, EMBEDDED_DATA_ROOT, cluster, 'PG_VERSION')));
    assert.match(await serverVersion(first.connectionString), /^\d+/);
    // The store connects as the cluster's application role; its superuser is the owner that migrates.
    assert.equal(new URL(first.connectionString).username, EMBEDDED_APP_ROLE);
    assert.equal(new URL(first.ownerConnectionString ?? '').username, 'postgres');
    assert.deepEqual(
      await firstRow(
        first.connectionString,
        'SELECT current_user, rolsuper AS superuser FROM pg_roles WHERE rolname = current_user',
      ),
      { current_user: EMBEDDED_APP_ROLE, superuser: false },
    );
    const passwordFile = join(PROJECT_ROOT, EMBEDDED_DATA_ROOT, `${cluster}.ttc-app-password`);
    assert.equal(statSync(passwordFile).mode & 0o777, 0o600, 'its password file is private');

    const second = await resolveDatabase({ projectRoot: PROJECT_ROOT, clusterName: cluster });
    assert.equal(second.embedded?.ownsServer, false);
    assert.equal(second.connectionString, first.connectionString);
    await second.close();
    // Closing the attached resolver must not stop the server its owner still uses.
    assert.match(await serverVersion(first.connectionString), /^\d+/);
  });

  it('fails (never skips) when the configured Postgres cannot be reached', async () => {
    // DATABASE_OWNER_URL too: the pooler tier sets it, and the owner would otherwise reach its Postgres directly.
    const saved = { url: process.env['DATABASE_URL'], owner: process.env['DATABASE_OWNER_URL'] };
    process.env['DATABASE_URL'] = 'postgres://nobody:nothing@127.0.0.1:1/none?connect_timeout=2';
    delete process.env['DATABASE_OWNER_URL'];
    try {
      await assert.rejects(openTestDatabase('unreachable'));
    } finally {
      for (const [name, value] of [
        ['DATABASE_URL', saved.url],
        ['DATABASE_OWNER_URL', saved.owner],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });
});
