import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Payload, PayloadCodec } from '@temporalio/common';

/** The largest request body accepted: a batch of payloads the UI shows (history pages), not bulk data. */
const MAX_BODY_BYTES = 8 * 1024 * 1024;

/** Payloads as Temporal's codec-server protocol carries them: metadata values and data in base64. */
interface JsonPayload {
  readonly metadata?: Record<string, string>;
  readonly data?: string;
}

/**
 * A codec server as the Temporal UI and CLI call it: `POST /encode` and `POST /decode` with `{"payloads": [...]}`,
 * answering the same shape; CORS for `allowedOrigins` only (the UI's address), credentials included, so the browser
 * may send the operator's cookies or Authorization header. A body that is not that JSON is 400; a payload that does
 * not decode (unknown key, altered) is 422. Nothing is logged: payloads are what the codec keeps secret.
 */
export function createCodecServer(codec: PayloadCodec, allowedOrigins: readonly string[]): Server {
  return createServer((request, response) => {
    const origin = request.headers.origin;
    if (origin !== undefined && allowedOrigins.includes(origin)) {
      response.setHeader('Access-Control-Allow-Origin', origin);
      response.setHeader('Access-Control-Allow-Credentials', 'true');
      response.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
      response.setHeader('Access-Control-Allow-Headers', 'Content-Type, X-Namespace, Authorization');
      response.setHeader('Vary', 'Origin');
    }
    if (request.method === 'OPTIONS') return void response.writeHead(204).end();
    const operation = request.url?.split('?')[0];
    if (request.method !== 'POST' || (operation !== '/encode' && operation !== '/decode')) return void answer(response, 404, { error: 'POST /encode or /decode' });
    void handle(request, response, (payloads) => (operation === '/encode' ? codec.encode(payloads) : codec.decode(payloads)));
  });
}

async function handle(request: IncomingMessage, response: ServerResponse, transform: (payloads: Payload[]) => Promise<Payload[]>): Promise<void> {
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

function answer(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
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
    if (typeof data !== 'string' || typeof metadata !== 'object' || metadata === null) throw new Error('a payload has base64 `data` and `metadata`');
    return { metadata: Object.fromEntries(Object.entries(metadata).map(([name, encoded]) => [name, new Uint8Array(Buffer.from(String(encoded), 'base64'))])), data: new Uint8Array(Buffer.from(data, 'base64')) };
  });
}

function toJson(payload: Payload): JsonPayload {
  const metadata = Object.fromEntries(Object.entries(payload.metadata ?? {}).flatMap(([name, value]) => (value === null || value === undefined ? [] : [[name, Buffer.from(value).toString('base64')]])));
  return { metadata, data: Buffer.from(payload.data ?? new Uint8Array()).toString('base64') };
}
