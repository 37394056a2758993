// The vendored conformance vectors (test/conformance/vectors/). Their README is the one record of what each file is
// and of its SHA-256; every read checks the bytes against it, so an edited vector fails the test that reads it
// instead of quietly testing something else.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder of the vendored vectors, inside the repository (tests never read outside it). */
export const VECTORS_DIR = fileURLToPath(new URL('../conformance/vectors/', import.meta.url));

/** A row of a README table: `| `path` | upstream | revision | sha256 |`. */
const DIGEST_ROW = /^\|\s*`([^`]+)`\s*\|.*\|\s*([0-9a-f]{64})\s*\|$/;

/** Each vendored file (path relative to {@link VECTORS_DIR}) with the SHA-256 its README records. */
export function recordedDigests(): ReadonlyMap<string, string> {
  const digests = new Map<string, string>();
  for (const line of readFileSync(join(VECTORS_DIR, 'README.md'), 'utf8').split('\n')) {
    const row = DIGEST_ROW.exec(line.trim());
    if (row === null) continue;
    const [, path, digest] = row as unknown as [string, string, string];
    assert.ok(!digests.has(path), `${path} is listed twice in the vectors README`);
    digests.set(path, digest);
  }
  return digests;
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The bytes of a vendored vector, after checking they are the ones its README records. */
export function readVector(path: string): Buffer {
  const expected = recordedDigests().get(path);
  assert.ok(expected !== undefined, `${path} is not listed in test/conformance/vectors/README.md`);
  const bytes = readFileSync(join(VECTORS_DIR, path));
  assert.equal(
    sha256Hex(bytes),
    expected,
    `${path} is not the vendored upstream file (SHA-256 differs from the README)`,
  );
  return bytes;
}
