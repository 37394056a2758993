import { connect as http2Connect } from 'node:http2';
import { connect as netConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { SecureClientSessionOptions } from 'node:http2';
import type { TemporalConnectionOptions } from './temporal-profile.js';

/** Temporal's gRPC frontend port, which the SDK adds to an address without one. */
const DEFAULT_GRPC_PORT = 7233;
/** The probe gives up after this long, whatever step it is at. */
const PROBE_TIMEOUT_MS = 5_000;
/** The cheapest call of Temporal's frontend: it names no namespace, so only the service and the credentials count. */
const PROBE_METHOD = '/temporal.api.workflowservice.v1.WorkflowService/GetSystemInfo';
/** HTTP/2's connection preface and an empty SETTINGS frame: what a gRPC client sends first. */
const HTTP2_PREFACE = Buffer.concat([
  Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1'),
  Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0]),
]);

/** What the address did when asked as a Temporal client asks, step by step. */
export type ProbeFinding =
  | { readonly step: 'tcp'; readonly reason: string }
  | { readonly step: 'tls'; readonly problem: TlsProblem; readonly reason: string }
  | { readonly step: 'protocol'; readonly reason: string }
  | { readonly step: 'grpc'; readonly code: number; readonly message: string };

/** Why TLS failed: the server's certificate, the server's own refusal, or TLS on one side only. */
export type TlsProblem = 'untrusted_certificate' | 'refused_by_server' | 'server_without_tls' | 'server_requires_tls';

/**
 * Asks the address what a Temporal client would, one step at a time — TCP, TLS when the profile turns it on (an API
 * key does, as in the SDK), HTTP/2, then Temporal's GetSystemInfo call with the profile's credentials — and returns
 * the first step that failed, or the call's gRPC status. Run only after the SDK failed to connect without saying why
 * (its transport errors carry no status), so the operator learns the cause; never instead of the SDK.
 */
export async function probeTemporalEndpoint(
  connection: TemporalConnectionOptions,
  timeoutMs = PROBE_TIMEOUT_MS,
): Promise<ProbeFinding> {
  const { host, port } = hostAndPort(connection.address);
  const deadline = Date.now() + timeoutMs;
  const tcp = await tcpConnect(host, port, deadline);
  if (typeof tcp === 'string') return { step: 'tcp', reason: tcp };
  const tls = tlsOptions(connection, host);
  if (tls === null) {
    const sniffed = await sniffPlaintext(tcp, deadline);
    if (sniffed.speaks === 'tls')
      return { step: 'tls', problem: 'server_requires_tls', reason: 'it answered the HTTP/2 preface with a TLS alert' };
    if (sniffed.speaks === 'other') {
      // A TLS server may drop plaintext without a word: ask it for a TLS handshake before calling it another service.
      if (await completesTlsHandshake(host, port, deadline))
        return {
          step: 'tls',
          problem: 'server_requires_tls',
          reason: `${sniffed.reason}, and it completes a TLS handshake`,
        };
      return { step: 'protocol', reason: sniffed.reason };
    }
  } else {
    tcp.destroy();
  }
  return callGetSystemInfo(host, port, connection, tls, deadline);
}

/** `host:port` (or `[v6]:port`, or a host alone) as the SDK reads it. */
export function hostAndPort(address: string): { readonly host: string; readonly port: number } {
  const match = /^\[([^\]]+)\](?::(\d+))?$/.exec(address) ?? /^([^:]+)(?::(\d+))?$/.exec(address);
  if (match === null) return { host: address, port: DEFAULT_GRPC_PORT };
  return { host: match[1] ?? address, port: match[2] === undefined ? DEFAULT_GRPC_PORT : Number(match[2]) };
}

/** The TLS options of the profile as Node's TLS takes them, or `null` for a plaintext connection. */
function tlsOptions(connection: TemporalConnectionOptions, host: string): SecureClientSessionOptions | null {
  const tls = connection.tls ?? (connection.apiKey === undefined ? undefined : true);
  if (tls === undefined || tls === null || tls === false) return null;
  const config = tls === true ? {} : tls;
  const servername = config.serverNameOverride ?? (isIP(host) === 0 ? host : undefined);
  return {
    ALPNProtocols: ['h2'],
    ...(servername === undefined ? {} : { servername }),
    ...(config.serverRootCACertificate === undefined ? {} : { ca: Buffer.from(config.serverRootCACertificate) }),
    ...(config.clientCertPair === undefined
      ? {}
      : { cert: Buffer.from(config.clientCertPair.crt), key: Buffer.from(config.clientCertPair.key) }),
  };
}

