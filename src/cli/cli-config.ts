/** The environment variables the CLI reads (the only place in the package that reads them). */
export const CLI_ENV = {
  temporalAddress: 'TEMPORAL_ADDRESS',
  temporalNamespace: 'TEMPORAL_NAMESPACE',
  databaseUrl: 'DATABASE_URL',
} as const;

/** Where the CLI connects. */
export interface CliConfig {
  readonly temporalAddress: string;
  readonly temporalNamespace: string;
  /** `undefined` means the embedded Postgres of the project folder (see `resolveDatabase`). */
  readonly databaseUrl: string | undefined;
}

/** Defaults match a local `temporal server start-dev`. */
export const CLI_DEFAULTS = { temporalAddress: '127.0.0.1:7233', temporalNamespace: 'default' } as const;

/** Builds the config from an environment; empty values count as unset. */
export function configFromEnv(env: Readonly<Record<string, string | undefined>>): CliConfig {
  const read = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  return {
    temporalAddress: read(CLI_ENV.temporalAddress) ?? CLI_DEFAULTS.temporalAddress,
    temporalNamespace: read(CLI_ENV.temporalNamespace) ?? CLI_DEFAULTS.temporalNamespace,
    databaseUrl: read(CLI_ENV.databaseUrl),
  };
}
