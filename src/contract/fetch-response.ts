import { HTTP_JSON_RULE, isContentCoded, readHttpJson, type HttpJson, type HttpJsonOptions } from './http-response.js';
import { ToolError } from './tool-error.js';

/**
 * What {@link readFetchJson} needs of a WHATWG `fetch` response (Node's global `fetch`, undici, a browser): its
 * status, its headers and its body as a stream. A `Response` is one.
 */
export interface FetchedResponse {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  readonly body: { getReader(): FetchBodyReader } | null;
}

/** The reader of a response body stream. */
export interface FetchBodyReader {
  read(): Promise<{ readonly done: boolean; readonly value?: Uint8Array | undefined }>;
  cancel(reason?: unknown): Promise<void>;
}

const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;

/**
 * Reads a `fetch` response through the protocol layer ({@link readHttpJson}), streaming its body: a handler awaits
 * it instead of `response.arrayBuffer()`. What `arrayBuffer()` would throw as an anonymous `TypeError` — a connection
 * cut mid-body, a coded stream that does not decode (a truncated gzip or br body) — is a `PROTOCOL_ERROR` here that
 * carries the bytes received so far, so the audit records their SHA-256 and length, and the details say how far it
 * got (seed 004: "流式响应中途断开要保留已接收范围，但不得将半个 JSON 标为成功"). A body over `maxBodyBytes` is refused while
 * it streams in, without reading the rest. A cancellation (the handler's `ctx.signal`) passes through unchanged.
 */
export async function readFetchJson(response: FetchedResponse, options: HttpJsonOptions = {}): Promise<HttpJson> {
  const limit = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const contentType = response.headers.get('content-type') ?? '';
  const chunks: Uint8Array[] = [];
  let received = 0;
  const reader = response.body?.getReader();
  while (reader !== undefined) {
    let chunk: { readonly done: boolean; readonly value?: Uint8Array | undefined };
    try {
      chunk = await reader.read();
    } catch (error) {
      if (isAbort(error)) throw error;
      throw cutShort(response, concat(chunks, received), contentType, error);
    }
    if (chunk.done) break;
    const value = chunk.value ?? new Uint8Array(0);
    received += value.byteLength;
    if (received > limit) {
      await reader.cancel().catch(() => undefined);
      const kept = concat([...chunks, value.subarray(0, value.byteLength - (received - limit))], limit);
      throw refusal('body exceeds the size limit', { limit, received_bytes: limit }, kept, contentType);
    }
    chunks.push(value);
  }
  return readHttpJson({ status: response.status, headers: response.headers, body: concat(chunks, received) }, options);
}

/** The body ended before it was complete: refused with what arrived, and how far it got. */
function cutShort(response: FetchedResponse, partial: Uint8Array, contentType: string, error: unknown): ToolError {
  const coded = isContentCoded(response.headers.get('content-encoding') ?? undefined);
  const declared = response.headers.get('content-length');
  return refusal(
    'body ended before it was complete',
    {
      received_bytes: partial.byteLength,
      // A coded body arrives decoded: the declared length counts other bytes, and is not the range that is missing.
      ...(declared !== null && !coded ? { declared_bytes: declared.slice(0, 32) } : {}),
      ...(coded ? { content_coded: true } : {}),
      cause: errorName(error),
    },
    partial,
    contentType,
  );
}

function refusal(reason: string, details: Record<string, unknown>, body: Uint8Array, contentType: string): ToolError {
  const mediaType = (contentType.split(';', 1)[0] ?? '').trim().toLowerCase();
  return new ToolError(
    'PROTOCOL_ERROR',
    { reason, ...details },
    { rule: HTTP_JSON_RULE, rawResponse: { body, contentType: mediaType } },
  );
}

function concat(chunks: readonly Uint8Array[], total: number): Uint8Array {
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError');
}

/** The kind of error the stream failed with (its message may carry anything, so only the name is kept). */
function errorName(error: unknown): string {
  try {
    return error instanceof Error ? error.name.slice(0, 64) : typeof error;
  } catch {
    return 'unprintable';
  }
}
