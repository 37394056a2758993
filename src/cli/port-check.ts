import { createServer } from 'node:net';
import { CliError, EXIT_CODES } from './cli-error.js';

/**
 * Fails with a clear message when `port` on 127.0.0.1 is already taken, before a child process fails with a log
 * line nobody reads. A port freed between this check and the child's bind is caught by the child's own error.
 */
export async function assertPortFree(port: number, what: string, hint: string): Promise<void> {
  const error = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
    const server = createServer();
    server.once('error', (failure: NodeJS.ErrnoException) => resolve(failure));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolve(null)));
  });
  if (error === null) return;
  const why = error.code === 'EADDRINUSE' ? 'is already in use' : `cannot be bound (${error.code ?? error.message})`;
  throw new CliError(`port ${port} for the ${what} ${why}: ${hint}`, EXIT_CODES.unavailable, { cause: error });
}
