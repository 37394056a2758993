import { CliError, EXIT_CODES } from './cli-error.js';
import { temporalProfile, type ProfileFlags, type TemporalProfile } from './temporal-profile.js';

/**
 * The environment variables the CLI reads (the only place in the package that reads them); the Temporal connection
 * also takes every TEMPORAL_* variable of `@temporalio/envconfig` (see `temporalProfile`).
 */
export const CLI_ENV = {
  temporalAddress: 'TEMPORAL_ADDRESS',
  temporalNamespace: 'TEMPORAL_NAMESPACE',
  databaseUrl: 'DATABASE_URL',
  databaseOwnerUrl: 'DATABASE_OWNER_URL',
  databaseSchema: 'DATABASE_SCHEMA',
  principalKey: 'TTC_PRINCIPAL_KEY',
  cursorKey: 'TTC_CURSOR_KEY',
  codecKeys: 'TTC_CODEC_KEYS',
  codecToken: 'TTC_CODEC_TOKEN',
  mcpToken: 'TTC_MCP_TOKEN',
  metricsBind: 'TTC_METRICS_BIND',
  operator: 'TTC_OPERATOR',
} as const;

/** Where the CLI connects. */
export interface CliConfig {
  /** The Temporal server and how to connect to it (envconfig profile and TEMPORAL_* variables). */
  readonly temporal: TemporalProfile;
  /** `undefined` means the embedded Postgres of the project folder (see `resolveDatabase`). */
  readonly databaseUrl: string | undefined;
  /** The role that owns the tables and migrates; `undefined`: DATABASE_URL's role migrates (and owns) them itself. */
  readonly databaseOwnerUrl: string | undefined;
  /** The schema of the store's tables; `undefined`: `public`. Named in every statement, never taken from search_path. */
  readonly databaseSchema: string | undefined;
  /** Keys the audit's principal references (worker); `undefined`: plain digests. Never printed. */
  readonly principalKey: string | undefined;
  /** The worker's key for sealed continuation cursors (`cursorKey` of the plugin); never printed. */
  readonly cursorKey: string | undefined;
  /** The payload codec's keys, `id:base64[,...]` (the first encrypts); never printed. */
  readonly codecKeys: string | undefined;
  /** The token `codec-server` requires of every request; `undefined`: it makes one and prints it. */
  readonly codecToken: string | undefined;
  /** The bearer token `mcp --http` requires of every request; never printed. */
  readonly mcpToken: string | undefined;
  /** `host:port` of the Prometheus endpoint the Temporal runtime serves (SDK and package metrics); `undefined`: none. */
  readonly metricsBind: string | undefined;
  /** Who decides from this machine's `console` (its operator name, signed into every decision); `undefined`: none set. */
  readonly operator: string | undefined;
}

/** Builds the config from an environment and the connection flags; empty values count as unset. */
export function configFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  profile: ProfileFlags = {},
): CliConfig {
  const read = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  return {
    temporal: temporalProfile(env, profile),
    databaseUrl: read(CLI_ENV.databaseUrl),
    databaseOwnerUrl: read(CLI_ENV.databaseOwnerUrl),
    databaseSchema: read(CLI_ENV.databaseSchema),
    principalKey: read(CLI_ENV.principalKey),
    cursorKey: read(CLI_ENV.cursorKey),
    codecKeys: read(CLI_ENV.codecKeys),
    codecToken: read(CLI_ENV.codecToken),
    mcpToken: read(CLI_ENV.mcpToken),
    metricsBind: metricsBindOf(read(CLI_ENV.metricsBind)),
    operator: read(CLI_ENV.operator),
  };
}

/** A `host:port` (IPv6 hosts in brackets) the Prometheus endpoint can bind; anything else is a usage error. */
function metricsBindOf(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const match = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(value);
  if (match === null)
    throw new CliError(
      `${CLI_ENV.metricsBind} must be host:port (e.g. 127.0.0.1:9464), not '${value}'`,
      EXIT_CODES.usage,
    );
  parsePort(match[2]!, CLI_ENV.metricsBind);
  return value;
}

/** Environment variables of the local dev stack (`dev`, `start`); flags of the same name win. */
export const DEV_ENV = { port: 'TTC_DEV_PORT', uiPort: 'TTC_DEV_UI_PORT' } as const;

/** Where the dev stack listens: the usual `temporal server start-dev` ports, so the default TEMPORAL_ADDRESS fits. */
export interface DevPorts {
  readonly port: number;
  readonly uiPort: number;
}

export const DEV_DEFAULTS: DevPorts = { port: 7233, uiPort: 8233 };

/** The dev-stack ports from an environment; a value that is not a TCP port is a usage error naming the variable. */
export function devPortsFromEnv(env: Readonly<Record<string, string | undefined>>): DevPorts {
  const read = (name: string, fallback: number): number => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? fallback : parsePort(value, name);
  };
  return { port: read(DEV_ENV.port, DEV_DEFAULTS.port), uiPort: read(DEV_ENV.uiPort, DEV_DEFAULTS.uiPort) };
}

/** A TCP port number (1..65535); anything else is a usage error that says where the value came from. */
export function parsePort(value: string, source: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || !Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new CliError(`${source} must be a TCP port (1..65535), got '${value}'`, EXIT_CODES.usage);
  }
  return port;
}
