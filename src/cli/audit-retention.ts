import { writeFile } from 'node:fs/promises';
import { publishedAnchorLine, type AuditRetirement } from '../store/index.js';
import { sha256OfBytes } from '../store/byte-digest.js';
import { withOwnerTrail } from './audit-trail-access.js';
import { CliError, EXIT_CODES } from './cli-error.js';
import type { CliDeps } from './command.js';
import { RETENTION_AGE, type RetentionInput } from './commands/retention.js';

/** What `retention` prints: the first month kept, the anchors file and its digest, and the run (null: nothing to drop). */
export interface RetentionOutput {
  readonly retiredBefore: string;
  readonly anchorsFile: string;
  readonly anchorsSha256: string;
  readonly anchors: number;
  readonly retirement: AuditRetirement | null;
}

/**
 * The first month to keep: the month of `now` minus the age. Every month before it ends before that instant, so all
 * of its rows are older than the age; the month that holds the instant is kept whole.
 */
export function firstMonthKept(olderThan: string, now: Date): string {
  const [, count = '0', unit = 'd'] = RETENTION_AGE.exec(olderThan) ?? [];
  const n = Number(count);
  const at = new Date(now);
  if (unit === 'd' || unit === 'w') at.setUTCDate(at.getUTCDate() - n * (unit === 'w' ? 7 : 1));
  else at.setUTCMonth(at.getUTCMonth() - n * (unit === 'y' ? 12 : 1), 1);
  return `${at.toISOString().slice(0, 7)}-01`;
}

/**
 * As the owner: seals, writes every anchor to a new file (so the chain can be checked across the cut without the
 * database), and retires the months before the first one kept, recording the file's digest.
 */
export async function retainAudit(input: RetentionInput, deps: CliDeps): Promise<RetentionOutput> {
  const retiredBefore = firstMonthKept(input.olderThan, new Date());
  return withOwnerTrail(deps, 'retention', async (trail) => {
    await trail.seal();
    const anchors = await trail.anchors();
    const text = anchors.map(publishedAnchorLine).join('');
    try {
      await writeFile(input.anchorsOut, text, { flag: 'wx', mode: 0o644 });
    } catch (error) {
      throw new CliError(
        `--anchors-out: cannot write a new file ${input.anchorsOut} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
        EXIT_CODES.usage,
        { cause: error },
      );
    }
    const anchorsSha256 = sha256OfBytes(text);
    return {
      retiredBefore,
      anchorsFile: input.anchorsOut,
      anchorsSha256,
      anchors: anchors.length,
      retirement: await trail.retire(retiredBefore, anchorsSha256),
    };
  });
}
