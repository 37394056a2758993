import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode } from '@temporalio/worker';
import { SHARED_BUNDLE_ENV, sharedService } from '../../testkit/shared-test-services.js';

const testWorkflows = fileURLToPath(new URL('./test-workflows.ts', import.meta.url));
/** The declarations the test workflows call tools by, loaded once per workflow thread as a deployment would. */
export const TEST_DECLARATION_MODULES: readonly string[] = [
  fileURLToPath(new URL('../../testkit/payment-declarations.ts', import.meta.url)),
];
const quietLogger = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };

/**
 * The workflow bundle of the integration tests' worker (the package's workflows plus test/support/test-workflows.ts):
 * the one the test run built before its files started (testkit/shared-test-services.ts), else built here. Bundling
 * takes seconds of CPU, which the run would otherwise spend again in every file.
 */
export async function testWorkflowBundle(): Promise<{ code: string }> {
  const built = sharedService(SHARED_BUNDLE_ENV);
  if (built !== undefined) return { code: await readFile(built, 'utf8') };
  return bundleWorkflowCode({
    workflowsPath: testWorkflows,
    preloadModules: [...TEST_DECLARATION_MODULES],
    logger: quietLogger,
  });
}
