import type { AuditRecord } from '../audit-record.js';
import type { ModelResult } from '../model-result.js';

/** An oversized full result to be stored out of band (the model result carries only its reference). */
export interface ArtifactPayload {
  readonly sha256: string;
  readonly contentType: string;
  readonly bytes: number;
  readonly body: string;
}

/** Both projections of one call, plus what the host must persist next to them. */
export interface ToolExecution {
  readonly modelResult: ModelResult;
  readonly audit: AuditRecord;
  readonly artifacts: readonly ArtifactPayload[];
  /** Source label of every evidence id in the model result (for evidence rows in the store). */
  readonly evidenceSources: Readonly<Record<string, string>>;
}

/** The model-facing half of a successful call, before the audit is bound to it. */
export interface ShownResult {
  readonly modelResult: ModelResult;
  readonly artifacts: readonly ArtifactPayload[];
  readonly evidenceSources: Readonly<Record<string, string>>;
}
