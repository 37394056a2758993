import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import {
  parsePublishedAnchors,
  PublishedAnchorsError,
  verifyExportLines,
  type AuditAnchor,
  type TrailNote,
  type TrailReport,
} from '../store/index.js';
import { historyLookup } from './audit-history.js';
import { readAnchorVerifyKeys } from './audit-keys.js';
import { applicationTrail } from './audit-trail-access.js';
import { CliError, EXIT_CODES } from './cli-error.js';
import type { CliDeps } from './command.js';
import type { VerifyInput } from './commands/verify.js';

/** The report, and whether the run passes: verified, and — with `--strict` — nothing left unconfirmed. */
export type VerifyOutput = TrailReport & { readonly strict: boolean; readonly passed: boolean };

/** The notes `--strict` fails on: rows not sealed yet, and what Temporal history could not confirm. */
const UNCONFIRMED: ReadonlySet<TrailNote['kind']> = new Set(['unsealed', 'not_in_history', 'history_not_found']);

/** `verify`: the database (as DATABASE_URL's role, with history unless --no-history) or an export file. */
export async function verifyAudit(input: VerifyInput, deps: CliDeps): Promise<VerifyOutput> {
  const verifyKeys = input.verifyKeys === undefined ? undefined : await readAnchorVerifyKeys(input.verifyKeys);
  const publishedAnchors = input.anchors === undefined ? undefined : await readPublishedAnchors(input.anchors);
  const against = {
    ...(verifyKeys === undefined ? {} : { verifyKeys }),
    ...(publishedAnchors === undefined ? {} : { publishedAnchors }),
  };
  const report =
    input.file === undefined
      ? await (
          await applicationTrail(deps)
        ).verify({
          ...against,
          ...(input.since === undefined ? {} : { since: input.since }),
          ...(input.until === undefined ? {} : { until: input.until }),
          ...(input.workflowId === undefined ? {} : { workflowId: input.workflowId }),
          ...(input.history ? { history: historyLookup(await deps.client()) } : {}),
        })
      : await verifyExportLines(await exportLines(input.file), against);
  const passed = report.verified && (!input.strict || !report.notes.some((note) => UNCONFIRMED.has(note.kind)));
  return { ...report, strict: input.strict, passed };
}

async function readPublishedAnchors(file: string): Promise<AuditAnchor[]> {
  try {
    return parsePublishedAnchors(await readFile(file, 'utf8'));
  } catch (error) {
    const why = error instanceof PublishedAnchorsError ? error.message : 'cannot read it';
    throw new CliError(`--anchors: ${file}: ${why}`, EXIT_CODES.usage, { cause: error });
  }
}

/** The lines of an export, read as they come (an export of millions of rows never sits in memory). */
async function exportLines(file: string): Promise<AsyncIterable<string>> {
  const stream = createReadStream(file, { encoding: 'utf8' });
  await new Promise<void>((resolve, reject) => {
    stream.once('open', () => resolve());
    stream.once('error', (error) =>
      reject(new CliError(`--file: cannot read ${file}`, EXIT_CODES.usage, { cause: error })),
    );
  });
  return createInterface({ input: stream, crlfDelay: Infinity });
}
