/**
 * Exit codes scripts can rely on. A connection to Temporal that fails exits with the code of its cause (4, 6–9), so a
 * script can tell a server that is down from a key that is refused; see {@link EXIT_CODE_MEANINGS}.
 */
export const EXIT_CODES = {
  ok: 0,
  failure: 1,
  usage: 2,
  notFound: 3,
  unavailable: 4,
  refused: 5,
  tlsFailed: 6,
  wrongService: 7,
  credentialsRejected: 8,
  namespaceNotFound: 9,
} as const;

/** One of {@link EXIT_CODES}. */
export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];

/** What each exit code means, in the words of the CLI's help and the README's table. */
export const EXIT_CODE_MEANINGS: Readonly<Record<keyof typeof EXIT_CODES, string>> = {
  ok: 'ok',
  failure: 'unexpected failure',
  usage: 'bad input: arguments, environment or connection profile',
  notFound: 'not found: workflow, call or key',
  unavailable: 'unreachable: nothing answers at the Temporal address (or Postgres), or a port to listen on is taken',
  refused: 'refused by the workflow (a decision or resolution it did not take; the message says why)',
  tlsFailed:
    "TLS failed: the server's certificate is not trusted, the server refused the handshake, or TLS is on at one end only",
  wrongService: 'not a Temporal server: the address answers, but as a web server or another gRPC service',
  credentialsRejected:
    'credentials rejected: the server answered UNAUTHENTICATED or PERMISSION_DENIED to the API key or client certificate',
  namespaceNotFound: 'namespace not found on the server',
};

/** Every exit code with its meaning, in code order: what the help text and the README's table list. */
export function exitCodeMeanings(): readonly { readonly code: ExitCode; readonly meaning: string }[] {
  return (Object.keys(EXIT_CODES) as (keyof typeof EXIT_CODES)[]).map((name) => ({
    code: EXIT_CODES[name],
    meaning: EXIT_CODE_MEANINGS[name],
  }));
}

/** An error the CLI reports as one line on stderr with a fixed exit code (never a stack trace). */
export class CliError extends Error {
  readonly exitCode: ExitCode;

  constructor(message: string, exitCode: ExitCode, options?: { readonly cause?: unknown }) {
    super(message, options);
    this.name = 'CliError';
    this.exitCode = exitCode;
  }
}
