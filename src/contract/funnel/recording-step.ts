import { jsonSafe } from '../call-failure.js';
import { canonicalJson } from '../canonical-json.js';
import { inspectJson } from '../json-shape.js';
import { isToolError } from '../tool-error.js';
import { utf8ByteLength } from '../truncation.js';
import type { FunnelState, HandlerRun } from './funnel-state.js';
import { overRawSizeGate } from './raw-size-gate.js';
import { proceed, type StepResult } from './step.js';
import type { ArtifactPayload } from './tool-execution.js';

/** `schema` of a recorded call: the validated arguments and what the handler returned or threw, redacted. */
export const RECORDED_CALL_SCHEMA = 'ttc.recorded-call.v1';

/** Content type of a recorded call's artifact. */
export const RECORDED_CALL_CONTENT_TYPE = 'application/vnd.ttc.recorded-call+json';

/** What the handler did, as a recording (and a golden case) keeps it: its envelope, or the code it threw. */
export type RecordedHandlerRun =
  | { readonly output: unknown }
  /** `code` is `null` for a throw that was not a `ToolError` (it maps to `TOOL_ERROR`). */
  | { readonly thrown: { readonly code: string | null; readonly details: unknown } };

/** One recorded call: the artifact body of `recordRawOutput`. */
export interface RecordedCall {
  readonly schema: typeof RECORDED_CALL_SCHEMA;
  readonly arguments: unknown;
  readonly handler: RecordedHandlerRun;
}

/**
 * For a tool defined with `recordRawOutput: true`: keeps what its handler returned or threw, with the validated
 * arguments, as an artifact (redacted like anything a model could see, since a recorded case may be shown and
 * shared), so the call can be replayed later as a golden case. The raw upstream bytes are not kept (the audit has
 * their digest). Recording never changes the call's outcome: a value that cannot be recorded safely — not plain
 * JSON, deeper than the budget allows, or over the raw size gate — is simply not recorded.
 */
export function recordHandlerRun(state: FunnelState): StepResult {
  if (state.tool.recordRawOutput !== true || state.handler === null) return proceed(state);
  return proceed(state, { recording: recordingOf(state, state.handler.settled) });
}

function recordingOf(state: FunnelState, settled: HandlerRun['settled']): ArtifactPayload | null {
  try {
    const document: RecordedCall = {
      schema: RECORDED_CALL_SCHEMA,
      arguments: state.arguments,
      handler: recordedRun(settled),
    };
    const shape = inspectJson(document, state.tool.budget.maxDepth + 4);
    if (!shape.ok || overRawSizeGate(shape.size, state.tool.budget) !== null) return null;
    const body = canonicalJson(state.redactor.value(document, '', []));
    return { sha256: state.sha256(body), bytes: utf8ByteLength(body), contentType: RECORDED_CALL_CONTENT_TYPE, body };
  } catch {
    return null;
  }
}

function recordedRun(settled: HandlerRun['settled']): RecordedHandlerRun {
  if ('thrown' in settled) {
    const { thrown } = settled;
    return isToolError(thrown)
      ? { thrown: { code: thrown.code, details: jsonSafe(thrown.details) } }
      : { thrown: { code: null, details: {} } };
  }
  const { returned } = settled;
  if (returned === null || typeof returned !== 'object' || Array.isArray(returned)) return { output: returned };
  // The upstream bytes may be binary and are digested in the audit; everything else is kept as returned.
  return { output: Object.fromEntries(Object.entries(returned).filter(([key]) => key !== 'rawResponse')) };
}
