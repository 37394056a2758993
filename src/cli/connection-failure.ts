import { CliError, EXIT_CODES, type ExitCode } from './cli-error.js';
import { probeTemporalEndpoint, type ProbeFinding, type TlsProblem } from './connection-probe.js';
import type { TemporalProfile } from './temporal-profile.js';

/** gRPC status codes the connection classes are told by (grpc/status.proto). */
const GRPC = {
  deadlineExceeded: 4,
  notFound: 5,
  permissionDenied: 7,
  unimplemented: 12,
  unavailable: 14,
  unauthenticated: 16,
} as const;
const GRPC_NAMES: Readonly<Record<number, string>> = {
  4: 'DEADLINE_EXCEEDED',
  5: 'NOT_FOUND',
  7: 'PERMISSION_DENIED',
  12: 'UNIMPLEMENTED',
  14: 'UNAVAILABLE',
  16: 'UNAUTHENTICATED',
};

/** Why a command could not use the Temporal server, each with its exit code and its own hint. */
export type ConnectionFailure =
  | { readonly kind: 'unreachable'; readonly reason: string }
  | { readonly kind: 'tls'; readonly problem: TlsProblem; readonly reason: string }
  | { readonly kind: 'wrong_service'; readonly reason: string }
  | { readonly kind: 'credentials'; readonly reason: string }
  | { readonly kind: 'namespace'; readonly reason: string };

const EXIT_CODE_OF: Readonly<Record<ConnectionFailure['kind'], ExitCode>> = {
  unreachable: EXIT_CODES.unavailable,
  tls: EXIT_CODES.tlsFailed,
  wrong_service: EXIT_CODES.wrongService,
  credentials: EXIT_CODES.credentialsRejected,
  namespace: EXIT_CODES.namespaceNotFound,
};

