// Verify's check of the artifact bodies the audit rows name.
import { absenceExplained, type ErasureRecord } from '../audit-trail/lifecycle-records.js';
import type { TrailFinding, TrailNote } from '../audit-trail/trail-findings.js';
import { readArtifactPurges } from './pg-trail-records.js';
import type { Queryable } from './sql-runner.js';

/** Digests looked up per round trip. */
const BATCH = 1_000;

/**
 * Each named body must be there and still hash to its name (hashed in the database: the bodies never travel). One
 * that is gone is a note when an erasure or a purge removed it, and a finding otherwise. `named` maps each digest to
 * an audit that names it.
 */
export async function checkArtifacts(
  db: Queryable,
  named: ReadonlyMap<string, string>,
  erasures: readonly ErasureRecord[],
): Promise<{ findings: TrailFinding[]; notes: TrailNote[] }> {
  const findings: TrailFinding[] = [];
  const notes: TrailNote[] = [];
  const digests = [...named.keys()];
  for (let start = 0; start < digests.length; start += BATCH) {
    const batch = digests.slice(start, start + BATCH);
    const stored = new Map(
      (
        await db.query<{ sha256: string; intact: boolean }>(
          `SELECT sha256, bool_or(encode(sha256(body), 'hex') = sha256 AND octet_length(body) = bytes) AS intact
             FROM ${db.table('ttc_artifacts')} WHERE sha256 = ANY($1::text[]) GROUP BY sha256`,
          [batch],
        )
      ).map((row) => [row.sha256, row.intact]),
    );
    const absent = batch.filter((sha256) => !stored.has(sha256));
    const purges = await readArtifactPurges(db, absent);
    for (const sha256 of batch) {
      const auditId = named.get(sha256) ?? '';
      const intact = stored.get(sha256);
      if (intact === true) continue;
      if (intact === false) {
        findings.push({ kind: 'artifact', audit_id: auditId, sha256, problem: 'altered' });
        continue;
      }
      const explained = absenceExplained(sha256, erasures, purges);
      if (explained === null) findings.push({ kind: 'artifact', audit_id: auditId, sha256, problem: 'missing' });
      else if (!notes.some((note) => JSON.stringify(note) === JSON.stringify(explained))) notes.push(explained);
    }
  }
  return { findings, notes };
}
