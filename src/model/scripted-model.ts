import { z } from 'zod';
import { formatPointer, resolvePointer } from '../contract/json-pointer.js';
import { inspectJson } from '../contract/json-shape.js';
import { ToolError } from '../contract/tool-error.js';
import { checkConversation } from './conversation-check.js';
import { readToolCalls } from './model-tool-calls.js';
import type {
  ModelCallOptions,
  ModelClient,
  ModelMessage,
  ModelRequest,
  ModelResponse,
  ToolResultMessage,
} from './model-turn.js';

const scriptedCallSchema = z.union([
  z.strictObject({
    name: z.string().min(1),
    callId: z.string().min(1).optional(),
    /** May hold `{ "$result": { "tool", "pointer" } }` references to earlier tool results (see {@link ScriptedModel}). */
    arguments: z.record(z.string(), z.json()),
  }),
  z.strictObject({
    name: z.string().min(1),
    callId: z.string().min(1).optional(),
    /** Sent verbatim, for scripting malformed arguments. */
    rawArguments: z.string(),
  }),
]);

const scriptedTurnSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('final'), text: z.string() }),
  z.strictObject({
    kind: z.literal('tool_calls'),
    text: z.string().optional(),
    calls: z.array(scriptedCallSchema).min(1),
  }),
]);

/** Configuration of a {@link ScriptedModel}: plain JSON, so it can travel in workflow input. */
export const scriptedModelConfigSchema = z.strictObject({
  /** Names the script in response ids (`<scriptId>-turn-<n>`). */
  scriptId: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/)
    .optional(),
  turns: z.array(scriptedTurnSchema),
});

/** Configuration of a {@link ScriptedModel}. */
export type ScriptedModelConfig = z.input<typeof scriptedModelConfigSchema>;
type ScriptedTurn = z.infer<typeof scriptedTurnSchema>;
type ScriptedCall = z.infer<typeof scriptedCallSchema>;

/** Deeper configuration is refused before the template walk recurses into it. */
const MAX_CONFIG_DEPTH = 100;
const EVIDENCE_PLACEHOLDER = /\{\{evidence(?::([^{}]+))?\}\}/g;

/**
 * A deterministic model that plays a script, for demos and tests. The turn it plays is the number of assistant
 * messages already in the conversation, so it keeps no state: a retried activity, a replayed workflow or a fresh
 * instance given the same configuration and conversation answers identically.
 *
 * A turn is a function of the conversation through two templates, which keep the configuration JSON:
 * - `{{evidence}}` in a text becomes the citations (`[ev_…]`) of every evidence id returned by tool results so far,
 *   in conversation order; `{{evidence:<tool>}}` only those of that tool's results;
 * - an argument value `{ "$result": { "tool": "<tool>", "pointer": "/data/…" } }` becomes the value at that JSON
 *   Pointer in the latest result of that tool. A reference that does not resolve is `PROTOCOL_ERROR`
 *   (`script_reference_unresolved`).
 * Tool calls pass through the same reading as a real provider's (malformed arguments, duplicate call ids); call ids
 * default to `call_<turn>_<index>`. Asking for a turn past the end of the script is `PROTOCOL_ERROR`
 * (`script_exhausted`): the model has no usable answer, and retrying cannot give one.
 */
export class ScriptedModel implements ModelClient {
  readonly #scriptId: string;
  readonly #turns: readonly ScriptedTurn[];

  constructor(config: ScriptedModelConfig) {
    if (!inspectJson(config, MAX_CONFIG_DEPTH).ok)
      throw new ToolError('INVALID_ARGUMENTS', {
        reason: 'invalid_script',
        issues: [{ path: '', code: 'not_plain_json' }],
      });
    const parsed = scriptedModelConfigSchema.safeParse(config);
    if (!parsed.success) {
      const issues = parsed.error.issues
        .slice(0, 10)
        .map((issue) => ({ path: formatPointer(issue.path.map(String)), code: issue.code }));
      throw new ToolError('INVALID_ARGUMENTS', { reason: 'invalid_script', issues });
    }
    this.#scriptId = parsed.data.scriptId ?? 'scripted';
    this.#turns = parsed.data.turns;
  }

