// The test files that take about a minute or more on the 2-core machine, longest first (the "slowest files" lines of
// full runs). The runner starts them before the rest: a long file that starts last runs alone at the end, with the
// other cores idle. Only the order depends on this list: a file missing from it starts in its alphabetical place.
import { join } from 'node:path';

/** Paths from the repository root, longest first. */
export const LONG_FILES: readonly string[] = [
  'test/integration/installed-package.test.ts',
  'test/integration/cli-audit.test.ts',
  'test/integration/cli-connection-errors.test.ts',
  'test/integration/cli-dev.test.ts',
  'test/reliability/faults/worker-kill.test.ts',
  'test/integration/ai-sdk.test.ts',
  'test/reliability/faults/network-faults.test.ts',
  'test/conformance/self-contained.test.ts',
  'test/integration/plans/audit-trail-plans.test.ts',
  'test/unit/security/linear-time.test.ts',
  'test/integration/cli-worker.test.ts',
  'test/integration/agent-loop.test.ts',
  'test/integration/reconciliation.test.ts',
  'test/reliability/faults/lost-completion.test.ts',
];

/** `files` (absolute paths) with the long ones first, in the list's order, and the rest in the order given. */
export function longFilesFirst(files: readonly string[], root: string): string[] {
  const rank = new Map(LONG_FILES.map((path, index) => [join(root, path), index]));
  const long = files.filter((file) => rank.has(file)).sort((a, b) => (rank.get(a) ?? 0) - (rank.get(b) ?? 0));
  return [...long, ...files.filter((file) => !rank.has(file))];
}
