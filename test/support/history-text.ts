import type { Client } from '@temporalio/client';

/**
 * The full text of a workflow's history: every string of every event, with every payload (inputs, results,
 * failure details, memo, search attributes) decoded from its bytes. `JSON.stringify` of the events would show
 * payloads as base64 (protobuf messages serialise bytes that way), and a search for a secret would pass unseen.
 */
export async function historyText(
  client: Client,
  workflowId: string,
): Promise<{ text: string; largestPayloadBytes: number; events: number }> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const parts: string[] = [];
  let largestPayloadBytes = 0;
  const seen = new Set<object>();
  const walk = (value: unknown): void => {
    if (typeof value === 'string') parts.push(value);
    else if (value instanceof Uint8Array) {
      largestPayloadBytes = Math.max(largestPayloadBytes, value.byteLength);
      parts.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('utf8'));
    } else if (typeof value === 'object' && value !== null && !seen.has(value)) {
      seen.add(value);
      for (const child of Object.values(value)) walk(child);
    }
  };
  walk(history.events ?? []);
  return { text: parts.join('\n'), largestPayloadBytes, events: history.events?.length ?? 0 };
}
