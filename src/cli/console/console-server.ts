import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { allowedHostValues, hasAllowedHost } from '../../net/endpoint-access.js';
import type { DecideInput } from '../approve.js';
import { CliError, EXIT_CODES } from '../cli-error.js';
import { maskCredentials } from '../mask-credentials.js';
import type { ResolveInput } from '../resolve.js';
import type { ConsoleBackend } from './console-backend.js';
import { csrfGuard, isSessionId, type CsrfGuard } from './csrf.js';
import type { Html } from './html.js';
import { callPage, CONSOLE_CSS, inboxPage, messagePage, type PageContext } from './pages.js';

/**
 * Who the operator is: a name given to the console (it runs on the operator's own machine), or — behind the team's
 * identity-aware proxy — the value of a header that proxy sets on every request (and strips from what clients send).
 */
export type OperatorIdentity =
  { readonly kind: 'local'; readonly name: string } | { readonly kind: 'proxy-header'; readonly header: string };

/** How the console is reached and what it links to. */
export interface ConsoleServerOptions {
  readonly operator: OperatorIdentity;
  /** The address it listens on (for the Host names it answers). */
  readonly listenHost: string;
  /** `Host` names accepted besides the listening address and the loopback names (a reverse proxy's). */
  readonly allowedHosts: readonly string[];
  readonly temporalUi: PageContext['temporalUi'];
  /** Where unexpected failures are logged (never shown in a page). */
  readonly log: (line: string) => void;
  /** Mark the session cookie `Secure` (behind an HTTPS proxy). */
  readonly secureCookie?: boolean;
}

const SESSION_COOKIE = 'ttc_console_session';
/** A form is a few fields; anything larger is not one of ours. */
const MAX_FORM_BYTES = 64 * 1024;
const SHA256_HEX = /^[0-9a-f]{64}$/;
/** Longest operator identity taken from a proxy header. */
const MAX_OPERATOR_LENGTH = 256;

/**
 * No script, no frames, nothing from elsewhere: the page is static markup and its own stylesheet. The referrer goes to
 * the console only (`same-origin`): with `no-referrer` a browser sends `Origin: null` on the console's own forms.
 */
const SECURITY_HEADERS = {
  'Content-Security-Policy':
    "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'same-origin',
  'Cache-Control': 'no-store',
} as const;

/** A refusal the console answers with a page (status and what it says). */
class Refusal extends Error {
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/**
 * The operator console over HTTP. Before anything else it refuses a `Host` that is not its own (403: a DNS-rebinding
 * page), an `Origin` that is not its own (403; a POST must carry one), and — behind a proxy — a request without the
 * operator header (401). Forms are accepted only with the session's CSRF token. Every decision goes through the
 * backend, which signs as the operator exactly as the CLI does.
 */
export function createConsoleServer(
  backend: ConsoleBackend,
  options: ConsoleServerOptions,
  csrf: CsrfGuard = csrfGuard(),
): Server {
  let hosts: ReadonlySet<string> | undefined;
  const server = createServer((request, response) => {
    hosts ??= allowedHostValues(options.listenHost, (server.address() as AddressInfo).port, options.allowedHosts);
    void handle(request, response, hosts).catch((error: unknown) => {
      options.log(
        `console: unexpected failure: ${maskCredentials(error instanceof Error ? error.message : String(error))}`,
      );
      if (!response.headersSent)
        send(
          response,
          500,
          messagePage('Unexpected failure', 'The console could not answer; see its log.', { operator: '' }),
        );
    });
  });

  async function handle(
    request: IncomingMessage,
    response: ServerResponse,
    allowed: ReadonlySet<string>,
  ): Promise<void> {
    if (!hasAllowedHost(request, allowed)) return sendText(response, 403, 'Host not allowed');
    const origin = request.headers.origin;
    if (origin !== undefined && !isOwnOrigin(origin, allowed)) return sendText(response, 403, 'Origin not allowed');
    const operator = operatorOf(request, options.operator);
    if (operator === null)
      return sendText(
        response,
        401,
        `the console expects the operator's identity in ${options.operator.kind === 'proxy-header' ? options.operator.header : 'a header'}`,
      );
    const cookie = sessionCookie(request);
    const session = cookie ?? csrf.newSession();
    if (cookie === undefined)
      response.setHeader(
        'Set-Cookie',
        `${SESSION_COOKIE}=${session}; Path=/; HttpOnly; SameSite=Strict${options.secureCookie === true ? '; Secure' : ''}`,
      );
    const ctx: PageContext = { operator, csrfToken: csrf.tokenFor(session), temporalUi: options.temporalUi };
    const url = new URL(request.url ?? '/', 'http://console.invalid');
    try {
      if (request.method === 'GET' || request.method === 'HEAD') {
        if (url.pathname === '/console.css')
          return void response
            .writeHead(200, { ...SECURITY_HEADERS, 'Content-Type': 'text/css; charset=utf-8' })
            .end(CONSOLE_CSS);
        if (url.pathname === '/') return send(response, 200, inboxPage(await backend.inbox(), ctx));
        if (url.pathname === '/call')
          return send(response, 200, callPage(await backend.call(callFilter(url.searchParams)), ctx));
        throw new Refusal(404, `no page at ${url.pathname}`);
      }
      if (request.method !== 'POST') throw new Refusal(405, 'GET pages, POST forms');
      if (url.pathname !== '/decide' && url.pathname !== '/resolve')
        throw new Refusal(404, `no form posts to ${url.pathname}`);
      // A form from a page of the console carries its Origin (every current browser sends it on a POST).
      if (origin === undefined) throw new Refusal(403, 'a form must come from a console page (no Origin header)');
      const form = await readForm(request);
      if (!csrf.verify(cookie, form.get('csrf') ?? undefined))
        throw new Refusal(
          403,
          'This form is not from your current console session: reload the page and try again. Nothing was decided.',
        );
      if (url.pathname === '/decide') {
        const input = decideInput(form, operator);
        const done = await backend.decide(input);
        const verb = done.decision === 'approve' ? 'Approved' : 'Rejected';
        return send(
          response,
          200,
          messagePage(
            verb,
            `${verb} call ${done.callId} of workflow ${done.workflowId} as ${operator} (decision ${done.recorded.decision_id}).`,
            ctx,
          ),
        );
      }
      const input = resolveInput(form, operator);
      const done = await backend.resolve(input);
      return send(
        response,
        200,
        messagePage(
          'Resolved',
          `Resolved ${done.idempotencyKey} as ${done.outcome.replace('_', ' ')} (${operator}, decision ${done.recorded.decision_id}).`,
          ctx,
        ),
      );
    } catch (error) {
      const refusal = asRefusal(error);
      if (refusal === null) throw error;
      const title =
        refusal.status === 409 ? 'Nothing was decided' : request.method === 'POST' ? 'Refused' : 'Cannot show this';
      return send(response, refusal.status, messagePage(title, refusal.message, ctx));
    }
  }
  return server;
}

/** The operator of a request, or `null` when the proxy's header is missing or unusable. */
function operatorOf(request: IncomingMessage, identity: OperatorIdentity): string | null {
  if (identity.kind === 'local') return identity.name;
  const value = request.headers[identity.header.toLowerCase()];
  if (typeof value !== 'string') return null;
  const name = value.trim();
  // eslint-disable-next-line no-control-regex
  return name === '' || name.length > MAX_OPERATOR_LENGTH || /[\u0000-\u001f\u007f]/.test(name) ? null : name;
}

/** An Origin names this console when it is http(s) on one of the Host values it answers. */
function isOwnOrigin(origin: string, allowed: ReadonlySet<string>): boolean {
  try {
    const url = new URL(origin);
    return (
      (url.protocol === 'http:' || url.protocol === 'https:') &&
      url.origin === origin &&
      allowed.has(url.host.toLowerCase())
    );
  } catch {
    return false;
  }
}

function sessionCookie(request: IncomingMessage): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [name, value] = part.trim().split('=', 2);
    if (name === SESSION_COOKIE && value !== undefined && isSessionId(value)) return value;
  }
  return undefined;
}

