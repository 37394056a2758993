import { Client, Connection } from '@temporalio/client';
import type { PayloadCodec } from '@temporalio/common';
import { connectionError, diagnoseConnectionFailure } from './connection-failure.js';
import type { TemporalProfile } from './temporal-profile.js';

/** A client and how to close its connection. */
export interface TemporalClientConnection {
  readonly client: Client;
  close(): Promise<void>;
}

/** What {@link connectChecked} needs of a connection, client or worker side. */
interface CheckableConnection {
  readonly workflowService: { describeNamespace(request: { namespace: string }): Promise<unknown> };
  close(): Promise<void>;
}

/**
 * Connects with `connect` and checks the profile's namespace exists, so every command meets a bad address, TLS,
 * credentials or namespace here, at once and the same way: as the CLI error of its cause (exit code, address, the
 * server's reason and a hint that fits; see `connection-failure.ts`), never later as an "unexpected failure".
 */
export async function connectChecked<C extends CheckableConnection>(
  target: TemporalProfile,
  connect: () => Promise<C>,
): Promise<C> {
  let connection: C;
  try {
    connection = await connect();
  } catch (error) {
    throw connectionError(target, await diagnoseConnectionFailure(target, error, 'connect'), error);
  }
  try {
    await connection.workflowService.describeNamespace({ namespace: target.namespace });
  } catch (error) {
    await connection.close().catch(() => undefined);
    throw connectionError(target, await diagnoseConnectionFailure(target, error, 'namespace'), error);
  }
  return connection;
}

/** A checked client connection, decoding (and encoding) payloads with `codec` when the worker encrypts them. */
export async function connectClient(
  target: TemporalProfile,
  codec: PayloadCodec | null,
): Promise<TemporalClientConnection> {
  const connection = await connectChecked(target, () =>
    Connection.connect({ ...target.connection, connectTimeout: '10s' }),
  );
  const dataConverter = codec === null ? {} : { dataConverter: { payloadCodecs: [codec] } };
  return {
    client: new Client({ connection, namespace: target.namespace, ...dataConverter }),
    close: () => connection.close(),
  };
}
