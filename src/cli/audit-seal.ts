import { appendFile } from 'node:fs/promises';
import { publishedAnchorLine } from '../store/index.js';
import { readAnchorSigningKey } from './audit-keys.js';
import { applicationTrail } from './audit-trail-access.js';
import type { CliDeps } from './command.js';
import type { SealInput } from './commands/seal.js';

/** What `seal` prints: the anchors it appended, how many rows they seal, the horizon and the chain's head. */
export interface SealOutput {
  readonly sealed: number;
  readonly rows: number;
  /** Every row written by a transaction older than this one is sealed. */
  readonly horizon: string;
  readonly head: { readonly anchor_no: number; readonly anchor_sha256: string } | null;
  readonly anchors: readonly {
    readonly anchor_no: number;
    readonly period: string;
    readonly row_count: number;
    readonly anchor_sha256: string;
    readonly signed: boolean;
  }[];
  /** The file the new anchors were appended to, if any. */
  readonly published: string | null;
}

/** Seals as the application role, signs when asked, and appends the new anchors to the published file. */
export async function sealAudit(input: SealInput, deps: CliDeps): Promise<SealOutput> {
  const signingKey = input.signWith === undefined ? null : await readAnchorSigningKey(input.signWith);
  const report = await (await applicationTrail(deps)).seal({ signingKey });
  if (input.publish !== undefined && report.sealed.length > 0)
    await appendFile(input.publish, report.sealed.map(publishedAnchorLine).join(''), { mode: 0o644 });
  return {
    sealed: report.sealed.length,
    rows: report.sealed.reduce((sum, anchor) => sum + anchor.row_count, 0),
    horizon: report.horizon,
    head: report.head === null ? null : { anchor_no: report.head.anchor_no, anchor_sha256: report.head.anchor_sha256 },
    anchors: report.sealed.map((anchor) => ({
      anchor_no: anchor.anchor_no,
      period: anchor.period,
      row_count: anchor.row_count,
      anchor_sha256: anchor.anchor_sha256,
      signed: anchor.signature !== null,
    })),
    published: input.publish ?? null,
  };
}
