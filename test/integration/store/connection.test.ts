import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { EMBEDDED_DATA_ROOT, resolveDatabase, type ResolvedDatabase } from '../../../src/testing/resolve-database.js';
import { PROJECT_ROOT } from '../../../testkit/project-root.js';
import { openTestDatabase } from '../../support/postgres.js';

const cluster = `test-conn-${process.pid}-${Date.now().toString(16).slice(-6)}`;
const opened: ResolvedDatabase[] = [];
after(async () => {
  for (const db of opened.reverse()) await db.close();
});

async function serverVersion(connectionString: string): Promise<string> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return (await client.query<{ server_version: string }>('SHOW server_version')).rows[0]!.server_version;
  } finally {
    await client.end();
  }
}

describe('database resolution', () => {
  it('uses DATABASE_URL as given when it is set, starting nothing', async () => {
    const resolved = await resolveDatabase({ databaseUrl: 'postgres://u:p@db.example:5432/app', projectRoot: PROJECT_ROOT });
    assert.equal(resolved.connectionString, 'postgres://u:p@db.example:5432/app');
    assert.equal(resolved.embedded, null);
    await resolved.close();
  });

  it('starts a real embedded Postgres under .data/postgres when no URL is set, and a second resolver attaches to it', async () => {
    const first = await resolveDatabase({ databaseUrl: '', projectRoot: PROJECT_ROOT, clusterName: cluster, embedded: { ephemeral: true } });
    opened.push(first);
    assert.ok(first.embedded?.ownsServer);
    assert.ok(existsSync(join(PROJECT_ROOT, EMBEDDED_DATA_ROOT, cluster, 'PG_VERSION')));
    assert.match(await serverVersion(first.connectionString), /^\d+/);

    const second = await resolveDatabase({ projectRoot: PROJECT_ROOT, clusterName: cluster });
    assert.equal(second.embedded?.ownsServer, false);
    assert.equal(second.connectionString, first.connectionString);
    await second.close();
    // Closing the attached resolver must not stop the server its owner still uses.
    assert.match(await serverVersion(first.connectionString), /^\d+/);
  });

  it('fails (never skips) when the configured Postgres cannot be reached', async () => {
    const saved = process.env['DATABASE_URL'];
    process.env['DATABASE_URL'] = 'postgres://nobody:nothing@127.0.0.1:1/none?connect_timeout=2';
    try {
      await assert.rejects(openTestDatabase('unreachable'));
    } finally {
      if (saved === undefined) delete process.env['DATABASE_URL'];
      else process.env['DATABASE_URL'] = saved;
    }
  });
});
