import { CliError, EXIT_CODES } from './cli-error.js';

/**
 * Imports what a command needs from an optional peer dependency of the package (`@modelcontextprotocol/sdk` for
 * `mcp`), turning its absence into a usage error that names the package to install, instead of Node's
 * `ERR_MODULE_NOT_FOUND` from deep inside the package. Any other failure passes through.
 */
export async function importWithOptionalPeer<T>(load: () => Promise<T>, peer: string, needer: string): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const { code, message } = error as { code?: unknown; message?: unknown };
    if (code === 'ERR_MODULE_NOT_FOUND' && typeof message === 'string' && message.includes(`'${peer}'`)) {
      throw new CliError(
        `${needer} needs the optional package ${peer}, which is not installed: npm install ${peer}`,
        EXIT_CODES.usage,
        { cause: error },
      );
    }
    throw error;
  }
}
