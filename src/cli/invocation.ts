import { basename, dirname } from 'node:path';

/**
 * How to run this CLI again the way it was started, as the prefix of the command lines it prints (the `approve` line
 * of the demo, the `inspect` hints): `entry` is the script node ran (`process.argv[1]`).
 * - the TypeScript source, as `npm start` / `npm run cli` run it in a clone: `npm run cli --` (no bin is built there);
 * - the bin linked into a project's `node_modules/.bin`: `npx tool-contract` (not on PATH, but npx finds it);
 * - the bin of a global install (on PATH): `tool-contract`;
 * - anything else (e.g. `node lib/src/cli/main.js`): `node <that script>`.
 */
export function cliInvocation(entry: string | undefined): string {
  if (entry === undefined) return 'tool-contract';
  if (entry.endsWith('.ts')) return 'npm run cli --';
  if (basename(entry) === 'tool-contract')
    return basename(dirname(entry)) === '.bin' ? 'npx tool-contract' : 'tool-contract';
  return `node ${entry}`;
}
