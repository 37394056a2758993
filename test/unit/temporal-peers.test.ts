import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { PROJECT_ROOT } from '../../testkit/project-root.js';

interface Manifest {
  readonly dependencies: Record<string, string>;
  readonly peerDependencies: Record<string, string>;
  readonly devDependencies: Record<string, string>;
}

// A user on another 1.x of the Temporal SDK must get one copy of it: the package names it as a peer with a range,
// and pins the exact version it is developed and tested with as a dev dependency (docs/temporal-runtime.md).
test('the Temporal SDK is a peer dependency with a 1.x range, pinned exactly for development', () => {
  const manifest = JSON.parse(readFileSync(`${PROJECT_ROOT}package.json`, 'utf8')) as Manifest;
  assert.deepEqual(
    Object.keys(manifest.dependencies).filter((name) => name.startsWith('@temporalio/')),
    [],
  );
  const peers = Object.entries(manifest.peerDependencies).filter(([name]) => name.startsWith('@temporalio/'));
  assert.ok(peers.length >= 6);
  for (const [name, range] of peers) {
    assert.equal(range, '>=1.23.0 <2', name);
    assert.match(manifest.devDependencies[name] ?? '', /^1\.\d+\.\d+$/, `${name} is pinned exactly for development`);
  }
});
