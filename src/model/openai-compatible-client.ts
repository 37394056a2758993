import { z } from 'zod';
import { formatPointer } from '../contract/json-pointer.js';
import { readHttpJson } from '../contract/http-response.js';
import { Redactor } from '../contract/redaction.js';
import { ToolError } from '../contract/tool-error.js';
import {
  fencedModelResultRenderer,
  toChatCompletionsRequest,
  type ToolResultRenderer,
} from './chat-completions-request.js';
import { readChatCompletion } from './chat-completions-response.js';
import { readChatCompletionStream } from './chat-completions-stream.js';
import type { ModelCallOptions, ModelClient, ModelRequest, ModelResponse } from './model-turn.js';
import { retryAfterMs, type HeaderLookup } from './retry-after.js';

/**
 * Configuration of an {@link OpenAICompatibleClient}: plain JSON, so it can come from a file or the environment.
 * `baseUrl` is the API root (`https://api.openai.com/v1`, a gateway, or a local server such as
 * `http://127.0.0.1:11434/v1`); requests go to `{baseUrl}/chat/completions`, keeping any query string.
 */
export const openAICompatibleConfigSchema = z.strictObject({
  baseUrl: z.url({ protocol: /^https?$/ }),
  model: z.string().min(1),
  /** Sent as `Authorization: Bearer …`; omit for local servers without authentication. */
  apiKey: z.string().min(1).optional(),
  /** Whole-call deadline (connect, wait, read the body). Keep it below the activity's start-to-close timeout. */
  timeoutMs: z.number().int().positive().max(3_600_000).optional(),
  /** Extra headers (gateway routing, organization). Treated as secrets, like the key. */
  headers: z.record(z.string(), z.string()).optional(),
  maxTokensField: z.enum(['max_completion_tokens', 'max_tokens']).optional(),
  maxResponseBytes: z.number().int().positive().optional(),
  /**
   * Ask for the answer as a stream (`stream: true`, Server-Sent Events) and assemble it (see
   * `chat-completions-stream.ts`): a cut stream is never a turn, and tool-call argument deltas are checked per call.
   */
  stream: z.boolean().optional(),
});

/** Configuration of an {@link OpenAICompatibleClient}. */
export type OpenAICompatibleConfig = z.input<typeof openAICompatibleConfigSchema>;

/** The `fetch` this client needs (the global `fetch` fits). */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

/** Injected dependencies; every one has a default. */
export interface OpenAICompatibleDeps {
  readonly fetch?: FetchLike;
  /** Clock for `Retry-After` dates. */
  readonly now?: () => number;
  /** Renders tool results into `role: "tool"` messages; inject the Chat Completions adapter's renderer. */
  readonly renderToolResult?: ToolResultRenderer;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
/** Error bodies are read only for the provider's error type and code. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;
const IDENTIFIER = /^[A-Za-z0-9_.:-]{1,64}$/;

/**
 * A model client for any server that speaks OpenAI Chat Completions. Errors are catalog codes:
 * - 401/403 → `PERMISSION_DENIED`; 400/422 → `INVALID_ARGUMENTS`; 404 → `NOT_FOUND` (as the protocol layer maps them);
 * - 429 → `RATE_LIMITED` with the provider's `retry-after-ms`/`Retry-After`;
 * - 408, 409, 5xx, connection failures, a body cut off in transit and the deadline → `UPSTREAM_UNAVAILABLE`
 *   (retryable): a completion has no side effect, so repeating it is always safe, unlike a tool write for which the
 *   protocol layer keeps ambiguous statuses as `PROTOCOL_ERROR`. The deadline is not `TIMEOUT_BEFORE_EXECUTE`: the
 *   request was sent and may well have run; only the lack of side effects makes the retry safe.
 * - a 2xx that is not a complete JSON Chat Completion (an HTML page, half a document, a wrong shape) and any
 *   redirect (never followed, so the key cannot travel elsewhere) → `PROTOCOL_ERROR`; duplicate call ids too.
 * The API key and extra headers live in private fields and never appear in an error, its details or its cause.
 */
export class OpenAICompatibleClient implements ModelClient {
  readonly #url: string;
  readonly #model: string;
  readonly #apiKey: string | undefined;
  readonly #headers: Readonly<Record<string, string>>;
  readonly #timeoutMs: number;
  readonly #maxTokensField: 'max_completion_tokens' | 'max_tokens';
  readonly #maxResponseBytes: number;
  readonly #stream: boolean;
  readonly #fetch: FetchLike;
  readonly #now: () => number;
  readonly #render: ToolResultRenderer;
  readonly #secrets: readonly string[];
  readonly #redactor: Redactor;

