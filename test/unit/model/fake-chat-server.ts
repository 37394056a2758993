import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChatCompletion } from 'openai/resources/chat/completions';

/** A request the fake server received. */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** Answers one request. */
export type Responder = (request: RecordedRequest, response: ServerResponse) => void;

/**
 * A local server that speaks OpenAI Chat Completions, on 127.0.0.1 and a random port. Each request takes the next
 * queued responder (a 500 when none is left) and is recorded, so tests can check exactly what the client sent.
 */
export class FakeChatServer {
  readonly requests: RecordedRequest[] = [];
  readonly #queue: Responder[] = [];
  readonly #server: Server;

  private constructor() {
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const recorded = {
          method: req.method ?? '',
          path: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        };
        this.requests.push(recorded);
        const responder =
          this.#queue.shift() ??
          ((_req, r) => sendJson(r, 500, { error: { type: 'server_error', code: 'no_responder' } }));
        responder(recorded, res);
      });
    });
  }

  static async start(): Promise<FakeChatServer> {
    const fake = new FakeChatServer();
    await new Promise<void>((resolve) => fake.#server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  /** The API root to configure as `baseUrl`. */
  get baseUrl(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/v1`;
  }

  /** Queues the answers to the next requests, in order. */
  respond(...responders: Responder[]): void {
    this.#queue.push(...responders);
  }

  /** Forgets recorded requests and unused responders, so one failing test cannot shift the next one's answers. */
  reset(): void {
    this.requests.length = 0;
    this.#queue.length = 0;
  }

  /** The JSON body of the last request. */
  lastBody(): unknown {
    const last = this.requests.at(-1);
    if (last === undefined) throw new Error('no request received');
    return JSON.parse(last.body);
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

/** Sends `body` as JSON with an exact Content-Length. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const bytes = Buffer.from(JSON.stringify(body), 'utf8');
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(bytes.byteLength), ...headers });
  res.end(bytes);
}

/** A responder answering with `body` as JSON. */
export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Responder {
  return (_req, res) => sendJson(res, status, body, headers);
}

/** A tool call as the provider sends it. */
export interface WireCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
}

/**
 * A Chat Completions response. Typed as the official `openai` SDK's `ChatCompletion`, so the fixtures the client is
 * tested against are the shape the real API documents.
 */
export function completion(options: {
  content?: string | null;
  calls?: readonly WireCall[];
  finishReason?: ChatCompletion.Choice['finish_reason'];
  refusal?: string | null;
  id?: string;
}): ChatCompletion {
  const calls = options.calls ?? [];
  return {
    id: options.id ?? 'chatcmpl-fake-1',
    object: 'chat.completion',
    created: 1_764_500_000,
    model: 'fake-model-1',
    system_fingerprint: 'fp_fake',
    choices: [
      {
        index: 0,
        logprobs: null,
        finish_reason: options.finishReason ?? (calls.length > 0 ? 'tool_calls' : 'stop'),
        message: {
          role: 'assistant',
          content: options.content === undefined ? null : options.content,
          refusal: options.refusal ?? null,
          annotations: [],
          ...(calls.length > 0
            ? {
                tool_calls: calls.map((call) => ({
                  id: call.id,
                  type: 'function' as const,
                  function: { name: call.name, arguments: call.arguments },
                })),
              }
            : {}),
        },
      },
    ],
    usage: { prompt_tokens: 120, completion_tokens: 30, total_tokens: 150 },
  };
}
