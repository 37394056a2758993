// What `verify` reports: findings (the trail does not prove what it should: exit 1) and notes (what it proves, and
// what it could not check). Snake case, as printed by `tool-contract verify --json`.

/** Something wrong: a row, segment, anchor, artifact or history reference that does not match what was sealed. */
export type TrailFinding =
  /** A row's stored bytes or columns disagree with its own digests or record (`field` names which). */
  | { readonly kind: 'row_altered'; readonly audit_id: string; readonly field: string }
  /**
   * A row of a sealed segment whose leaf the anchor does not hold: `changed` where a sealed row stood (rewritten with
   * its digest, re-dated, renumbered, moved), `added` where none did (inserted).
   */
  | {
      readonly kind: 'row_not_as_sealed';
      readonly anchor_no: number;
      readonly audit_id: string;
      readonly seq: string;
      readonly how: 'changed' | 'added';
    }
  /** A sealed leaf without its row: the `position`th of its segment, between the rows `after` and `before` (where they are there). */
  | {
      readonly kind: 'row_missing';
      readonly anchor_no: number;
      readonly position: number;
      readonly after: string | null;
      readonly before: string | null;
    }
  /** The rows are all there but not in the order they were sealed in. */
  | { readonly kind: 'rows_reordered'; readonly anchor_no: number }
  /** A row written by a transaction the seals cover, which no segment holds. */
  | { readonly kind: 'row_unanchored'; readonly audit_id: string; readonly seq: string; readonly xact: string }
  /** The leaves kept with an anchor do not make its root (or are not `row_count` of them). */
  | { readonly kind: 'segment_leaves'; readonly anchor_no: number }
  /** An anchor whose digest is not the digest of its own fields. */
  | { readonly kind: 'anchor_digest'; readonly anchor_no: number }
  /** An anchor that does not name the previous one's digest. */
  | { readonly kind: 'chain_broken'; readonly anchor_no: number }
  /** Anchors not numbered 1..n, or whose transaction ranges are not contiguous. */
  | { readonly kind: 'anchor_sequence'; readonly anchor_no: number; readonly problem: 'numbering' | 'range' }
  /** An anchor that claims to seal transactions that had not ended (a seal can never do that). */
  | { readonly kind: 'anchor_unfinished'; readonly anchor_no: number }
  /** With verifying keys: an anchor without a valid signature of one of them. */
  | {
      readonly kind: 'anchor_signature';
      readonly anchor_no: number;
      readonly problem: 'unsigned' | 'unknown_key' | 'bad_signature';
    }
  /** An anchor published outside the database that the database lacks, or holds differently. */
  | { readonly kind: 'published_anchor'; readonly anchor_no: number; readonly problem: 'missing' | 'differs' }
  /** An artifact body an audit names that is gone (not erased, purged or retired) or no longer hashes to its name. */
  | {
      readonly kind: 'artifact';
      readonly audit_id: string;
      readonly sha256: string;
      readonly problem: 'missing' | 'altered';
    }
  /** A reference in a workflow's Temporal history whose audit row is gone, or whose digests differ from the row's. */
  | {
      readonly kind: 'history';
      readonly workflow_id: string;
      readonly run_id: string;
      readonly audit_id: string;
      readonly problem: 'missing' | 'differs';
      readonly field?: string;
    }
  /** An export file whose lines are not what its manifest says (cut short, edited, or not an export). */
  | { readonly kind: 'export_file'; readonly problem: string; readonly line?: number };

/** What verify establishes or could not check, beyond findings; not a failure (except `unsealed` with `--strict`). */
export type TrailNote =
  /** Rows newer than the last seal: their integrity rests on the row digests (and history) until the next seal. */
  | { readonly kind: 'unsealed'; readonly rows: number; readonly oldest_recorded_at: string | null }
  /** An audited attempt its run's history does not reference (its activity may have failed after recording it). */
  | {
      readonly kind: 'not_in_history';
      readonly workflow_id: string;
      readonly run_id: string;
      readonly audit_id: string;
    }
  /** A run whose history Temporal no longer has (retention of the namespace) or never had. */
  | { readonly kind: 'history_not_found'; readonly workflow_id: string; readonly run_id: string }
  /** What an erasure removed from the audits verified here: the digests stay, the bodies are gone. */
  | {
      readonly kind: 'erased';
      readonly erasure_id: string;
      readonly erased_at: string;
      readonly erased_by: string;
      readonly scope: string;
      readonly audit_ids: number;
      readonly artifacts: readonly string[];
      readonly memory_rows: number;
    }
  /** An artifact body removed by `ttc_purge_before`. */
  | { readonly kind: 'purged'; readonly sha256: string; readonly purged_at: string; readonly purged_by: string }
  /** Months retention dropped: their anchors stay in the chain, their rows are gone. */
  | {
      readonly kind: 'retired';
      readonly retired_before: string;
      readonly retired_at: string;
      readonly retired_by: string;
      readonly anchors: number;
      readonly audit_rows: number;
    };
