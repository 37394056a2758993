import { createCodecServer } from '../codec/index.js';
import { CLI_ENV } from './cli-config.js';
import { CliError, EXIT_CODES, type ExitCode } from './cli-error.js';
import { configuredCodec } from './codec-config.js';
import type { CodecServerInput } from './commands/codec-server.js';
import type { StackContext } from './stack-context.js';
import { stopRequested } from './teardown.js';

/** `codec-server`: listens on 127.0.0.1 until a stop signal; only the key ids are ever printed. */
export async function runCodecServer(ctx: StackContext, input: CodecServerInput): Promise<ExitCode> {
  const configured = configuredCodec(ctx.config.codecKeys);
  if (configured === null) throw new CliError(`${CLI_ENV.codecKeys} is not set: id:base64key[,id:base64key...] (e.g. k1:$(openssl rand -base64 32)), the first one encrypts`, EXIT_CODES.usage);
  const { codec, keyIds } = configured;
  const server = createCodecServer(codec, input.origins);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(new CliError(`cannot listen on 127.0.0.1:${input.port} (${error.code ?? error.message}); choose another --port`, EXIT_CODES.unavailable, { cause: error }));
    });
    server.listen(input.port, '127.0.0.1', resolve);
  });
  try {
    const url = `http://127.0.0.1:${input.port}`;
    ctx.out.report(
      { event: 'ready', url, origins: input.origins, keyIds },
      `codec server on ${url} for ${input.origins.join(', ')} (keys: ${keyIds.join(', ')}; ${keyIds[0] ?? ''} encrypts)\nSet it as the codec endpoint in the Temporal UI. Ctrl-C stops it.`,
    );
    await stopRequested(ctx.stop);
    return EXIT_CODES.ok;
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    ctx.out.report({ event: 'stopped' }, 'stopped');
  }
}
