import { inspect } from 'node:util';
import type { LogEntry } from '@temporalio/worker';
import { maskCredentials } from './mask-credentials.js';
import type { LineSink } from './output.js';

/**
 * A log function for the SDK's DefaultLogger: its lines as the default one writes them, with URL credentials masked
 * (a failed activity is logged with its error, whose message may quote a connection string).
 */
export function maskedSdkLog(sink: LineSink): (entry: LogEntry) => void {
  return ({ level, message, meta, timestampNanos }) => {
    const when = new Date(Number(timestampNanos / 1_000_000n)).toISOString();
    const details = meta === undefined ? '' : ` ${inspect(meta)}`;
    sink.write(`${maskCredentials(`${when} [${level}] ${message}${details}`)}\n`);
  };
}
