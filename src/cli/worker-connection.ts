import { NativeConnection } from '@temporalio/worker';
import { CliError, EXIT_CODES } from './cli-error.js';
import { unreachable } from './temporal-connection.js';
import type { TemporalProfile } from './temporal-profile.js';

/** A worker connection, checked against the namespace so a wrong one fails here rather than in the poller. */
export async function connectWorker(target: TemporalProfile): Promise<NativeConnection> {
  let connection: NativeConnection;
  try {
    connection = await NativeConnection.connect(target.connection);
  } catch (error) {
    throw unreachable(target, error);
  }
  try {
    await connection.workflowService.describeNamespace({ namespace: target.namespace });
  } catch (error) {
    await connection.close().catch(() => undefined);
    const notFound = (error as { code?: unknown }).code === 5;
    if (notFound) throw new CliError(`namespace '${target.namespace}' does not exist on ${target.address} (set TEMPORAL_NAMESPACE or the profile's namespace)`, EXIT_CODES.notFound, { cause: error });
    throw unreachable(target, error);
  }
  return connection;
}
