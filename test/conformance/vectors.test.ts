// The vendored vectors are exactly the files their README records, byte for byte: a vector edited, added or removed
// without its row fails here, whichever test reads it.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { readVector, recordedDigests, VECTORS_DIR } from '../support/conformance-vectors.js';

/** Paths of the files under `dir`, relative to it, with `/` separators. */
function filesUnder(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((entry) => {
    const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    return entry.isDirectory() ? filesUnder(dir, path) : [path];
  });
}

describe('vendored conformance vectors', () => {
  it('the README lists every file of the folder and no other', () => {
    const onDisk = filesUnder(VECTORS_DIR)
      .filter((path) => path !== 'README.md')
      .sort();
    assert.deepEqual([...recordedDigests().keys()].sort(), onDisk);
  });

  it('every file has the SHA-256 the README records', () => {
    for (const path of recordedDigests().keys()) assert.ok(readVector(path).length > 0, `${path} is empty`);
  });
});
