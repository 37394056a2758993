import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import {
  createSecureServer,
  createServer as createHttp2Server,
  type Http2SecureServer,
  type Http2Server,
  type ServerHttp2Stream,
} from 'node:http2';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { EXIT_CODES } from '../../src/cli/cli-error.js';
import { freePort } from '../../src/testing/free-port.js';
import { runCli } from '../support/cli-process.js';
import { issueTestPki } from '../support/tls-proxy.js';
import { startTestTemporal, type TestTemporal } from '../../testkit/temporal-server.js';

// Every command that connects to Temporal, pointed at local stand-ins for what an operator meets: nothing listening,
// a web server, a gRPC server that refuses the API key or serves something else, a TLS server whose certificate the
// client does not trust, a server that wants TLS from a client without it, and a real dev server without the
// namespace. Each cause has its own exit code, and the message names the address, the server's reason and a hint
// that fits that cause (no "start a local server" for a refused key).

/** A stand-in endpoint on loopback. */
interface Endpoint {
  readonly address: string;
  close(): Promise<void>;
}

async function listening(server: Server | Http2Server | Http2SecureServer): Promise<Endpoint> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    address: `127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        if ('closeAllConnections' in server) server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** gRPC's percent-encoding of `grpc-message`: only `%` and bytes outside printable ASCII. */
function grpcMessage(text: string): string {
  return [...Buffer.from(text, 'utf8')]
    .map((byte) =>
      byte < 0x20 || byte > 0x7e || byte === 0x25
        ? `%${byte.toString(16).toUpperCase().padStart(2, '0')}`
        : String.fromCharCode(byte),
    )
    .join('');
}

/** Answers every gRPC call with this status at once (a trailers-only response, as gRPC servers send errors). */
function grpcAnswer(code: number, message: string): (stream: ServerHttp2Stream) => void {
  return (stream) => {
    stream.on('data', () => undefined);
    stream.on('error', () => undefined);
    stream.respond(
      {
        ':status': 200,
        'content-type': 'application/grpc',
        'grpc-status': String(code),
        'grpc-message': grpcMessage(message),
      },
      { endStream: true },
    );
  };
}

/** A gRPC server on loopback (plaintext HTTP/2) that answers every call with `code`. */
function grpcServer(code: number, message: string): Promise<Endpoint> {
  const server = createHttp2Server();
  server.on('stream', grpcAnswer(code, message));
  server.on('sessionError', () => undefined);
  return listening(server);
}

const API_KEY_REFUSAL = 'API key invalid (fake server)';
const ROLE_REFUSAL = 'Request unauthorized: caller lacks namespace access (fake server)';
/** A hostile server's reason may carry terminal escape sequences (here: retitle the window, clear the screen). */
const TERMINAL_ESCAPES = '\u001b]0;owned\u0007\u001b[2J';
const OTHER_SERVICE = 'unknown service temporal.api.workflowservice.v1.WorkflowService';

let temporal: TestTemporal;
let folder: string;
const endpoints: Endpoint[] = [];
let closedPort: string;
let webServer: Endpoint;
let unauthenticated: Endpoint;
let permissionDenied: Endpoint;
let otherGrpcService: Endpoint;
let untrustedTls: Endpoint;

before(
  async () => {
    temporal = await startTestTemporal();
    folder = mkdtempSync(join(tmpdir(), 'ttc-cli-connection-'));
    // Issued by a CA the client is never given: the server's certificate is untrusted.
    const pki = issueTestPki(folder);
    closedPort = `127.0.0.1:${await freePort()}`;
    const web = createHttpServer((_request, response) =>
      response.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>'),
    );
    webServer = await listening(web);
    unauthenticated = await grpcServer(16, API_KEY_REFUSAL);
    permissionDenied = await grpcServer(7, `${ROLE_REFUSAL}${TERMINAL_ESCAPES}`);
    otherGrpcService = await grpcServer(12, OTHER_SERVICE);
    const tls = createSecureServer({ key: readFileSync(pki.serverKey), cert: readFileSync(pki.serverCert) });
    tls.on('stream', grpcAnswer(0, ''));
    tls.on('tlsClientError', () => undefined);
    untrustedTls = await listening(tls);
    endpoints.push(webServer, unauthenticated, permissionDenied, otherGrpcService, untrustedTls);
  },
  { timeout: 180_000 },
);

after(
  async () => {
    for (const endpoint of endpoints) await endpoint.close();
    await temporal?.stop();
    if (folder !== undefined) rmSync(folder, { recursive: true, force: true });
  },
  { timeout: 60_000 },
);

/** Every command that connects to Temporal, as an operator types it (arguments valid, so only the connection fails). */
const COMMANDS: readonly (readonly string[])[] = [
  ['pending'],
  ['approve', 'wf-1', 'call-1', '--digest', 'a'.repeat(64), '--approver', 'alice'],
  ['reject', 'wf-1', 'call-1', '--digest', 'a'.repeat(64), '--approver', 'alice'],
  ['resolve', 'tool:key-1', '--not-committed', '--resolver', 'alice'],
  ['worker'],
  ['demo', '--exit'],
  ['mcp', '--tools', 'test/support/cli-worker-tools.ts', '--task-queue', 'q'],
];

/** The connection settings of a case: only TEMPORAL_* of its own, no profile. */
function temporalEnv(settings: Record<string, string>): Record<string, string | undefined> {
  return {
    TEMPORAL_ADDRESS: undefined,
    TEMPORAL_NAMESPACE: undefined,
    TEMPORAL_API_KEY: undefined,
    TEMPORAL_TLS: undefined,
    TEMPORAL_PROFILE: undefined,
    TEMPORAL_CONFIG_FILE: undefined,
    ...settings,
  };
}

/**
 * Runs every command against one endpoint, all at once, and checks each one's exit code and message. At once: most of
 * a command's time is waiting (grpc-js waits out its 10 s connect deadline before some of these failures surface).
 */
async function everyCommandFails(
  settings: Record<string, string>,
  exitCode: number,
  expected: readonly RegExp[],
  unexpected: readonly RegExp[] = [],
): Promise<void> {
  const queue = [...COMMANDS];
  const runNext = async (): Promise<void> => {
    for (let args = queue.shift(); args !== undefined; args = queue.shift()) {
      const run = await runCli(args, { env: temporalEnv(settings), timeoutMs: 120_000 });
      const what = `tool-contract ${args[0] ?? ''} → ${run.code}\n${run.stderr}`;
      assert.equal(run.code, exitCode, what);
      const line = run.stderr.split('\n').find((text) => text.startsWith('tool-contract: ')) ?? '';
      for (const pattern of expected) assert.match(line, pattern, what);
      for (const pattern of unexpected) assert.doesNotMatch(line, pattern, what);
      assert.ok(
        ![...line].some(
          (char) => char.charCodeAt(0) < 0x20 || (char.charCodeAt(0) >= 0x7f && char.charCodeAt(0) <= 0x9f),
        ),
        `no control character reaches the terminal: ${what}`,
      );
    }
  };
  await Promise.all(COMMANDS.map(() => runNext()));
}

const escaped = (text: string) => new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));

test(
  'nothing listening: every command exits 4 (unreachable), names the address and the refused connection, and suggests the dev server for a local address',
  { timeout: 600_000 },
  async () => {
    await everyCommandFails({ TEMPORAL_ADDRESS: closedPort }, EXIT_CODES.unavailable, [
      escaped(`cannot reach the Temporal server at ${closedPort}`),
      /ECONNREFUSED/,
      /TEMPORAL_ADDRESS/,
      /`dev` command/,
    ]);
  },
);

test(
  'a web server at the address: every command exits 7 (not a Temporal server) with what it answered and a hint about the port',
  { timeout: 600_000 },
  async () => {
    await everyCommandFails(
      { TEMPORAL_ADDRESS: webServer.address },
      EXIT_CODES.wrongService,
      [escaped(`${webServer.address} is not a Temporal server`), /HTTP\/1/, /gRPC port \(7233 by default\)/],
      [/`dev` command/],
    );
  },
);

test(
  "another gRPC service at the address: every command exits 7 with the server's UNIMPLEMENTED reason",
  { timeout: 600_000 },
  async () => {
    await everyCommandFails(
      { TEMPORAL_ADDRESS: otherGrpcService.address },
      EXIT_CODES.wrongService,
      [escaped(`${otherGrpcService.address} is not a Temporal server`), escaped(`UNIMPLEMENTED: ${OTHER_SERVICE}`)],
      [/`dev` command/],
    );
  },
);

test(
  "a server that refuses the API key: every command exits 8 with UNAUTHENTICATED and the server's reason, and no advice to start a server",
  { timeout: 600_000 },
  async () => {
    // TEMPORAL_TLS=false: the stand-in has no TLS (an API key turns TLS on by default).
    await everyCommandFails(
      { TEMPORAL_ADDRESS: unauthenticated.address, TEMPORAL_API_KEY: 'fake-key', TEMPORAL_TLS: 'false' },
      EXIT_CODES.credentialsRejected,
      [
        escaped(`the Temporal server at ${unauthenticated.address} rejected the credentials`),
        escaped(`UNAUTHENTICATED: ${API_KEY_REFUSAL}`),
        /TEMPORAL_API_KEY/,
      ],
      [/`dev` command/, /cannot reach/, /fake-key/],
    );
  },
);

test(
  'a server that denies the caller (its reason laced with terminal escapes): PERMISSION_DENIED is exit 8 too, with the namespace the key must reach',
  { timeout: 600_000 },
  async () => {
    await everyCommandFails(
      { TEMPORAL_ADDRESS: permissionDenied.address, TEMPORAL_NAMESPACE: 'payments-prod' },
      EXIT_CODES.credentialsRejected,
      [escaped(`PERMISSION_DENIED: ${ROLE_REFUSAL}`), /namespace 'payments-prod'/],
      [/`dev` command/],
    );
  },
);

test(
  'a TLS server whose certificate the client does not trust: every command exits 6 with the verification error and the CA setting',
  { timeout: 600_000 },
  async () => {
    await everyCommandFails(
      { TEMPORAL_ADDRESS: untrustedTls.address, TEMPORAL_TLS: 'true' },
      EXIT_CODES.tlsFailed,
      [
        escaped(`TLS with the Temporal server at ${untrustedTls.address} failed`),
        /UNABLE_TO_VERIFY_LEAF_SIGNATURE|unable to verify/i,
        /TEMPORAL_TLS_SERVER_CA_CERT_PATH/,
      ],
      [/`dev` command/],
    );
  },
);

test('a TLS server and a client without TLS: exit 6, saying the server speaks TLS', { timeout: 300_000 }, async () => {
  const run = await runCli(['pending'], { env: temporalEnv({ TEMPORAL_ADDRESS: untrustedTls.address }) });
  assert.equal(run.code, EXIT_CODES.tlsFailed, run.stderr);
  assert.match(run.stderr, /the server speaks TLS: turn it on \(TEMPORAL_TLS=true/);
});

test(
  "a real server without the namespace: every command exits 9, naming the namespace, the address and the server's reason",
  { timeout: 600_000 },
  async () => {
    const address = temporal.server.address;
    await everyCommandFails(
      { TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: 'no-such-namespace' },
      EXIT_CODES.namespaceNotFound,
      [
        escaped(`namespace 'no-such-namespace' does not exist on ${address}`),
        /no-such-namespace.*not found/i,
        /temporal operator namespace create --namespace no-such-namespace/,
      ],
      [/`dev` command/],
    );
  },
);
