import type { JsonValue } from '../contract/json-value.js';

/**
 * A state change derived from tool results (SPEC §8). Idempotent by `patchId` within its workflow (another workflow's
 * patch of the same id is its own; see `storedPatchKey`); `expectedVersion` is the version
 * the writer read (0 = the key must not exist yet), so a stale writer gets a conflict instead of overwriting. Its
 * provenance (`source`, `observedAt`, `retrievedAt`) is the cited evidence's: left out, it is taken from the evidence;
 * given, it must be what the evidence says, or the patch is refused (`provenance_mismatch`).
 */
export interface StatePatchInput {
  readonly patchId: string;
  readonly workflowId: string;
  readonly key: string;
  /** Any value with a canonical JSON form; stored and returned exactly. */
  readonly value: unknown;
  /** Evidence ids from calls of the same workflow; at least one (a patch must be traceable to tool-result fields). */
  readonly evidenceIds: readonly string[];
  /** Label of the source the value rests on: a source of the cited evidence or of the calls that returned it. */
  readonly source?: string;
  /** When the fact was true at the source (ISO-8601): a time the cited evidence was observed, or `null` (unknown). */
  readonly observedAt?: string | null;
  /** When it was read (ISO-8601): a time a call that returned the cited evidence read it. */
  readonly retrievedAt?: string;
  readonly expectedVersion: number;
  /** The call whose result this patch is derived from. */
  readonly callId: string;
}

/** Outcome of a patch: `applied` false means this patch id was already applied (an idempotent retry). */
export interface StatePatchResult {
  readonly applied: boolean;
  /** The version this patch produced (`expectedVersion + 1`). */
  readonly version: number;
  readonly patch: StatePatchRecord;
}

/** A patch as stored: what changed, on what evidence, from which call. */
export interface StatePatchRecord {
  readonly patchId: string;
  readonly workflowId: string;
  readonly key: string;
  readonly value: JsonValue;
  readonly evidenceIds: readonly string[];
  readonly source: string;
  readonly observedAt: string | null;
  readonly retrievedAt: string;
  readonly version: number;
  readonly callId: string;
  readonly appliedAt: string;
}

/** The current value of one state key and the patch that set it. */
export interface StateEntry {
  readonly workflowId: string;
  readonly key: string;
  readonly value: JsonValue;
  readonly version: number;
  readonly evidenceIds: readonly string[];
  readonly source: string;
  readonly observedAt: string | null;
  readonly retrievedAt: string;
  readonly callId: string;
  readonly patchId: string;
  readonly updatedAt: string;
}
