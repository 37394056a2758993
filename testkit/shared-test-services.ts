// The services one test run shares between its files (scripts/test-run/shared-services.ts starts them): a Temporal dev
// server, where each file gets a namespace of its own, a Postgres cluster, where each file gets a database of its own,
// and the integration tests' workflow bundle. Files reach them through these environment variables; without them
// (a file run by hand, a benchmark) each file starts its own, as before.

/** `host:port` of the shared Temporal dev server. */
export const SHARED_TEMPORAL_ENV = 'TTC_TEST_TEMPORAL_ADDRESS';
/** A superuser URL of the shared Postgres cluster. */
export const SHARED_POSTGRES_ENV = 'TTC_TEST_POSTGRES_URL';
/** Path of the integration tests' workflow bundle (test/support/test-workflows.ts), built once per run. */
export const SHARED_BUNDLE_ENV = 'TTC_TEST_WORKFLOW_BUNDLE';

/** The shared service's address or URL, when the run provides one. */
export function sharedService(
  name: typeof SHARED_TEMPORAL_ENV | typeof SHARED_POSTGRES_ENV | typeof SHARED_BUNDLE_ENV,
): string | undefined {
  const value = process.env[name]?.trim();
  return value === '' ? undefined : value;
}
