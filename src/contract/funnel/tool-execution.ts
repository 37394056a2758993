import type { AuditRecord } from '../audit-record.js';
import type { ModelResult } from '../model-result.js';

/** An oversized full result to be stored out of band (the model result carries only its reference). */
export interface ArtifactPayload {
  readonly sha256: string;
  readonly contentType: string;
  readonly bytes: number;
  readonly body: string;
}

/**
 * The job an accepted call started, exactly as the authoritative system named it: the host polls with this handle
 * (the model result shows it redacted, and a redacted handle may no longer name the job).
 */
export interface StartedJob {
  readonly handle: string;
  readonly pollAfterMs: number | null;
}

/** Both projections of one call, plus what the host must persist or act on next to them. */
export interface ToolExecution {
  readonly modelResult: ModelResult;
  readonly audit: AuditRecord;
  readonly artifacts: readonly ArtifactPayload[];
  /** Source label of every evidence id in the model result (for evidence rows in the store). */
  readonly evidenceSources: Readonly<Record<string, string>>;
  /** Set when the call is `accepted`. */
  readonly job?: StartedJob;
}

/** The model-facing half of a successful call, before the audit is bound to it. */
export interface ShownResult {
  readonly modelResult: ModelResult;
  readonly artifacts: readonly ArtifactPayload[];
  readonly evidenceSources: Readonly<Record<string, string>>;
  readonly job?: StartedJob;
}
