import { createHash } from 'node:crypto';
import {
  AUDIT_EXPORT_FORMAT,
  exportRecordOf,
  type ExportLine,
  type ExportManifest,
} from '../audit-trail/export-format.js';
import { microsecondIso } from '../audit-trail/audit-leaf.js';
import { monthBounds } from '../audit-trail/months.js';
import { scopeOf, type TrailScope } from '../audit-trail/trail-report.js';
import { artifactsNamedBy } from '../audit-trail/trail-row.js';
import { forEachUnsealedPage, segmentsInScope } from './pg-trail-scope.js';
import { readArtifactPurges, readErasures, readRetirements } from './pg-trail-records.js';
import {
  readAnchors,
  readLeaves,
  segmentRowsSql,
  TRAIL_ROW_COLUMNS,
  trailRowOf,
  type TrailRowSql,
} from './pg-trail-rows.js';
import { poolQueryable, type PgDatabase } from './sql-runner.js';

/** Options of {@link exportAuditTrail}. */
export interface ExportTrailOptions extends TrailScope {
  /** Include the protected fields (the record, idempotency key, principal reference): only for whoever may see them. */
  readonly protectedFields: boolean;
  /** The clock of the header's `exported_at`. */
  readonly now?: () => Date;
}

/**
 * Writes the audit in scope as JSON Lines (`export-format.ts`), a line at a time through `write`, so an export of
 * millions of rows never sits in memory: every anchor of the chain (with the leaves of those that seal exported
 * records), the records segment by segment and then the unsealed ones, the retirements, erasures and purges, and the
 * manifest. `tool-contract verify --file` checks the file without the database. Reads only. Returns the manifest.
 */
export async function exportAuditTrail(
  database: PgDatabase,
  options: ExportTrailOptions,
  write: (text: string) => Promise<void>,
): Promise<ExportManifest> {
  const db = poolQueryable(database);
  const scope = scopeOf(options);
  const lines = createHash('sha256');
  const emit = async (line: ExportLine) => {
    const text = `${JSON.stringify(line)}\n`;
    lines.update(text);
    await write(text);
  };
  const anchors = await readAnchors(db);
  const retirements = await readRetirements(db);
  const retiredBefore = retirements.at(-1)?.retired_before ?? '';
  const sealedTo = anchors.at(-1)?.xact_to ?? '0';
  const scoped = await segmentsInScope(
    db,
    scope,
    anchors.filter((anchor) => anchor.period >= retiredBefore),
    sealedTo,
  );
  const exported = new Set(scoped.anchors.map((anchor) => anchor.anchor_no));

  await emit({
    type: 'header',
    format: AUDIT_EXPORT_FORMAT,
    exported_at: microsecondIso((options.now ?? (() => new Date()))()),
    scope,
    protected: options.protectedFields,
  });
  for (const anchor of anchors) {
    const leaves = exported.has(anchor.anchor_no)
      ? Buffer.concat(await readLeaves(db, anchor.anchor_no)).toString('base64')
      : null;
    await emit({ type: 'anchor', ...anchor, leaves, complete: leaves !== null && scoped.whole });
  }
  const named = new Set<string>();
  let sealed = 0;
  for (const anchor of scoped.anchors) {
    const rows = await db.query<TrailRowSql>(segmentRowsSql(db, TRAIL_ROW_COLUMNS), [
      ...monthBounds(anchor.period),
      anchor.xact_from,
      anchor.xact_to,
      scope.workflowId ?? null,
    ]);
    for (const row of rows) {
      const trailRow = trailRowOf(row, options.protectedFields);
      for (const sha256 of artifactsNamedBy(trailRow)) named.add(sha256);
      await emit(exportRecordOf(trailRow, anchor.anchor_no));
      sealed += 1;
    }
  }
  const unsealed = await forEachUnsealedPage<TrailRowSql>(db, TRAIL_ROW_COLUMNS, scope, sealedTo, async (page) => {
    for (const row of page) {
      const trailRow = trailRowOf(row, options.protectedFields);
      for (const sha256 of artifactsNamedBy(trailRow)) named.add(sha256);
      await emit(exportRecordOf(trailRow, null));
    }
  });
  for (const retirement of retirements) await emit({ type: 'retirement', ...retirement });
  for (const erasure of await readErasures(db)) await emit({ type: 'erasure', ...erasure });
  for (const purge of await readArtifactPurges(db, [...named])) await emit({ type: 'purge', ...purge });
  const head = anchors.at(-1);
  const manifest: ExportManifest = {
    type: 'manifest',
    records: sealed + unsealed,
    sealed_records: sealed,
    unsealed_records: unsealed,
    anchors: anchors.length,
    head: head === undefined ? null : { anchor_no: head.anchor_no, anchor_sha256: head.anchor_sha256 },
    lines_sha256: lines.digest('hex'),
  };
  await write(`${JSON.stringify(manifest)}\n`);
  return manifest;
}
