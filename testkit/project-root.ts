import { fileURLToPath } from 'node:url';

/** The repository root, for tests and benchmarks that locate its files (this file is testkit/project-root.ts). */
export const PROJECT_ROOT = fileURLToPath(new URL('../', import.meta.url));
