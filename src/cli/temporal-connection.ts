import { Client, Connection } from '@temporalio/client';
import type { PayloadCodec } from '@temporalio/common';
import { CliError, EXIT_CODES } from './cli-error.js';
import type { TemporalProfile } from './temporal-profile.js';

/** A client and how to close its connection. */
export interface TemporalClientConnection {
  readonly client: Client;
  close(): Promise<void>;
}

/**
 * A client connection, decoding (and encoding) payloads with `codec` when the worker encrypts them; an unreachable
 * server is `unavailable` with a hint how to set or start one.
 */
export async function connectClient(target: TemporalProfile, codec: PayloadCodec | null): Promise<TemporalClientConnection> {
  try {
    const connection = await Connection.connect({ ...target.connection, connectTimeout: '10s' });
    const dataConverter = codec === null ? {} : { dataConverter: { payloadCodecs: [codec] } };
    return { client: new Client({ connection, namespace: target.namespace, ...dataConverter }), close: () => connection.close() };
  } catch (error) {
    throw unreachable(target, error);
  }
}

/** The error for a server that does not answer, naming what to set and the command that starts one. */
export function unreachable(target: TemporalProfile, error: unknown): CliError {
  const detail = error instanceof Error ? error.message : String(error);
  return new CliError(
    `cannot reach the Temporal server at ${target.address} (set TEMPORAL_ADDRESS or choose a --profile, or start a local server with the \`dev\` command): ${detail}`,
    EXIT_CODES.unavailable,
    { cause: error },
  );
}