async function readForm(request: IncomingMessage): Promise<URLSearchParams> {
  if (!(request.headers['content-type'] ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded'))
    throw new Refusal(415, 'a form is sent as application/x-www-form-urlencoded');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).byteLength;
    if (size > MAX_FORM_BYTES) throw new Refusal(413, `a form is at most ${MAX_FORM_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

function field(form: URLSearchParams, name: string): string {
  const value = form.get(name)?.trim() ?? '';
  if (value === '') throw new Refusal(400, `the form has no ${name}`);
  return value;
}

function optionalField(form: URLSearchParams, name: string): string | undefined {
  const value = form.get(name)?.trim() ?? '';
  return value === '' ? undefined : value;
}

function decideInput(form: URLSearchParams, approver: string): DecideInput {
  const decision = form.get('decision');
  if (decision !== 'approve' && decision !== 'reject') throw new Refusal(400, 'the decision is approve or reject');
  const requestSha256 = field(form, 'requestSha256');
  if (!SHA256_HEX.test(requestSha256))
    throw new Refusal(400, "the request digest is the request's SHA-256 (64 lower-case hex digits)");
  const reason = optionalField(form, 'reason');
  return {
    workflowId: field(form, 'workflowId'),
    callId: field(form, 'callId'),
    requestSha256,
    decision,
    approver,
    ...(reason === undefined ? {} : { reason }),
  };
}

function resolveInput(form: URLSearchParams, resolvedBy: string): ResolveInput {
  const note = optionalField(form, 'note');
  const base = { idempotencyKey: field(form, 'idempotencyKey'), resolvedBy, ...(note === undefined ? {} : { note }) };
  const outcome = form.get('outcome');
  if (outcome === 'not_committed') return { ...base, outcome };
  if (outcome !== 'committed') throw new Refusal(400, 'choose committed or not committed');
  const externalId = optionalField(form, 'externalId');
  if (externalId === undefined) throw new Refusal(400, 'a committed write needs the external id the provider gave it');
  return { ...base, outcome, externalId };
}

function callFilter(params: URLSearchParams): { readonly workflowId: string; readonly callId?: string } {
  const workflowId = params.get('workflowId') ?? '';
  if (workflowId === '') throw new Refusal(400, 'which workflow? (?workflowId=...)');
  const callId = params.get('callId') ?? '';
  return callId === '' ? { workflowId } : { workflowId, callId };
}

/** A refusal to show, from the console's own checks or a CLI refusal (its message is written for the operator). */
function asRefusal(error: unknown): Refusal | null {
  if (error instanceof Refusal) return error;
  if (!(error instanceof CliError)) return null;
  const status =
    error.exitCode === EXIT_CODES.refused
      ? 409
      : error.exitCode === EXIT_CODES.notFound
        ? 404
        : error.exitCode === EXIT_CODES.usage
          ? 400
          : 502;
  return new Refusal(status, maskCredentials(error.message));
}

function send(response: ServerResponse, status: number, page: Html): void {
  response.writeHead(status, { ...SECURITY_HEADERS, 'Content-Type': 'text/html; charset=utf-8' }).end(page.text);
}

function sendText(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, { ...SECURITY_HEADERS, 'Content-Type': 'text/plain; charset=utf-8' }).end(text);
}
