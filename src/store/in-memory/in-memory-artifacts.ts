import type { ArtifactPayload } from '../../contract/execute-tool.js';
import { sha256OfBytes } from '../byte-digest.js';
import { checkSha256 } from '../input-checks.js';
import { StoreError } from '../store-error.js';
import type { StoredArtifact } from '../stored-records.js';
import type { InMemoryTables } from './in-memory-tables.js';

/** Stores an artifact under its SHA-256 (idempotent); a body that does not match its declared digest or size is refused. */
export function putArtifact(tables: InMemoryTables, artifact: ArtifactPayload): void {
  const sha256 = checkSha256(artifact.sha256, 'artifact.sha256');
  const bytes = Buffer.byteLength(artifact.body, 'utf8');
  if (sha256OfBytes(artifact.body) !== sha256 || bytes !== artifact.bytes)
    throw new StoreError('digest_mismatch', { what: 'artifact', declared: sha256 });
  if (!tables.artifacts.has(sha256))
    tables.artifacts.set(sha256, { sha256, contentType: artifact.contentType, bytes, body: artifact.body });
}

/** Reads an artifact and re-verifies its digest. */
export function getArtifact(tables: InMemoryTables, sha256: string): StoredArtifact {
  const artifact = tables.artifacts.get(checkSha256(sha256, 'sha256'));
  if (!artifact) throw new StoreError('artifact_not_found', { sha256 });
  if (sha256OfBytes(artifact.body) !== sha256) throw new StoreError('digest_mismatch', { what: 'artifact', sha256 });
  return { ...artifact };
}
