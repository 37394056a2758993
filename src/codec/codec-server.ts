import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Payload, PayloadCodec } from '@temporalio/common';
import {
  allowedHostValues,
  bearerTokenOf,
  hasAllowedHost,
  MIN_BEARER_TOKEN_LENGTH,
  tokenMatcher,
} from '../net/endpoint-access.js';

/** The largest request body accepted: a batch of payloads the UI shows (history pages), not bulk data. */
const MAX_BODY_BYTES = 8 * 1024 * 1024;

/** The shortest token the codec server accepts: it guards the key to every encrypted payload. */
export const MIN_CODEC_TOKEN_LENGTH = MIN_BEARER_TOKEN_LENGTH;

/** Payloads as Temporal's codec-server protocol carries them: metadata values and data in base64. */
interface JsonPayload {
  readonly metadata?: Record<string, string>;
  readonly data?: string;
}

/** Who may call a codec server. */
export interface CodecServerOptions {
  /**
   * The secret every request must carry (at least {@link MIN_CODEC_TOKEN_LENGTH} characters): as
   * `Authorization: Bearer <token>` (the Temporal CLI's `--codec-auth`), or as the first path segment,
   * `/<token>/decode` — so the Temporal UI, which calls `<codec endpoint>/decode`, carries it in its endpoint setting.
   */
  readonly token: string;
  /** Browser origins (the Temporal UI's address) that may call; a request from any other origin is refused. */
  readonly allowedOrigins: readonly string[];
  /** `Host` names accepted besides the loopback names (a reverse proxy's); the server answers no other name. */
  readonly allowedHosts?: readonly string[];
}

/**
 * A codec server as the Temporal UI and CLI call it: `POST /encode` and `POST /decode` with `{"payloads": [...]}`,
 * answering the same shape. It holds the keys to every encrypted payload, so it is a decryption (and encryption)
 * oracle for whoever may call it; before reading a body it refuses, in this order, a `Host` that is not a loopback
 * name on its port or an allowed host (403: a DNS-rebinding page's requests carry the page's own name), an `Origin`
 * that is not allowed (403: CORS only hides answers, it does not stop a request), and a request without the token
 * (401: another local user or process). CORS preflights of allowed origins are answered without the token (browsers
 * send none). A body that is not that JSON is 400; a payload that does not decode (unknown key, altered) is 422.
 * Nothing is logged: payloads are what the codec keeps secret.
 */
export function createCodecServer(codec: PayloadCodec, options: CodecServerOptions): Server {
  if (options.token.length < MIN_CODEC_TOKEN_LENGTH)
    throw new RangeError(`the codec server's token must be at least ${MIN_CODEC_TOKEN_LENGTH} characters`);
  const matches = tokenMatcher(options.token);
  let hosts: ReadonlySet<string> | undefined;
  const server = createServer((request, response) => {
    // The port is known once the server listens; loopback names without a port are accepted too (HTTP/1.0 clients).
    hosts ??= allowedHostValues('127.0.0.1', (server.address() as AddressInfo).port, options.allowedHosts ?? []);
    if (!hasAllowedHost(request, hosts)) return void answer(response, 403, { error: 'Host not allowed' });
    const origin = request.headers.origin;
    if (origin !== undefined && !options.allowedOrigins.includes(origin))
      return void answer(response, 403, { error: 'Origin not allowed' });
    if (origin !== undefined) {
      response.setHeader('Access-Control-Allow-Origin', origin);
      response.setHeader('Access-Control-Allow-Credentials', 'true');
      response.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
      response.setHeader('Access-Control-Allow-Headers', 'Content-Type, X-Namespace, Authorization');
      response.setHeader('Vary', 'Origin');
    }
    if (request.method === 'OPTIONS') return void response.writeHead(204).end();
    const { token, operation } = splitPath(request.url ?? '/');
    if (!matches(token ?? bearerTokenOf(request)))
      return void answer(response, 401, { error: 'a token is required' }, { 'WWW-Authenticate': 'Bearer' });
    if (request.method !== 'POST' || (operation !== '/encode' && operation !== '/decode'))
      return void answer(response, 404, { error: 'POST /encode or /decode' });
    void handle(request, response, (payloads) =>
      operation === '/encode' ? codec.encode(payloads) : codec.decode(payloads),
    );
  });
  return server;
}

/** `/<token>/decode` → the token and `/decode`; `/decode` → no token (it comes in the Authorization header). */
function splitPath(url: string): { readonly token: string | undefined; readonly operation: string } {
  const path = url.split('?')[0] ?? '/';
  const segments = path.split('/');
  if (segments.length !== 3) return { token: undefined, operation: path };
  return { token: segments[1], operation: `/${segments[2] ?? ''}` };
}

async function handle(
  request: IncomingMessage,
  response: ServerResponse,
  transform: (payloads: Payload[]) => Promise<Payload[]>,
): Promise<void> {
  let payloads: Payload[];
  try {
    payloads = fromJson(await readBody(request));
  } catch (error) {
    return answer(response, 400, { error: error instanceof Error ? error.message : String(error) });
  }
  try {
    answer(response, 200, { payloads: (await transform(payloads)).map(toJson) });
  } catch (error) {
    answer(response, 422, { error: error instanceof Error ? error.message : String(error) });
  }
}

function answer(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'Content-Type': 'application/json', ...headers }).end(JSON.stringify(body));
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).byteLength;
    if (size > MAX_BODY_BYTES) throw new Error(`body larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function fromJson(body: string): Payload[] {
  const parsed = JSON.parse(body) as { payloads?: unknown };
  if (!Array.isArray(parsed.payloads)) throw new Error('expected {"payloads": [...]}');
  return parsed.payloads.map((value: unknown) => {
    if (typeof value !== 'object' || value === null) throw new Error('a payload must be an object');
    const { metadata = {}, data = '' } = value as JsonPayload;
    if (typeof data !== 'string' || typeof metadata !== 'object' || metadata === null)
      throw new Error('a payload has base64 `data` and `metadata`');
    return {
      metadata: Object.fromEntries(
        Object.entries(metadata).map(([name, encoded]) => [
          name,
          new Uint8Array(Buffer.from(String(encoded), 'base64')),
        ]),
      ),
      data: new Uint8Array(Buffer.from(data, 'base64')),
    };
  });
}

function toJson(payload: Payload): JsonPayload {
  const metadata = Object.fromEntries(
    Object.entries(payload.metadata ?? {}).flatMap(([name, value]) =>
      value === null || value === undefined ? [] : [[name, Buffer.from(value).toString('base64')]],
    ),
  );
  return { metadata, data: Buffer.from(payload.data ?? new Uint8Array()).toString('base64') };
}
