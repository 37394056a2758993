import type { JsonValue } from '../contract/json-value.js';
import type { ModelResult } from '../contract/model-result.js';

/**
 * The provider-neutral turn format of the agent loop: what a model is asked (conversation, tools, settings) and what
 * it answered (a final text or tool calls). Every value here is plain JSON, so requests and responses can be
 * activity inputs and results in Temporal history. Provider wire formats live in the model clients, never here.
 */

/** A JSON object: the only shape tool-call arguments may have. */
export type JsonObject = { readonly [key: string]: JsonValue };

/** Instructions from the application (trusted control text). */
export interface SystemMessage {
  readonly role: 'system';
  readonly text: string;
}

/** What the user said. */
export interface UserMessage {
  readonly role: 'user';
  readonly text: string;
}

/** A previous model turn, replayed into the conversation exactly as the model produced it (see {@link toAssistantMessage}). */
export interface AssistantMessage {
  readonly role: 'assistant';
  readonly text: string | null;
  readonly calls: readonly ModelToolCall[];
}

/**
 * The answer to one tool call: always the contract's model projection (never the audit), including the
 * `INVALID_ARGUMENTS` result the caller builds for a malformed call. Clients render it into their provider's shape.
 */
export interface ToolResultMessage {
  readonly role: 'tool';
  readonly callId: string;
  readonly name: string;
  readonly result: ModelResult;
}

/** One message of the conversation. */
export type ModelMessage = SystemMessage | UserMessage | AssistantMessage | ToolResultMessage;

/** A tool the model may call; `parameters` is the JSON Schema in the dialect the provider expects. */
export interface ModelToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly parameters: JsonObject;
  /** OpenAI strict mode: only for schemas already exported in the strict dialect. */
  readonly strict?: boolean;
}

/** Which tools the model may or must call. */
export type ToolChoice = 'auto' | 'none' | 'required' | { readonly name: string };

/** Generation settings. Omitted settings are not sent, so the provider's defaults apply. */
export interface ModelSettings {
  /** Overrides the client's configured model for this request. */
  readonly model?: string;
  readonly temperature?: number;
  readonly maxOutputTokens?: number;
  readonly toolChoice?: ToolChoice;
  readonly parallelToolCalls?: boolean;
  readonly seed?: number;
}

/** One request to a model. */
export interface ModelRequest {
  readonly messages: readonly ModelMessage[];
  readonly tools: readonly ModelToolDefinition[];
  readonly settings?: ModelSettings;
}

/** A tool call whose arguments are a JSON object: the only kind a caller may execute. */
export interface WellFormedToolCall {
  readonly callId: string;
  readonly name: string;
  readonly malformed: false;
  readonly arguments: JsonObject;
  /** The argument text exactly as the model produced it (echoed back to the provider in later turns). */
  readonly rawArguments: string;
}

/** Why a tool call's arguments cannot be executed. */
export type MalformedReason = 'invalid_json' | 'not_an_object' | 'unsafe_json';

/**
 * A tool call whose arguments are not a JSON object. It has no `arguments` field on purpose: it cannot be passed to a
 * tool by mistake. The caller answers it with `INVALID_ARGUMENTS` and never executes it.
 */
export interface MalformedToolCall {
  readonly callId: string;
  readonly name: string;
  readonly malformed: true;
  readonly reason: MalformedReason;
  readonly rawArguments: string;
}

/** One tool call of a model turn. Call ids are unique within a response. */
export type ModelToolCall = WellFormedToolCall | MalformedToolCall;

/** Why the model stopped. `length` means the output was cut by the token limit: a final text is then incomplete. */
export type StopReason = 'stop' | 'tool_calls' | 'length' | 'content_filter' | 'other';

/** Token counts as the provider reported them. */
export interface ModelUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly totalTokens: number;
}

interface ResponseCommon {
  /** The provider's response id (bound into each call's audit binding). */
  readonly responseId: string;
  readonly stopReason: StopReason;
  readonly usage: ModelUsage | null;
}

/** The model answered. `refusal` is the provider's refusal text, when it refused. */
export interface FinalResponse extends ResponseCommon {
  readonly kind: 'final';
  readonly text: string;
  readonly refusal: string | null;
}

/** The model asked for tool calls (possibly several, to run in parallel), with optional accompanying text. */
export interface ToolCallsResponse extends ResponseCommon {
  readonly kind: 'tool_calls';
  readonly text: string | null;
  readonly calls: readonly ModelToolCall[];
}

/** One model turn. */
export type ModelResponse = FinalResponse | ToolCallsResponse;

/** Options of one model call. */
export interface ModelCallOptions {
  /** Cancels the call (for example the activity's cancellation signal); its reason is rethrown unchanged. */
  readonly signal?: AbortSignal;
}

/** A model the agent loop can call. Implementations throw only `ToolError` with catalog codes (or the caller's abort reason). */
export interface ModelClient {
  complete(request: ModelRequest, options?: ModelCallOptions): Promise<ModelResponse>;
}

/** The assistant message that puts `response` into the conversation for the next turn. */
export function toAssistantMessage(response: ModelResponse): AssistantMessage {
  return response.kind === 'final'
    ? { role: 'assistant', text: response.text, calls: [] }
    : { role: 'assistant', text: response.text, calls: response.calls };
}
