/** Exit codes scripts can rely on: 0 ok, 1 unexpected failure, 2 bad input, 3 not found, 4 unreachable, 5 refused. */
export const EXIT_CODES = { ok: 0, failure: 1, usage: 2, notFound: 3, unavailable: 4, refused: 5 } as const;

/** One of {@link EXIT_CODES}. */
export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];

/** An error the CLI reports as one line on stderr with a fixed exit code (never a stack trace). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode,
    options?: { readonly cause?: unknown },
  ) {
    super(message, options);
    this.name = 'CliError';
  }
}
