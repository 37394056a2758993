import { randomBytes } from 'node:crypto';
import { createCodecServer, MIN_CODEC_TOKEN_LENGTH } from '../codec/index.js';
import { CLI_ENV } from './cli-config.js';
import { CliError, EXIT_CODES, type ExitCode } from './cli-error.js';
import { configuredCodec } from './codec-config.js';
import type { CodecServerInput } from './commands/codec-server.js';
import type { StackContext } from './stack-context.js';
import { stopRequested } from './teardown.js';

/**
 * `codec-server`: listens on 127.0.0.1 until a stop signal. The key ids are printed, never the keys; the token is
 * printed only when this command made it (one given in TTC_CODEC_TOKEN is the operator's already).
 */
export async function runCodecServer(ctx: StackContext, input: CodecServerInput): Promise<ExitCode> {
  const configured = configuredCodec(ctx.config.codecKeys);
  if (configured === null)
    throw new CliError(
      `${CLI_ENV.codecKeys} is not set: id:base64key[,id:base64key...] (e.g. k1:$(openssl rand -base64 32)), the first one encrypts`,
      EXIT_CODES.usage,
    );
  const given = ctx.config.codecToken;
  if (given !== undefined && given.length < MIN_CODEC_TOKEN_LENGTH)
    throw new CliError(`${CLI_ENV.codecToken} must be at least ${MIN_CODEC_TOKEN_LENGTH} characters`, EXIT_CODES.usage);
  const token = given ?? randomBytes(32).toString('base64url');
  const { codec, keyIds } = configured;
  const server = createCodecServer(codec, { token, allowedOrigins: input.origins, allowedHosts: input.allowedHosts });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        new CliError(
          `cannot listen on 127.0.0.1:${input.port} (${error.code ?? error.message}); choose another --port`,
          EXIT_CODES.unavailable,
          { cause: error },
        ),
      );
    });
    server.listen(input.port, '127.0.0.1', resolve);
  });
  try {
    const url = `http://127.0.0.1:${input.port}`;
    const shownToken = given === undefined ? token : `$${CLI_ENV.codecToken}`;
    const uiEndpoint = `${url}/${shownToken}`;
    ctx.out.report(
      {
        event: 'ready',
        url,
        uiEndpoint,
        token: given === undefined ? 'generated' : CLI_ENV.codecToken,
        origins: input.origins,
        keyIds,
      },
      [
        `codec server on ${url} for ${input.origins.join(', ')} (keys: ${keyIds.join(', ')}; ${keyIds[0] ?? ''} encrypts)`,
        `Temporal UI codec endpoint: ${uiEndpoint}`,
        `Temporal CLI: --codec-endpoint ${url} --codec-auth "Bearer ${shownToken}"`,
        given === undefined
          ? `(a token made for this run; set ${CLI_ENV.codecToken} to keep one across restarts) Ctrl-C stops it.`
          : 'Ctrl-C stops it.',
      ].join('\n'),
    );
    await stopRequested(ctx.stop);
    return EXIT_CODES.ok;
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    ctx.out.report({ event: 'stopped' }, 'stopped');
  }
}
