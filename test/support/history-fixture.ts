import protos from '@temporalio/proto';

type History = protos.temporal.api.history.v1.IHistory;

/**
 * Encodes a fetched history as a replay fixture with every failure's stack trace cleared: stack traces name files
 * on the recording machine, and replay never reads them (only commands and event order must match).
 */
export function encodeHistoryFixture(history: History): Uint8Array {
  clearStackTraces(history);
  return protos.temporal.api.history.v1.History.encode(history).finish();
}

/** Count of non-empty stack traces left in a history (a fixture must have none). */
export function stackTraceCount(history: History): number {
  let count = 0;
  walk(history, (node) => {
    if (typeof node['stackTrace'] === 'string' && node['stackTrace'] !== '') count += 1;
  });
  return count;
}

function clearStackTraces(history: History): void {
  walk(history, (node) => {
    if (typeof node['stackTrace'] === 'string') node['stackTrace'] = '';
  });
}

function walk(value: unknown, visit: (node: Record<string, unknown>) => void): void {
  if (value === null || typeof value !== 'object' || value instanceof Uint8Array) return;
  if (Array.isArray(value)) {
    for (const item of value) walk(item, visit);
    return;
  }
  const node = value as Record<string, unknown>;
  visit(node);
  for (const key of Object.keys(node)) walk(node[key], visit);
}