  constructor(config: OpenAICompatibleConfig, deps: OpenAICompatibleDeps = {}) {
    const parsed = openAICompatibleConfigSchema.safeParse(config);
    if (!parsed.success) {
      // Paths and codes only: the rejected values may include the key.
      const issues = parsed.error.issues.map((issue) => ({
        path: formatPointer(issue.path.map(String)),
        code: issue.code,
      }));
      throw new ToolError('INVALID_ARGUMENTS', { reason: 'invalid_model_config', issues });
    }
    const url = new URL(parsed.data.baseUrl);
    // Credentials in the URL would be sent along and could surface in error text; the key has its own field.
    if (url.username !== '' || url.password !== '')
      throw new ToolError('INVALID_ARGUMENTS', {
        reason: 'invalid_model_config',
        issues: [{ path: '/baseUrl', code: 'credentials_in_url' }],
      });
    url.pathname = `${url.pathname.replace(/\/+$/, '')}/chat/completions`;
    this.#url = url.href;
    this.#model = parsed.data.model;
    this.#apiKey = parsed.data.apiKey;
    this.#headers = parsed.data.headers ?? {};
    this.#timeoutMs = parsed.data.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#maxTokensField = parsed.data.maxTokensField ?? 'max_completion_tokens';
    this.#maxResponseBytes = parsed.data.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.#stream = parsed.data.stream ?? false;
    this.#fetch = deps.fetch ?? ((input, init) => fetch(input, init));
    this.#now = deps.now ?? Date.now;
    this.#render = deps.renderToolResult ?? fencedModelResultRenderer;
    this.#secrets = [this.#apiKey, ...Object.values(this.#headers)].filter(
      (secret): secret is string => secret !== undefined && secret.length > 0,
    );
    this.#redactor = new Redactor({
      sensitiveFields: [],
      protectedSubstrings: this.#secrets,
      protectedExact: this.#secrets,
    });
  }

  /** Sends one Chat Completions request and returns the model's turn. */
  async complete(request: ModelRequest, options: ModelCallOptions = {}): Promise<ModelResponse> {
    const plain = toChatCompletionsRequest(request, {
      model: this.#model,
      maxTokensField: this.#maxTokensField,
      renderToolResult: this.#render,
    });
    const body = this.#stream ? { ...plain, stream: true, stream_options: { include_usage: true } } : plain;
    const deadline = AbortSignal.timeout(this.#timeoutMs);
    const signal = options.signal === undefined ? deadline : AbortSignal.any([options.signal, deadline]);

    let response: Response;
    try {
      response = await this.#fetch(this.#url, {
        method: 'POST',
        headers: this.#requestHeaders(),
        body: JSON.stringify(body),
        signal,
        redirect: 'manual',
      });
    } catch (error) {
      throw this.#transportError(error, 'connection_failed', options.signal, deadline);
    }
    const ok = response.status >= 200 && response.status < 300;
    let bytes: Uint8Array;
    try {
      bytes = await readLimited(response, ok ? this.#maxResponseBytes : MAX_ERROR_BODY_BYTES, ok);
    } catch (error) {
      throw this.#transportError(error, 'body_interrupted', options.signal, deadline);
    }
    if (!ok) throw this.#statusError(response, bytes);
    if (this.#stream) return readStreamed(response, bytes);
    // A gzip or br body arrives decoded; the protocol layer then does not compare it with the coded length.
    const { json } = readHttpJson(
      { status: response.status, headers: response.headers, body: bytes },
      { maxBodyBytes: this.#maxResponseBytes },
    );
    return readChatCompletion(json);
  }

  #requestHeaders(): Headers {
    const headers = new Headers(this.#headers);
    headers.set('content-type', 'application/json');
    headers.set('accept', 'application/json');
    if (this.#apiKey !== undefined) headers.set('authorization', `Bearer ${this.#apiKey}`);
    return headers;
  }

  /** The caller's cancellation passes through unchanged; everything else in transit is a retryable upstream failure. */
  #transportError(
    error: unknown,
    reason: string,
    callerSignal: AbortSignal | undefined,
    deadline: AbortSignal,
  ): unknown {
    if (callerSignal?.aborted === true) return callerSignal.reason;
    if (error instanceof ToolError) return error;
    if (deadline.aborted)
      return new ToolError('UPSTREAM_UNAVAILABLE', { reason: 'timeout', timeout_ms: this.#timeoutMs });
    return new ToolError('UPSTREAM_UNAVAILABLE', { reason, ...this.#safeFields({ error_code: errorCode(error) }) });
  }

  #statusError(response: Response, bytes: Uint8Array): ToolError {
    const header: HeaderLookup = (name) => response.headers.get(name);
    const wait = retryAfterMs(header, this.#now);
    const retry = wait === undefined ? {} : { retryAfterMs: wait };
    const details = { http_status: response.status, ...this.#safeFields(providerError(bytes)) };
    const status = response.status;
    if (status === 408 || status === 409 || status >= 500) return new ToolError('UPSTREAM_UNAVAILABLE', details, retry);
    // The protocol layer owns the status → code mapping for everything else (it always throws for a non-2xx).
    let code = 'PROTOCOL_ERROR';
    try {
      readHttpJson({ status, headers: response.headers, body: bytes });
    } catch (error) {
      if (error instanceof ToolError) code = error.code;
    }
    return new ToolError(code, details, retry);
  }

  /**
   * Keeps only identifier-like strings that are not secret-shaped (the contract's redaction patterns), contain no
   * configured secret and are not a piece of one (a provider may echo part of the key).
   */
  #safeFields(fields: Record<string, string | undefined>): Record<string, string> {
    const safe: Record<string, string> = {};
    for (const [key, value] of Object.entries(fields)) {
      if (value === undefined || !IDENTIFIER.test(value)) continue;
      if (this.#redactor.text(value, '', []) !== value) continue;
      if (value.length >= 8 && this.#secrets.some((secret) => secret.includes(value))) continue;
      safe[key] = value;
    }
    return safe;
  }
}

/** Reads the body up to `limit` bytes; a larger success body is a `PROTOCOL_ERROR`, a larger error body is cut. */
async function readLimited(response: Response, limit: number, strict: boolean): Promise<Uint8Array> {
  if (response.body === null) return new Uint8Array(0);
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel();
      if (strict) throw new ToolError('PROTOCOL_ERROR', { reason: 'body exceeds the size limit', limit });
      chunks.push(value.subarray(0, value.byteLength - (total - limit)));
      total = limit;
      break;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** The provider's `error.type` and `error.code` from an error body, when it has them. */
function providerError(bytes: Uint8Array): Record<string, string | undefined> {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return {};
  }
  const error = json !== null && typeof json === 'object' ? (json as { error?: unknown }).error : undefined;
  if (error === null || typeof error !== 'object') return {};
  const { type, code } = error as { type?: unknown; code?: unknown };
  return {
    provider_error_type: typeof type === 'string' ? type : undefined,
    provider_error_code: typeof code === 'string' ? code : undefined,
  };
}

/** A system error code (`ECONNREFUSED`, `UND_ERR_SOCKET`) from a fetch failure or its cause; never its message. */
function errorCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 4; current = current.cause, depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z][A-Z0-9_]{1,40}$/.test(code)) return code;
  }
  return undefined;
}

/**
 * A streamed answer: declared as an event stream, valid UTF-8, then assembled. A stream that ended before `[DONE]` was
 * cut in transit, like a body cut off: `UPSTREAM_UNAVAILABLE`, which a completion (no side effect) may retry.
 */
function readStreamed(response: Response, bytes: Uint8Array): ModelResponse {
  const mediaType = (response.headers.get('content-type') ?? '').split(';', 1)[0]!.trim().toLowerCase();
  if (mediaType !== 'text/event-stream')
    throw new ToolError('PROTOCOL_ERROR', { reason: 'stream is not declared as text/event-stream' });
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ToolError('PROTOCOL_ERROR', { reason: 'stream is not valid UTF-8' });
  }
  try {
    return readChatCompletionStream(text);
  } catch (error) {
    if (error instanceof ToolError && error.details['reason'] === 'stream_ended_before_done')
      throw new ToolError('UPSTREAM_UNAVAILABLE', { reason: 'stream_ended_before_done' });
    throw error;
  }
}
