import { AesGcmPayloadCodec, parseCodecKeys } from '../codec/index.js';
import { CLI_ENV } from './cli-config.js';
import { CliError, EXIT_CODES } from './cli-error.js';

/** The payload codec the CLI's clients, workers and codec server use, and its key ids (the only part ever printed). */
export interface ConfiguredCodec {
  readonly codec: AesGcmPayloadCodec;
  readonly keyIds: readonly string[];
}

/**
 * The codec over the keys of TTC_CODEC_KEYS (`id:base64key[,...]`, the first encrypts); `null` when it is not set
 * (payloads travel unencrypted). A malformed value is a usage error that never shows a key.
 */
export function configuredCodec(value: string | undefined): ConfiguredCodec | null {
  if (value === undefined) return null;
  try {
    const keys = parseCodecKeys(value);
    return { codec: new AesGcmPayloadCodec(keys), keyIds: keys.map((key) => key.id) };
  } catch (error) {
    throw new CliError(
      `${CLI_ENV.codecKeys}: ${error instanceof Error ? error.message : String(error)}`,
      EXIT_CODES.usage,
      { cause: error },
    );
  }
}
