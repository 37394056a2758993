import { createHash, type KeyObject } from 'node:crypto';
import type { z } from 'zod';
import { canonicalJson } from '../../contract/canonical-json.js';
import type { AuditAnchor } from './anchor.js';
import { chainFindings, publishedFindings, signatureFindings } from './chain-check.js';
import { exportLineSchema } from './export-format.js';
import { erasureNote, retirementNote, type AuditRetirement } from './lifecycle-records.js';
import { splitLeaves } from './merkle.js';
import { segmentFindings } from './segment-check.js';
import type { TrailFinding, TrailNote } from './trail-findings.js';
import type { TrailReport, TrailScope } from './trail-report.js';
import { rowFindings, type TrailRow } from './trail-row.js';

/** What an export is checked against, besides itself. */
export interface VerifyFileOptions {
  /** Ed25519 public keys by key id: every anchor must carry a valid signature of one of them. */
  readonly verifyKeys?: ReadonlyMap<string, KeyObject>;
  /** Anchors published elsewhere (`seal --publish`): each must be in the export, unchanged. */
  readonly publishedAnchors?: readonly AuditAnchor[];
}

type Line = z.infer<typeof exportLineSchema>;
type RecordLine = Extract<Line, { type: 'record' }>;
type AnchorLine = Extract<Line, { type: 'anchor' }>;

/**
 * Verifies an export (`tool-contract export`) offline, a line at a time: the file is whole (its manifest's counts and
 * the digest of its lines), the chain of its anchors (and their signatures, and the published anchors, when given),
 * each exported segment's rows against its sealed leaves (all of them when the export says it holds the whole segment),
 * and each record's model result against its digest — with the protected fields, also its whole record, every column
 * and its call binding. An artifact body is not in an export: what erasure or purge removed is reported as such.
 */
