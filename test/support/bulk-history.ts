import type pg from 'pg';

/**
 * Runs a bulk load of generated history rows as the owner, with the tables' *_once insert triggers disabled: they take
 * one advisory lock per row until commit (one row per key, migration 006), which a million rows in one statement
 * would overflow. The generated rows are unique by construction; the stamp trigger (seq, xact) still runs.
 */
export async function bulkLoadHistory(
  ownerPool: pg.Pool,
  load: (client: pg.PoolClient) => Promise<void>,
): Promise<void> {
  const client = await ownerPool.connect();
  const triggers = [
    ['ttc_audit', 'ttc_audit_once'],
    ['ttc_evidence', 'ttc_evidence_once'],
    ['ttc_artifacts', 'ttc_artifact_once_a_month'],
  ] as const;
  try {
    for (const [table, trigger] of triggers) await client.query(`ALTER TABLE ${table} DISABLE TRIGGER ${trigger}`);
    await load(client);
  } finally {
    for (const [table, trigger] of triggers) await client.query(`ALTER TABLE ${table} ENABLE TRIGGER ${trigger}`);
    client.release();
  }
}
