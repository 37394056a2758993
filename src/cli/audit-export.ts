import { open } from 'node:fs/promises';
import type { ExportManifest } from '../store/index.js';
import { applicationTrail } from './audit-trail-access.js';
import { CliError, EXIT_CODES } from './cli-error.js';
import type { CliDeps } from './command.js';
import type { ExportInput } from './commands/export.js';

/** What `export` prints: the file it wrote and its manifest. */
export type ExportOutput = { readonly file: string; readonly protected: boolean } & Omit<ExportManifest, 'type'>;

/** Bytes gathered before each write to the file. */
const CHUNK = 1 << 16;

/**
 * Writes the export to a new file (an existing one is never overwritten; a protected export is readable by its owner
 * only) in chunks as the lines come, each write awaited, so millions of rows never sit in memory.
 */
export async function exportAudit(input: ExportInput, deps: CliDeps): Promise<ExportOutput> {
  const { out, protectedFields, ...scope } = input;
  const trail = await applicationTrail(deps);
  let file;
  try {
    file = await open(out, 'wx', protectedFields ? 0o600 : 0o644);
  } catch (error) {
    throw new CliError(
      `--out: cannot create a new file ${out} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      EXIT_CODES.usage,
      { cause: error },
    );
  }
  try {
    let pending = '';
    const manifest = await trail.export({ ...scope, protectedFields }, async (text) => {
      pending += text;
      if (pending.length < CHUNK) return;
      await file.write(pending);
      pending = '';
    });
    await file.write(pending);
    return { file: out, protected: protectedFields, ...withoutType(manifest) };
  } finally {
    await file.close();
  }
}

function withoutType({ type: _type, ...manifest }: ExportManifest): Omit<ExportManifest, 'type'> {
  return manifest;
}