  /** Plays the turn the conversation has reached. */
  complete(request: ModelRequest, options: ModelCallOptions = {}): Promise<ModelResponse> {
    // The executor turns a throw into a rejection.
    return new Promise((resolve) => resolve(this.#play(request, options.signal)));
  }

  #play(request: ModelRequest, signal: AbortSignal | undefined): ModelResponse {
    if (signal?.aborted === true) throw signal.reason;
    checkConversation(request.messages);
    const turnIndex = request.messages.filter((message) => message.role === 'assistant').length;
    const turn = this.#turns[turnIndex];
    if (turn === undefined)
      throw new ToolError('PROTOCOL_ERROR', { reason: 'script_exhausted', turn: turnIndex, turns: this.#turns.length });
    const results = request.messages.filter((message): message is ToolResultMessage => message.role === 'tool');
    const responseId = `${this.#scriptId}-turn-${turnIndex}`;
    if (turn.kind === 'final') {
      return {
        kind: 'final',
        responseId,
        stopReason: 'stop',
        usage: null,
        text: fillCitations(turn.text, results),
        refusal: null,
      };
    }
    const calls = readToolCalls(
      turn.calls.map((call, index) => ({
        callId: call.callId ?? `call_${turnIndex}_${index}`,
        name: call.name,
        rawArguments: rawArguments(call, request.messages),
      })),
    );
    return {
      kind: 'tool_calls',
      responseId,
      stopReason: 'tool_calls',
      usage: null,
      text: turn.text === undefined ? null : fillCitations(turn.text, results),
      calls,
    };
  }
}

function fillCitations(text: string, results: readonly ToolResultMessage[]): string {
  return text.replace(EVIDENCE_PLACEHOLDER, (_match, tool: string | undefined) => {
    const ids = new Set<string>();
    for (const message of results) {
      if (tool !== undefined && message.name !== tool) continue;
      for (const evidence of message.result.evidence) ids.add(evidence.evidence_id);
    }
    return [...ids].map((id) => `[${id}]`).join(' ');
  });
}

function rawArguments(call: ScriptedCall, messages: readonly ModelMessage[]): string {
  if ('rawArguments' in call) return call.rawArguments;
  return JSON.stringify(resolveReferences(call.arguments, messages));
}

function resolveReferences(value: unknown, messages: readonly ModelMessage[]): unknown {
  if (Array.isArray(value)) return value.map((item) => resolveReferences(item, messages));
  if (value === null || typeof value !== 'object') return value;
  const reference = resultReference(value);
  if (reference !== null) return resolveReference(reference, messages);
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolveReferences(item, messages)]));
}

function resultReference(value: object): { tool: string; pointer: string } | null {
  const keys = Object.keys(value);
  if (keys.length !== 1 || keys[0] !== '$result') return null;
  const target = (value as { $result: unknown }).$result;
  if (target === null || typeof target !== 'object') return null;
  const { tool, pointer } = target as { tool?: unknown; pointer?: unknown };
  return typeof tool === 'string' && typeof pointer === 'string' ? { tool, pointer } : null;
}

function resolveReference(reference: { tool: string; pointer: string }, messages: readonly ModelMessage[]): unknown {
  const latest = messages.findLast(
    (message): message is ToolResultMessage => message.role === 'tool' && message.name === reference.tool,
  );
  const resolved = latest === undefined ? { found: false as const } : resolvePointer(latest.result, reference.pointer);
  if (!resolved.found)
    throw new ToolError('PROTOCOL_ERROR', {
      reason: 'script_reference_unresolved',
      tool: reference.tool,
      pointer: reference.pointer,
    });
  return resolved.value;
}
