import { Context } from '@temporalio/activity';

/**
 * Heartbeats the current activity while `work` runs, when it was scheduled with a heartbeat timeout: a worker that
 * dies (or freezes) mid-activity is then noticed after that timeout instead of the whole start-to-close timeout, and
 * the activity runs again elsewhere within seconds. Three beats per timeout; the SDK throttles what it sends.
 */
export async function withHeartbeats<T>(work: () => Promise<T>): Promise<T> {
  const { info, heartbeat } = Context.current();
  const timeoutMs = info.heartbeatTimeoutMs;
  if (info.isLocal || timeoutMs === undefined || timeoutMs <= 0) return work();
  heartbeat();
  const timer = setInterval(() => heartbeat(), Math.max(50, Math.floor(timeoutMs / 3)));
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}
