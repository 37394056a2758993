import { MIN_PRINCIPAL_KEY_BYTES, parsePrincipalKey } from '../contract/principal-ref.js';
import { CLI_ENV } from './cli-config.js';
import { CliError, EXIT_CODES } from './cli-error.js';

/**
 * TTC_PRINCIPAL_KEY as bytes (the worker keys audit principal references with it; `erase` finds a principal's audits
 * with it); one that is too short is a usage error (which never shows the key).
 */
export function configuredPrincipalKey(value: string | undefined): Uint8Array | undefined {
  if (value === undefined) return undefined;
  try {
    return parsePrincipalKey(value);
  } catch {
    throw new CliError(
      `${CLI_ENV.principalKey} must be at least ${MIN_PRINCIPAL_KEY_BYTES} bytes (e.g. openssl rand -base64 32)`,
      EXIT_CODES.usage,
    );
  }
}
