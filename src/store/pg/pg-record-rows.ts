// The column values `recordExecution` writes for one attempt, shared by its one-statement and transactional paths.
import type { AuditRef, RecordExecutionInput } from '../ledger.js';
import { toCanonicalText } from '../canonical-text.js';
import { queryCopy } from './query-copy.js';
import type { Queryable } from './sql-runner.js';

/** One attempt after its checks: the canonical texts whose digests were verified, and its reference. */
export interface PreparedRecord {
  readonly input: RecordExecutionInput;
  readonly workflowId: string;
  readonly runId: string | null;
  readonly auditJson: string;
  readonly modelResultJson: string;
  readonly ref: AuditRef;
  readonly now: Date;
}

/** `ttc_audit`'s 17 written columns in insert order (`$1` … `$17` of both paths' audit insert; seq and xact are stamped by the database). */
export function auditColumnValues(prepared: PreparedRecord): unknown[] {
  const { input, workflowId, runId, ref, auditJson, modelResultJson, now } = prepared;
  const record = input.execution.audit;
  return [
    record.audit_id,
    workflowId,
    runId,
    record.call_id,
    record.attempt,
    record.idempotency_key,
    queryCopy(record.tool),
    record.status,
    record.error_code === null ? null : queryCopy(record.error_code),
    ref.request_sha256,
    ref.result_sha256,
    ref.call_binding_sha256,
    ref.audit_sha256,
    auditJson,
    modelResultJson,
    now,
    record.principal_ref,
  ];
}

/**
 * The evidence rows as parallel arrays for one `unnest`. `supports` is a text array per row, and Postgres arrays
 * cannot be ragged, so all rows' supports are flattened into one array and each row keeps its 1-based slice bounds.
 */
export interface EvidenceColumnArrays {
  readonly evidenceIds: string[];
  readonly kinds: string[];
  readonly locators: string[];
  readonly supports: string[];
  readonly supportsFrom: number[];
  readonly supportsTo: number[];
  readonly quotes: (string | null)[];
  readonly observedAts: (string | null)[];
  readonly sources: string[];
  readonly recordJsons: string[];
}

/** The evidence rows of one attempt; an item's source is the one its tool declared for it, else the result's. */
export function evidenceColumnArrays(input: RecordExecutionInput): EvidenceColumnArrays {
  const { modelResult, evidenceSources } = input.execution;
  const columns: EvidenceColumnArrays = {
    evidenceIds: [],
    kinds: [],
    locators: [],
    supports: [],
    supportsFrom: [],
    supportsTo: [],
    quotes: [],
    observedAts: [],
    sources: [],
    recordJsons: [],
  };
  for (const item of modelResult.evidence) {
    const source = evidenceSources[item.evidence_id] ?? modelResult.provenance.source_label;
    columns.evidenceIds.push(item.evidence_id);
    columns.kinds.push(queryCopy(item.kind));
    columns.locators.push(queryCopy(item.locator));
    columns.supportsFrom.push(columns.supports.length + 1);
    columns.supports.push(...item.supports.map(queryCopy));
    columns.supportsTo.push(columns.supports.length);
    columns.quotes.push(item.quote === undefined ? null : queryCopy(item.quote));
    columns.observedAts.push(item.observed_at ?? null);
    columns.sources.push(queryCopy(source));
    columns.recordJsons.push(toCanonicalText({ ...item, source }, 'evidence'));
  }
  return columns;
}

/** {@link EvidenceColumnArrays} in the order {@link insertEvidenceSql} numbers them. */
export function evidenceArrayValues(columns: EvidenceColumnArrays): unknown[] {
  const {
    evidenceIds,
    kinds,
    locators,
    supportsFrom,
    supportsTo,
    quotes,
    observedAts,
    sources,
    recordJsons,
    supports,
  } = columns;
  return [evidenceIds, kinds, locators, supportsFrom, supportsTo, quotes, observedAts, sources, recordJsons, supports];
}

/** Where {@link insertEvidenceSql} takes its values: SQL expressions for the per-attempt ones, a parameter number for the first array. */
export interface EvidenceSqlSources {
  /** Names the table (schema-qualified). */
  readonly db: Queryable;
  readonly workflowId: string;
  readonly callId: string;
  readonly auditId: string;
  readonly recordedAt: string;
  /** The relation whose rows gate the insert (`FROM <gate>, unnest(…)`), or `null` for none. */
  readonly gate: string | null;
  /** The parameter number of the first of the 10 arrays of {@link evidenceArrayValues}. */
  readonly firstArray: number;
}

/**
 * One `INSERT … SELECT … FROM unnest(…)` of all evidence rows of an attempt; an existing row is kept (the table's
 * insert trigger skips an item already recorded for the call: migration 006).
 */
export function insertEvidenceSql(sources: EvidenceSqlSources): string {
  const a = (offset: number) => `$${sources.firstArray + offset}`;
  return `INSERT INTO ${sources.db.table('ttc_evidence')} (workflow_id, call_id, evidence_id, audit_id, kind, locator, supports, quote, observed_at, source, record_json, recorded_at)
    SELECT ${sources.workflowId}, ${sources.callId}, e.evidence_id, ${sources.auditId}, e.kind, e.locator, (${a(9)}::text[])[e.supports_from:e.supports_to],
           e.quote, e.observed_at, e.source, e.record_json, ${sources.recordedAt}
      FROM ${sources.gate === null ? '' : `${sources.gate}, `}unnest(${a(0)}::text[], ${a(1)}::text[], ${a(2)}::text[], ${a(3)}::int[], ${a(4)}::int[], ${a(5)}::text[], ${a(6)}::timestamptz[], ${a(7)}::text[], ${a(8)}::text[])
           AS e(evidence_id, kind, locator, supports_from, supports_to, quote, observed_at, source, record_json)`;
}
