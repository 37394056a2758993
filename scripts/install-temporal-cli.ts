// Installs the Temporal CLI into .tools/ (see src/testing/provision-temporal-cli.ts) and prints its path
// relative to the project root; progress goes to stderr. Run through scripts/install-temporal-cli.sh.
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { provisionTemporalCli } from '../src/testing/provision-temporal-cli.js';

const projectRoot = fileURLToPath(new URL('..', import.meta.url));
try {
  const { path } = await provisionTemporalCli({
    projectRoot,
    log: (line) => process.stderr.write(`install-temporal-cli: ${line}\n`),
  });
  process.stdout.write(`${relative(projectRoot, path)}\n`);
} catch (error) {
  process.stderr.write(`install-temporal-cli: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
