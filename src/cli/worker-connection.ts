import { NativeConnection } from '@temporalio/worker';
import { CliError, EXIT_CODES } from './cli-error.js';
import { unreachable, type TemporalTarget } from './temporal-connection.js';

/** A worker connection, checked against the namespace so a wrong one fails here rather than in the poller. */
export async function connectWorker(target: TemporalTarget): Promise<NativeConnection> {
  let connection: NativeConnection;
  try {
    connection = await NativeConnection.connect({ address: target.address });
  } catch (error) {
    throw unreachable(target, error);
  }
  try {
    await connection.workflowService.describeNamespace({ namespace: target.namespace });
  } catch (error) {
    await connection.close().catch(() => undefined);
    const notFound = (error as { code?: unknown }).code === 5;
    if (notFound) throw new CliError(`namespace '${target.namespace}' does not exist on ${target.address} (set TEMPORAL_NAMESPACE)`, EXIT_CODES.notFound, { cause: error });
    throw unreachable(target, error);
  }
  return connection;
}