/** A gRPC status carried by an error or one of its causes (the client wraps grpc-js errors in a ServiceError). */
export function grpcStatusOf(error: unknown): { readonly code: number; readonly message: string } | null {
  for (let current = error, depth = 0; typeof current === 'object' && current !== null && depth < 8; depth += 1) {
    const { code, details, message } = current as { code?: unknown; details?: unknown; message?: unknown };
    if (typeof code === 'number' && Number.isInteger(code) && code > 0 && code <= 16) {
      return {
        code,
        message: typeof details === 'string' && details !== '' ? details : typeof message === 'string' ? message : '',
      };
    }
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}

/** The failure a gRPC status means for any call to the server, or `null` when it is not about the connection. */
export function failureOfStatus(status: { readonly code: number; readonly message: string }): ConnectionFailure | null {
  const reason = `${GRPC_NAMES[status.code] ?? `gRPC status ${status.code}`}: ${status.message}`;
  switch (status.code) {
    case GRPC.unauthenticated:
    case GRPC.permissionDenied:
      return { kind: 'credentials', reason };
    case GRPC.unavailable:
    case GRPC.deadlineExceeded:
      return { kind: 'unreachable', reason };
    case GRPC.unimplemented:
      return { kind: 'wrong_service', reason: `it does not serve Temporal's WorkflowService (${reason})` };
    default:
      return null;
  }
}

/**
 * Why connecting (or checking the namespace) failed: from the gRPC status when the SDK's error carries one, else from
 * a probe of the address (the SDK's transport errors — "Failed to connect before the deadline", a TLS error as
 * text — do not say which step failed). NOT_FOUND from the namespace check is a missing namespace.
 */
export async function diagnoseConnectionFailure(
  target: TemporalProfile,
  error: unknown,
  during: 'connect' | 'namespace',
): Promise<ConnectionFailure> {
  const status = grpcStatusOf(error);
  if (status !== null) {
    if (during === 'namespace' && status.code === GRPC.notFound) return { kind: 'namespace', reason: status.message };
    const failure = failureOfStatus(status);
    if (failure !== null) return failure;
  }
  const found = failureOfProbe(await probeTemporalEndpoint(target.connection));
  return found ?? { kind: 'unreachable', reason: error instanceof Error ? error.message : String(error) };
}

function failureOfProbe(finding: ProbeFinding): ConnectionFailure | null {
  switch (finding.step) {
    case 'tcp':
      return { kind: 'unreachable', reason: finding.reason };
    case 'tls':
      return { kind: 'tls', problem: finding.problem, reason: finding.reason };
    case 'protocol':
      return { kind: 'wrong_service', reason: finding.reason };
    case 'grpc':
      return failureOfStatus(finding);
  }
}

/** The hint for each cause: what to set or check, never advice that belongs to another cause. */
function hintFor(failure: ConnectionFailure, target: TemporalProfile): string {
  switch (failure.kind) {
    case 'unreachable':
      return isLoopback(target.address)
        ? "check TEMPORAL_ADDRESS or the profile's address (--profile), or start a local server with the `dev` command"
        : "check TEMPORAL_ADDRESS or the profile's address (--profile), and that the server is up and reachable from here";
    case 'tls':
      return TLS_HINTS[failure.problem];
    case 'wrong_service':
      return "check the host and port in TEMPORAL_ADDRESS or the profile's address (--profile): it must be the Temporal frontend's gRPC port (7233 by default), not the Web UI, the HTTP API or another service";
    case 'credentials':
      return `check the API key (TEMPORAL_API_KEY or the profile's api_key) or the client certificate (TEMPORAL_TLS_CLIENT_CERT_PATH / _KEY_PATH), and that it grants access to namespace '${target.namespace}'`;
    case 'namespace':
      return `set TEMPORAL_NAMESPACE or the profile's namespace, or create it (\`temporal operator namespace create --namespace ${target.namespace}\`)`;
  }
}

const TLS_HINTS: Readonly<Record<TlsProblem, string>> = {
  untrusted_certificate:
    "give the CA that issued the server's certificate (TEMPORAL_TLS_SERVER_CA_CERT_PATH or the profile's tls.server_ca_cert_path) and, if the certificate names another host, that name (TEMPORAL_TLS_SERVER_NAME)",
  refused_by_server:
    "the server refused the TLS handshake: it may require a client certificate it trusts (TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH, or the profile's tls.client_cert_path and client_key_path)",
  server_without_tls:
    'the server does not speak TLS on this port: turn TLS off (TEMPORAL_TLS=false; an API key turns it on) or check the port',
  server_requires_tls: 'the server speaks TLS: turn it on (TEMPORAL_TLS=true, or a [profile.<name>.tls] section)',
};

function summaryOf(failure: ConnectionFailure, target: TemporalProfile): string {
  switch (failure.kind) {
    case 'unreachable':
      return `cannot reach the Temporal server at ${target.address}`;
    case 'tls':
      return `TLS with the Temporal server at ${target.address} failed`;
    case 'wrong_service':
      return `${target.address} is not a Temporal server`;
    case 'credentials':
      return `the Temporal server at ${target.address} rejected the credentials`;
    case 'namespace':
      return `namespace '${target.namespace}' does not exist on ${target.address}`;
  }
}

function isLoopback(address: string): boolean {
  return /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?$/.test(address);
}

/** The longest server reason the CLI prints: a server's message is its own text, of any length. */
const MAX_REASON_CHARS = 300;

/**
 * What the server (or the system) said, fit for a terminal: control characters (an escape sequence from a hostile
 * server would drive the operator's terminal) shown as `?`, and cut to {@link MAX_REASON_CHARS}.
 */
function printableReason(reason: string): string {
  const printable = reason
    // eslint-disable-next-line no-control-regex -- the control characters are what is replaced
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, '?')
    .trim()
    .replace(/\.$/, '');
  return printable.length > MAX_REASON_CHARS ? `${printable.slice(0, MAX_REASON_CHARS - 1)}…` : printable;
}

/** The CLI error of a connection failure: what failed, where, the server's (or the system's) reason, and the hint. */
export function connectionError(target: TemporalProfile, failure: ConnectionFailure, cause: unknown): CliError {
  const reason = printableReason(failure.reason);
  return new CliError(
    `${summaryOf(failure, target)}: ${reason}; ${hintFor(failure, target)}`,
    EXIT_CODE_OF[failure.kind],
    { cause },
  );
}

/**
 * The CLI error of a call on an established connection that failed for a connection reason — the server went away,
 * or refused the credentials for this call — or `null` when the error is about something else.
 */
export function callFailureError(target: TemporalProfile, error: unknown): CliError | null {
  const status = grpcStatusOf(error);
  const failure = status === null ? null : failureOfStatus(status);
  return failure === null || failure.kind === 'wrong_service' ? null : connectionError(target, failure, error);
}