export async function verifyExportLines(
  lines: AsyncIterable<string> | Iterable<string>,
  options: VerifyFileOptions = {},
): Promise<TrailReport> {
  const findings: TrailFinding[] = [];
  const notes: TrailNote[] = [];
  const anchors: AnchorLine[] = [];
  const byNo = new Map<number, AnchorLine>();
  const retirements: AuditRetirement[] = [];
  const withRecords = new Set<number>();
  const digest = createHash('sha256');
  let scope: TrailScope = {};
  let lineNo = 0;
  let headerSeen = false;
  let manifest: Extract<Line, { type: 'manifest' }> | null = null;
  let group: { anchorNo: number | null; rows: TrailRow[] } = { anchorNo: null, rows: [] };
  const counts = { rows: 0, sealed: 0, unsealed: 0, segments: 0 };
  const broken = (problem: string) => findings.push({ kind: 'export_file', problem, line: lineNo });

  const closeGroup = () => {
    const { anchorNo, rows } = group;
    group = { anchorNo: null, rows: [] };
    if (anchorNo === null || rows.length === 0) return;
    const anchor = byNo.get(anchorNo);
    if (anchor === undefined || anchor.leaves === null)
      return void broken(`records of anchor ${anchorNo}, which the export does not carry with its leaves`);
    if (withRecords.has(anchorNo)) return void broken(`the records of anchor ${anchorNo} are not together`);
    withRecords.add(anchorNo);
    counts.segments += 1;
    findings.push(...segmentFindings({ anchor, leaves: leavesOf(anchor.leaves), rows, complete: anchor.complete }));
  };

  for await (const text of lines) {
    lineNo += 1;
    if (text.trim() === '') continue;
    if (manifest !== null) {
      broken('a line after the manifest');
      continue;
    }
    const line = parseLine(text);
    if (line === null) {
      broken('not an export line');
      continue;
    }
    if (line.type !== 'manifest') digest.update(`${text}\n`);
    if (!headerSeen && line.type !== 'header') broken('the first line is not the header');
    switch (line.type) {
      case 'header':
        if (headerSeen) broken('a second header');
        headerSeen = true;
        scope = line.scope as TrailScope;
        break;
      case 'anchor':
        anchors.push(line);
        byNo.set(line.anchor_no, line);
        break;
      case 'record': {
        if (line.anchor_no !== group.anchorNo) closeGroup();
        group.anchorNo = line.anchor_no;
        const row = trailRowOfLine(line);
        counts.rows += 1;
        if (row === null) {
          findings.push({ kind: 'row_altered', audit_id: line.audit_id, field: 'model_result' });
          continue;
        }
        findings.push(...rowFindings(row));
        if (line.anchor_no === null) counts.unsealed += 1;
        else {
          counts.sealed += 1;
          group.rows.push(row);
        }
        break;
      }
      case 'retirement':
        retirements.push(line);
        notes.push(retirementNote(line));
        break;
      case 'erasure':
        notes.push(erasureNote(line));
        break;
      case 'purge':
        notes.push({ kind: 'purged', sha256: line.sha256, purged_at: line.purged_at, purged_by: line.purged_by });
        break;
      case 'manifest':
        closeGroup();
        manifest = line;
        break;
    }
  }
  closeGroup();
  for (const anchor of anchors) {
    // A segment the export claims whole, of which no record came: every sealed row of it is missing.
    if (anchor.complete && anchor.leaves !== null && !withRecords.has(anchor.anchor_no))
      findings.push(...segmentFindings({ anchor, leaves: leavesOf(anchor.leaves), rows: [], complete: true }));
  }
  if (!headerSeen) broken('no header');
  if (manifest === null) broken('no manifest: the file is cut short');
  else {
    const head = anchors.at(-1);
    if (manifest.lines_sha256 !== digest.digest('hex'))
      broken('the lines are not the lines the manifest was written after');
    if (
      manifest.records !== counts.rows ||
      manifest.sealed_records !== counts.sealed ||
      manifest.unsealed_records !== counts.unsealed ||
      manifest.anchors !== anchors.length
    )
      broken('the counts differ from the manifest');
    if ((manifest.head?.anchor_sha256 ?? null) !== (head?.anchor_sha256 ?? null))
      broken("the last anchor is not the manifest's head");
  }
  findings.push(...chainFindings(anchors));
  if (options.verifyKeys !== undefined) findings.push(...signatureFindings(anchors, options.verifyKeys));
  if (options.publishedAnchors !== undefined) findings.push(...publishedFindings(anchors, options.publishedAnchors));
  if (counts.unsealed > 0) notes.push({ kind: 'unsealed', rows: counts.unsealed, oldest_recorded_at: null });
  const head = anchors.at(-1);
  const retiredBefore = retirements.at(-1)?.retired_before ?? '';
  return {
    verified: findings.length === 0,
    checked: 'file',
    scope,
    history: 'not_checked',
    head: head === undefined ? null : { anchor_no: head.anchor_no, anchor_sha256: head.anchor_sha256 },
    counts: {
      rows: counts.rows,
      anchors: anchors.length,
      segments: counts.segments,
      retired_anchors: anchors.filter((anchor) => anchor.period < retiredBefore).length,
      unsealed_rows: counts.unsealed,
      runs: 0,
    },
    findings,
    notes,
  };
}

function parseLine(text: string): Line | null {
  try {
    const parsed = exportLineSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** A record line as a trail row: its JSON values as their canonical text again (the bytes the digests cover). */
function trailRowOfLine({
  type: _type,
  anchor_no: _anchor,
  model_result,
  protected: hidden,
  ...columns
}: RecordLine): TrailRow | null {
  try {
    return {
      ...columns,
      model_result: canonicalJson(model_result),
      protected:
        hidden === null
          ? null
          : {
              audit: canonicalJson(hidden.audit),
              idempotency_key: hidden.idempotency_key,
              principal_ref: hidden.principal_ref,
            },
    };
  } catch {
    return null;
  }
}

function leavesOf(base64: string): Buffer[] {
  return splitLeaves(Buffer.from(base64, 'base64'));
}
