import type { ArtifactPayload } from '../../contract/execute-tool.js';
import { sha256OfBytes } from '../byte-digest.js';
import { checkSha256, checkText } from '../input-checks.js';
import type { Queryable } from './sql-runner.js';
import { StoreError } from '../store-error.js';
import type { StoredArtifact } from '../stored-records.js';

/**
 * Stores an artifact by digest. The digest is recomputed first: a payload whose body does not hash to its
 * declared SHA-256 (or whose size is wrong) is refused, so the table never holds a body under a false name.
 */
export async function insertArtifact(db: Queryable, artifact: ArtifactPayload, now: Date): Promise<void> {
  const sha256 = checkSha256(artifact.sha256, 'artifact.sha256');
  const contentType = checkText(artifact.contentType, 'artifact.contentType');
  if (typeof artifact.body !== 'string')
    throw new StoreError('invalid_input', { field: 'artifact.body', problem: 'not_a_string' });
  const body = Buffer.from(artifact.body, 'utf8');
  if (!artifact.body.isWellFormed())
    throw new StoreError('invalid_input', { field: 'artifact.body', problem: 'lone_surrogate' });
  const actual = sha256OfBytes(body);
  if (actual !== sha256 || body.byteLength !== artifact.bytes) {
    throw new StoreError('digest_mismatch', {
      what: 'artifact',
      declared: sha256,
      actual,
      declaredBytes: artifact.bytes,
      actualBytes: body.byteLength,
    });
  }
  // Same digest ⇒ same bytes: the table's insert trigger keeps one row per digest and month (migration 006), so the
  // month that records an audit holds the bodies it names.
  await db.query(
    `INSERT INTO ${db.table('ttc_artifacts')} (sha256, content_type, bytes, body, created_at) VALUES ($1, $2, $3, $4, $5)`,
    [sha256, contentType, body.byteLength, body, now],
  );
}

/** Reads an artifact and verifies its bytes against the digest it is stored under. */
export async function readArtifact(db: Queryable, sha256: string): Promise<StoredArtifact> {
  const key = checkSha256(sha256, 'sha256');
  const rows = await db.query<{ content_type: string; bytes: string; body: Buffer }>(
    `SELECT content_type, bytes, body FROM ${db.table('ttc_artifacts')} WHERE sha256 = $1 ORDER BY created_at DESC LIMIT 1`,
    [key],
  );
  const row = rows[0];
  if (!row) throw new StoreError('artifact_not_found', { sha256: key });
  const actual = sha256OfBytes(row.body);
  if (actual !== key || Number(row.bytes) !== row.body.byteLength) {
    throw new StoreError('digest_mismatch', { what: 'artifact', sha256: key, actual });
  }
  return { sha256: key, contentType: row.content_type, bytes: row.body.byteLength, body: row.body.toString('utf8') };
}
