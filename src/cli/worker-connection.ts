import { NativeConnection } from '@temporalio/worker';
import { connectChecked } from './temporal-connection.js';
import type { TemporalProfile } from './temporal-profile.js';

/** A worker connection, checked like a client's (see `connectChecked`), so a wrong namespace fails here rather than in the poller. */
export function connectWorker(target: TemporalProfile): Promise<NativeConnection> {
  return connectChecked(target, () => NativeConnection.connect(target.connection));
}
