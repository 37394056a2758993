import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { AnyToolImplementation } from '../contract/tool-spec.js';
import { ToolRegistry } from '../contract/tool-registry.js';
import { CliError, EXIT_CODES } from './cli-error.js';

/** The user's tools as `worker --tools <module>` loads them. */
export interface ToolModule {
  readonly tools: ToolRegistry;
  readonly safeRetryTools?: readonly string[];
}

/**
 * Imports a module (path relative to `cwd`) whose export `tools` is a ToolRegistry or an array of tools, and whose
 * optional export `safeRetryTools` lists tools that may be re-dispatched after "not committed".
 */
export async function loadToolModule(path: string, cwd: string): Promise<ToolModule> {
  const file = resolve(cwd, path);
  if (!existsSync(file)) throw new CliError(`--tools: no such file ${file}`, EXIT_CODES.usage);
  let loaded: Record<string, unknown>;
  try {
    loaded = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    throw new CliError(
      `--tools: cannot import ${file}: ${error instanceof Error ? error.message : String(error)}`,
      EXIT_CODES.usage,
      { cause: error },
    );
  }
  const tools = toRegistry(loaded['tools'], file);
  const safeRetry = loaded['safeRetryTools'];
  if (safeRetry === undefined) return { tools };
  if (!Array.isArray(safeRetry) || !safeRetry.every((name) => typeof name === 'string')) {
    throw new CliError(
      `--tools: the export \`safeRetryTools\` of ${file} must be an array of tool names`,
      EXIT_CODES.usage,
    );
  }
  return { tools, safeRetryTools: safeRetry };
}

/** A workflows module given on the command line, as an absolute path that exists. */
export function workflowsModulePath(path: string, cwd: string): string {
  const file = resolve(cwd, path);
  if (!existsSync(file)) throw new CliError(`--workflows: no such file or folder ${file}`, EXIT_CODES.usage);
  return file;
}

/**
 * The package's own workflows module (agentLoop and the reconciliation workflow), used when `--tools` comes without
 * `--workflows`: from source it is `workflows/index.ts`, from the published build `lib/workflows/index.js`.
 */
export function packageWorkflowsPath(): string {
  const candidates = ['index.ts', 'index.js'].map((file) =>
    fileURLToPath(new URL(`../../workflows/${file}`, import.meta.url)),
  );
  const found = candidates.find((file) => existsSync(file));
  if (found === undefined)
    throw new CliError(
      `the package's workflows module is missing (looked for ${candidates.join(', ')})`,
      EXIT_CODES.failure,
    );
  return found;
}

/** A registry as is (checked by shape, since the user's module may load its own copy of the package) or an array of tools. */
function toRegistry(exported: unknown, file: string): ToolRegistry {
  if (isRegistry(exported)) return exported;
  if (!Array.isArray(exported))
    throw new CliError(
      `--tools: ${file} must export \`tools\`, a ToolRegistry or an array of implementTool(...) tools`,
      EXIT_CODES.usage,
    );
  try {
    return new ToolRegistry(exported as AnyToolImplementation[]);
  } catch (error) {
    throw new CliError(
      `--tools: the tools exported by ${file} do not form a registry: ${error instanceof Error ? error.message : String(error)}`,
      EXIT_CODES.usage,
      { cause: error },
    );
  }
}

function isRegistry(value: unknown): value is ToolRegistry {
  if (value instanceof ToolRegistry) return true;
  const candidate = value as Partial<Record<keyof ToolRegistry, unknown>> | null;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    ['list', 'get', 'has', 'execute'].every((method) => typeof candidate[method as keyof ToolRegistry] === 'function')
  );
}
