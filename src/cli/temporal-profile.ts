import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from '@temporalio/client';
import { loadClientConnectConfig } from '@temporalio/envconfig';
import { CliError, EXIT_CODES } from './cli-error.js';

/** Which envconfig profile to use: `--profile` / `--config-file`, else TEMPORAL_PROFILE / TEMPORAL_CONFIG_FILE. */
export interface ProfileFlags {
  readonly profile?: string;
  readonly configFile?: string;
}

/** What a connection (client or worker) is made with: the address, TLS, API key and gRPC metadata of the profile. */
export interface TemporalConnectionOptions extends Pick<ConnectionOptions, 'tls' | 'metadata'> {
  readonly address: string;
  readonly apiKey?: string;
}

/** Where the Temporal server is and how to reach it. */
export interface TemporalProfile {
  readonly address: string;
  readonly namespace: string;
  readonly connection: TemporalConnectionOptions;
}

/** Defaults match a local `temporal server start-dev`. */
export const TEMPORAL_DEFAULTS = { address: '127.0.0.1:7233', namespace: 'default' } as const;

/**
 * The connection the way Temporal's own tools resolve it (`@temporalio/envconfig`): a profile of `temporal.toml`
 * (the default file of the OS config folder, TEMPORAL_CONFIG_FILE, or `--config-file`), overridden by TEMPORAL_*
 * variables (address, namespace, API key, TLS client cert/key, server CA, server name, gRPC metadata). A profile that
 * does not exist, an unreadable file or bad TOML is a usage error; nothing configured means the local dev server.
 */
export function temporalProfile(
  env: Readonly<Record<string, string | undefined>>,
  flags: ProfileFlags = {},
): TemporalProfile {
  // Empty values count as unset, as for every other variable the CLI reads (envconfig would take '' as a value).
  const overrideEnvVars: Record<string, string> = {};
  for (const [name, value] of Object.entries(env))
    if (value !== undefined && value.trim() !== '') overrideEnvVars[name] = value;
  let loaded: ReturnType<typeof loadClientConnectConfig>;
  try {
    // Read here, not passed as a path: envconfig takes a missing file for an empty one, and a mistyped
    // --config-file would then connect to the local default instead of failing.
    const configSource =
      flags.configFile === undefined ? {} : { configSource: { data: readFileSync(flags.configFile, 'utf8') } };
    loaded = loadClientConnectConfig({
      overrideEnvVars,
      ...configSource,
      ...(flags.profile === undefined ? {} : { profile: flags.profile }),
    });
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new CliError(
      `cannot load the Temporal connection profile (--profile, --config-file, TEMPORAL_PROFILE, TEMPORAL_CONFIG_FILE, TEMPORAL_TLS_*): ${detail}`,
      EXIT_CODES.usage,
      { cause: error },
    );
  }
  const { address = TEMPORAL_DEFAULTS.address, tls, apiKey, metadata } = loaded.connectionOptions;
  const connection: TemporalConnectionOptions = {
    address,
    ...(tls === undefined || tls === null ? {} : { tls }),
    ...(typeof apiKey === 'string' ? { apiKey } : {}),
    ...(metadata === undefined ? {} : { metadata }),
  };
  return { address, namespace: loaded.namespace ?? TEMPORAL_DEFAULTS.namespace, connection };
}
