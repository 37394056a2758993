import { fileURLToPath } from 'node:url';

/** The node options that run a TypeScript file as the test suite does (see testkit/typescript-hooks.mjs). */
export const RUN_TYPESCRIPT: readonly string[] = [
  '--import',
  fileURLToPath(new URL('./typescript-hooks.mjs', import.meta.url)),
];
