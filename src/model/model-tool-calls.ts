import { MAX_ARGUMENT_DEPTH } from '../contract/execute-tool.js';
import { inspectJson } from '../contract/json-shape.js';
import { ToolError } from '../contract/tool-error.js';
import type { JsonObject, MalformedReason, ModelToolCall } from './model-turn.js';

/** A tool call as a provider delivered it: the arguments are still text. */
export interface RawToolCall {
  readonly callId: string;
  readonly name: string;
  readonly rawArguments: string;
}

/**
 * Turns the tool calls of one model response into the turn format. Arguments that are not a JSON object (invalid
 * JSON, an array, a string, or JSON the contract's input gate would refuse) become a {@link MalformedToolCall},
 * never a value a tool could run with. Call ids must be non-empty and unique within the response: results are
 * correlated by call id, so a duplicate would make two calls indistinguishable. Dropping one of them would silently
 * lose a call, so a duplicate is refused as `PROTOCOL_ERROR` (reason `duplicate_call_id`) rather than deduplicated.
 */
export function readToolCalls(raw: readonly RawToolCall[]): ModelToolCall[] {
  const seen = new Set<string>();
  return raw.map((call, index) => {
    if (call.callId === '') throw new ToolError('PROTOCOL_ERROR', { reason: 'empty_call_id', index });
    if (seen.has(call.callId))
      throw new ToolError('PROTOCOL_ERROR', { reason: 'duplicate_call_id', call_id: call.callId.slice(0, 200), index });
    seen.add(call.callId);
    return readToolCall(call);
  });
}

function readToolCall({ callId, name, rawArguments }: RawToolCall): ModelToolCall {
  const parsed = parseArguments(rawArguments);
  return 'reason' in parsed
    ? { callId, name, malformed: true, reason: parsed.reason, rawArguments }
    : { callId, name, malformed: false, arguments: parsed.value, rawArguments };
}

function parseArguments(text: string): { value: JsonObject } | { reason: MalformedReason } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // Also covers nesting deep enough to exhaust the parser's stack.
    return { reason: 'invalid_json' };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { reason: 'not_an_object' };
  // The same gate the contract's input layer applies at execution (depth, `__proto__` keys, lone surrogates).
  if (!inspectJson(value, MAX_ARGUMENT_DEPTH).ok) return { reason: 'unsafe_json' };
  return { value: value as JsonObject };
}
