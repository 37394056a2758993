// The checks `npm test` runs at once (scripts/test-run/run-all.ts).

/** One check: a command, and whether its output streams (the test files') or is printed when it ends. */
export interface Check {
  readonly name: string;
  readonly command: readonly string[];
  readonly streams: boolean;
}

/** The checks of `npm test`, in the order their results are reported. */
export const CHECKS: readonly Check[] = [
  { name: 'typecheck', command: ['npx', 'tsc', '-p', 'tsconfig.json', '--noEmit'], streams: false },
  { name: 'lint', command: ['npx', 'eslint', '.'], streams: false },
  // One formatter (.prettierrc.json, 120 columns) for the TypeScript and JavaScript sources; `npm run format` fixes.
  { name: 'format', command: ['npx', 'prettier', '--check', '**/*.{ts,mjs,js}'], streams: false },
  { name: 'tests', command: ['scripts/run-tests.sh'], streams: true },
  { name: 'pooler', command: ['node', '--import', 'tsx', 'scripts/run-pooler-tests.ts'], streams: false },
];