function remaining(deadline: number): number {
  return Math.max(1, deadline - Date.now());
}

/** A TCP connection, or why there is none (the system's error code and text). */
function tcpConnect(host: string, port: number, deadline: number): Promise<Socket | string> {
  return new Promise((resolve) => {
    const socket = netConnect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(`no TCP connection within ${PROBE_TIMEOUT_MS / 1000} s`);
    }, remaining(deadline));
    socket.once('connect', () => {
      clearTimeout(timer);
      resolve(socket);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve(describeError(error));
    });
  });
}

/** What a server answered to a gRPC client's first bytes. */
type Sniffed = { readonly speaks: 'http2' | 'tls' } | { readonly speaks: 'other'; readonly reason: string };

/**
 * Sends a gRPC client's first bytes over a plaintext connection and reads the server's first answer: an HTTP/2
 * server sends a SETTINGS frame, a TLS server an alert record, a web server an HTTP/1 status line.
 */
function sniffPlaintext(socket: Socket, deadline: number): Promise<Sniffed> {
  return new Promise((resolve) => {
    const done = (answer: Sniffed) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const other = (reason: string) => done({ speaks: 'other', reason });
    const timer = setTimeout(
      () => other('it accepted the connection but answered nothing to HTTP/2'),
      remaining(deadline),
    );
    socket.once('data', (chunk: Buffer) => {
      // A TLS record starts with its content type: 0x15 alert, 0x16 handshake.
      if (chunk[0] === 0x15 || chunk[0] === 0x16) return done({ speaks: 'tls' });
      // An HTTP/2 frame header: 3 bytes of length, then the type; a server's first frame is SETTINGS (4).
      if (chunk.length >= 9 && chunk[3] === 4) return done({ speaks: 'http2' });
      const text = chunk.toString('latin1');
      const statusLine = /^HTTP\/1\.[01] \d{3}[^\r\n]*/.exec(text)?.[0];
      other(
        statusLine === undefined
          ? `it does not speak HTTP/2 (it answered ${JSON.stringify(text.slice(0, 40))})`
          : `it speaks HTTP/1, not gRPC over HTTP/2 (it answered "${statusLine}")`,
      );
    });
    socket.once('end', () => other('it closed the connection at the HTTP/2 preface'));
    socket.on('error', (error: NodeJS.ErrnoException) =>
      other(`it reset the connection at the HTTP/2 preface (${error.code ?? error.message})`),
    );
    socket.write(HTTP2_PREFACE);
  });
}

/** Whether the address completes a TLS handshake (its certificate unchecked: only whether it speaks TLS is asked). */
function completesTlsHandshake(host: string, port: number, deadline: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tlsConnect({
      host,
      port,
      rejectUnauthorized: false,
      ALPNProtocols: ['h2'],
      ...(isIP(host) === 0 ? { servername: host } : {}),
    });
    const done = (speaksTls: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(speaksTls);
    };
    const timer = setTimeout(() => done(false), remaining(deadline));
    socket.once('secureConnect', () => done(true));
    socket.on('error', () => done(false));
  });
}

