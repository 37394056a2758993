// Strips the types of every TypeScript source of the project once per test run, into the folder given, one file per
// SHA-256 of the source: what testkit/typescript-hooks.mjs hands the run's processes instead of stripping each source
// again in each of them. Run with --no-warnings: `stripTypeScriptTypes` is marked experimental and says so.
//   node --no-warnings scripts/test-run/stripped-sources.mjs <folder>
import console from 'node:console';
import { createHash } from 'node:crypto';
import { globSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { stripTypeScriptTypes } from 'node:module';
import { join } from 'node:path';
import process from 'node:process';
import { fileURLToPath, URL } from 'node:url';

const SOURCE_FOLDERS = ['src', 'workflows', 'activities', 'testkit', 'test', 'scripts', 'bench'];

const folder = process.argv[2];
if (folder === undefined) {
  console.error('usage: stripped-sources.mjs <folder>');
  process.exit(2);
}
mkdirSync(folder, { recursive: true });
const root = fileURLToPath(new URL('../../', import.meta.url));
for (const file of globSync(`{${SOURCE_FOLDERS.join(',')}}/**/*.ts`, { cwd: root })) {
  if (file.endsWith('.d.ts')) continue;
  const source = readFileSync(join(root, file));
  const digest = createHash('sha256').update(source).digest('hex');
  let stripped;
  try {
    stripped = stripTypeScriptTypes(source.toString('utf8'));
  } catch {
    continue; // Node strips it where it is loaded, and names the syntax it cannot.
  }
  writeFileSync(join(folder, `${digest}.js`), stripped);
}
