import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A workflow bundle written to a temporary file, for worker processes to load (bundling once per test file). */
export async function writeBundleFile(code: string): Promise<{ path: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'ttc-faults-'));
  const path = join(dir, 'workflows.js');
  await writeFile(path, code);
  return { path, remove: () => rm(dir, { recursive: true, force: true }) };
}
