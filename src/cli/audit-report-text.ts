import type { TrailFinding, TrailNote } from '../store/index.js';
import type { VerifyOutput } from './audit-verify.js';

/** `verify`'s report for a person: the verdict, what was looked at, each finding and note on a line of its own. */
export function trailReportText(output: VerifyOutput): string {
  const scope = [
    output.scope.since === undefined ? null : `since ${output.scope.since}`,
    output.scope.until === undefined ? null : `until ${output.scope.until}`,
    output.scope.workflowId === undefined ? null : `workflow ${output.scope.workflowId}`,
  ].filter((part) => part !== null);
  const { counts } = output;
  const lines = [
    `${output.passed ? 'verified' : 'NOT VERIFIED'}: the ${output.checked === 'file' ? 'export file' : 'database'}, ${scope.length === 0 ? 'everything' : scope.join(', ')}; Temporal history ${output.history === 'checked' ? 'compared' : 'not compared'}${output.strict ? ' (strict)' : ''}`,
    `head: ${output.head === null ? 'no anchor yet' : `anchor ${output.head.anchor_no} ${output.head.anchor_sha256}`}`,
    `checked: ${counts.rows} rows, ${counts.segments} segments, ${counts.anchors} anchors (${counts.retired_anchors} of retired months), ${counts.unsealed_rows} unsealed rows, ${counts.runs} runs against history`,
    ...(output.findings.length === 0
      ? ['findings: none']
      : [`findings (${output.findings.length}):`, ...output.findings.map((finding) => `  ${findingText(finding)}`)]),
    ...(output.notes.length === 0
      ? []
      : [`notes (${output.notes.length}):`, ...output.notes.map((note) => `  ${noteText(note)}`)]),
  ];
  return lines.join('\n');
}

function findingText(finding: TrailFinding): string {
  switch (finding.kind) {
    case 'row_altered':
      return `altered: row ${finding.audit_id} no longer matches its own ${finding.field}`;
    case 'row_not_as_sealed':
      return finding.how === 'changed'
        ? `altered: row ${finding.audit_id} (seq ${finding.seq}) is not the row anchor ${finding.anchor_no} sealed (rewritten with its digest, re-dated, renumbered or moved)`
        : `inserted: row ${finding.audit_id} (seq ${finding.seq}) was added to the segment of anchor ${finding.anchor_no} after it was sealed`;
    case 'row_missing':
      return `missing: row ${finding.position + 1} of anchor ${finding.anchor_no} is gone (after ${finding.after ?? 'the start'}, before ${finding.before ?? 'the end'})`;
    case 'rows_reordered':
      return `reordered: the rows of anchor ${finding.anchor_no} are not in the order they were sealed in`;
    case 'row_unanchored':
      return `unanchored: row ${finding.audit_id} (transaction ${finding.xact}) lies in a sealed range that no anchor holds`;
    case 'segment_leaves':
      return `altered: the leaves kept with anchor ${finding.anchor_no} do not make its root`;
    case 'anchor_digest':
      return `altered: anchor ${finding.anchor_no} does not hash to its digest`;
    case 'chain_broken':
      return `chain broken: anchor ${finding.anchor_no} does not name the previous anchor's digest`;
    case 'anchor_sequence':
      return finding.problem === 'numbering'
        ? `chain broken: anchor ${finding.anchor_no} is out of sequence (an anchor was removed or inserted)`
        : `chain broken: anchor ${finding.anchor_no} does not continue the previous transaction range`;
    case 'anchor_unfinished':
      return `forged: anchor ${finding.anchor_no} claims transactions that had not ended`;
    case 'anchor_signature':
      return `signature: anchor ${finding.anchor_no} is ${finding.problem === 'unsigned' ? 'not signed' : finding.problem === 'unknown_key' ? 'signed by an unknown key' : 'not signed by the key it names'}`;
    case 'published_anchor':
      return `published: anchor ${finding.anchor_no} ${finding.problem === 'missing' ? 'is gone' : 'differs from the one published'}`;
    case 'artifact':
      return `artifact: the body ${finding.sha256} of ${finding.audit_id} is ${finding.problem === 'missing' ? 'gone (no erasure or purge removed it)' : 'no longer what its digest names'}`;
    case 'history':
      return finding.problem === 'missing'
        ? `missing: ${finding.audit_id}, which the history of ${finding.workflow_id} (run ${finding.run_id}) references, has no row`
        : `altered: ${finding.audit_id}'s ${finding.field ?? 'digests'} differ from the reference in the history of ${finding.workflow_id} (run ${finding.run_id})`;
    case 'export_file':
      return `export file${finding.line === undefined ? '' : ` (line ${finding.line})`}: ${finding.problem}`;
  }
}

function noteText(note: TrailNote): string {
  switch (note.kind) {
    case 'unsealed':
      return `unsealed: ${note.rows} rows recorded after the last seal${note.oldest_recorded_at === null ? '' : ` (oldest ${note.oldest_recorded_at})`}`;
    case 'not_in_history':
      return `not in history: ${note.audit_id} of ${note.workflow_id} (run ${note.run_id}) is not referenced by its run's history`;
    case 'history_not_found':
      return `no history: Temporal has no history for ${note.workflow_id} (run ${note.run_id})`;
    case 'erased':
      return `erased: ${note.erasure_id} at ${note.erased_at} by ${note.erased_by} (${note.scope}): ${note.artifacts.length} artifact bodies, ${note.memory_rows} memory rows of ${note.audit_ids} audits`;
    case 'purged':
      return `purged: artifact body ${note.sha256} at ${note.purged_at} by ${note.purged_by}`;
    case 'retired':
      return `retired: every month before ${note.retired_before}, at ${note.retired_at} by ${note.retired_by} (${note.anchors} anchors, ${note.audit_rows} rows)`;
  }
}