/** Calls GetSystemInfo with the profile's API key and metadata, as the SDK does; classifies what happened. */
function callGetSystemInfo(
  host: string,
  port: number,
  connection: TemporalConnectionOptions,
  tls: SecureClientSessionOptions | null,
  deadline: number,
): Promise<ProbeFinding> {
  return new Promise((resolve) => {
    const authority = `${tls === null ? 'http' : 'https'}://${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
    const session = http2Connect(authority, tls ?? {});
    const done = (finding: ProbeFinding) => {
      clearTimeout(timer);
      session.destroy();
      resolve(finding);
    };
    const timer = setTimeout(
      () => done({ step: 'protocol', reason: `no answer to a gRPC call within ${PROBE_TIMEOUT_MS / 1000} s` }),
      remaining(deadline),
    );
    session.on('error', (error: NodeJS.ErrnoException) =>
      done(tls === null ? { step: 'protocol', reason: describeError(error) } : tlsFinding(error)),
    );
    const headers: Record<string, string> = {
      ':method': 'POST',
      ':path': PROBE_METHOD,
      'content-type': 'application/grpc',
      te: 'trailers',
      ...metadataHeaders(connection.metadata),
      ...(connection.apiKey === undefined ? {} : { authorization: `Bearer ${connection.apiKey}` }),
    };
    const request = session.request(headers);
    let status: { code: number; message: string } | null = null;
    const statusFrom = (fields: Record<string, unknown>) => {
      const code = fields['grpc-status'];
      if (code !== undefined) status = { code: Number(code), message: decodeGrpcMessage(fields['grpc-message']) };
    };
    request.once('response', (fields) => {
      const contentType = String(fields['content-type'] ?? '');
      if (!contentType.startsWith('application/grpc')) {
        return done({
          step: 'protocol',
          reason: `it answers HTTP/2 but not gRPC (HTTP ${String(fields[':status'])}${contentType === '' ? '' : `, ${contentType}`})`,
        });
      }
      statusFrom(fields);
    });
    request.once('trailers', statusFrom);
    request.on('data', () => undefined);
    request.once('end', () =>
      done(
        status === null
          ? { step: 'protocol', reason: 'it answered the gRPC call without a status' }
          : { step: 'grpc', ...status },
      ),
    );
    request.on('error', (error: NodeJS.ErrnoException) =>
      done(tls === null ? { step: 'protocol', reason: describeError(error) } : tlsFinding(error)),
    );
    // An empty GetSystemInfoRequest: one uncompressed message of zero bytes.
    request.end(Buffer.alloc(5));
  });
}

/** A TLS-side failure: the certificate check, an alert from the server (it refused us), or no TLS at the other end. */
function tlsFinding(failure: NodeJS.ErrnoException): ProbeFinding {
  // HTTP/2 reports a failed handshake as its stream's or session's error, caused by the TLS one.
  const error = innermostCause(failure);
  const code = error.code ?? '';
  const reason = describeError(error);
  if (CERTIFICATE_CODES.has(code) || code.startsWith('ERR_TLS_CERT'))
    return { step: 'tls', problem: 'untrusted_certificate', reason };
  if (/ALERT/.test(code) || /alert/i.test(error.message)) return { step: 'tls', problem: 'refused_by_server', reason };
  if (/WRONG_VERSION_NUMBER|PACKET_LENGTH_TOO_LONG|RECORD_LAYER_FAILURE|HTTP_REQUEST/.test(code))
    return { step: 'tls', problem: 'server_without_tls', reason };
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EHOSTUNREACH' || code === 'ETIMEDOUT')
    return { step: 'tcp', reason };
  // TLS held, but HTTP/2 did not follow (no h2 by ALPN, a broken frame): a TLS server of another kind.
  if (code.startsWith('ERR_HTTP2'))
    return { step: 'protocol', reason: `it completes TLS but not gRPC over HTTP/2 (${reason})` };
  return { step: 'tls', problem: 'refused_by_server', reason };
}

/** OpenSSL's verification results for a certificate the client does not trust. */
const CERTIFICATE_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE',
  'INVALID_CA',
]);

function innermostCause(error: NodeJS.ErrnoException): NodeJS.ErrnoException {
  let current = error;
  for (let depth = 0; current.cause instanceof Error && depth < 8; depth += 1) current = current.cause;
  return current;
}

function describeError(error: NodeJS.ErrnoException): string {
  return error.code === undefined || error.message.includes(error.code)
    ? error.message
    : `${error.message} (${error.code})`;
}

/** gRPC metadata as HTTP/2 headers (lower-case names; binary `-bin` values are sent base64, as gRPC does). */
function metadataHeaders(metadata: TemporalConnectionOptions['metadata']): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(metadata ?? {}))
    headers[name.toLowerCase()] = typeof value === 'string' ? value : Buffer.from(value).toString('base64');
  return headers;
}

/** `grpc-message` is percent-encoded on the wire. */
function decodeGrpcMessage(value: unknown): string {
  if (typeof value !== 'string') return '';
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
