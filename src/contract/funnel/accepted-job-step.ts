import type { AnyToolImplementation } from '../tool-spec.js';
import { MODEL_RESULT_SCHEMA_VERSION, type ModelResult } from '../model-result.js';
import type { Redaction } from '../redaction.js';
import { appliedArguments } from './applied-arguments.js';
import { contractFailure } from './contract-failure.js';
import { declaredProvenance } from './declared-provenance.js';
import { auditText, readDownstream } from './downstream-refs.js';
import type { FunnelState } from './funnel-state.js';
import { handlerOutput } from './handler-steps.js';
import { failLayer, proceed, withVerdict, type StepResult } from './step.js';
import type { StartedJob } from './tool-execution.js';

const RULE = 'accepted-job@1';
/** Keys of an accepted-job envelope: the job, and the downstream references for the audit. */
const JOB_ENVELOPE_KEYS = new Set(['accepted', 'downstream']);
const NOT_YET = 'job accepted: no output to check until it finishes';

/**
 * Protocol layer, for a handler that returned `{ accepted: { handle, pollAfterMs? } }`: an asynchronous job the
 * authoritative system accepted and has not finished (seed 000's `accepted`). The call ends here as `accepted` —
 * no data, no error, the side effect's outcome `unknown` until the job is polled — with the handle redacted for the
 * model and kept as given for the host (`ToolExecution.job`) and the audit (`downstream.status_ref`). Only a
 * side-effecting tool may start a job; a malformed one is an `OUTPUT_CONTRACT_VIOLATION`.
 */
export function acceptJob(state: FunnelState): StepResult {
  const output = handlerOutput(state);
  if (output === null || typeof output !== 'object' || Array.isArray(output) || !Object.hasOwn(output, 'accepted'))
    return proceed(state);
  const job = startedJob(state.tool, output as Record<string, unknown>);
  if (typeof job === 'string') return failLayer(state, 'protocol', RULE, contractFailure('protocol', job), job);

  const log: Redaction[] = [];
  const applied = appliedArguments(state, log);
  const modelResult: ModelResult = {
    schema_version: MODEL_RESULT_SCHEMA_VERSION,
    tool: state.tool.name,
    status: 'accepted',
    data: null,
    error: null,
    execution: { outcome: 'unknown', delivery: 'fresh', receipt: null },
    completeness: { state: 'unknown', returned_items: 0, available_items: null, next: null },
    provenance: declaredProvenance(state),
    evidence: [],
    untrusted_content: [],
    conflicts: [],
    warnings: [],
    job: { handle: state.redactor.text(job.handle, '/job/handle', log), poll_after_ms: job.pollAfterMs },
    ...(applied === undefined ? {} : { applied_arguments: applied as ModelResult['applied_arguments'] }),
  };
  const reported = (output as { downstream?: { requestRef?: unknown } }).downstream;
  const downstream = { ...readDownstream(reported, state.downstream), statusRef: job.handle };
  let finished = withVerdict(state, { layer: 'protocol', outcome: 'passed', rule_version: RULE });
  for (const layer of ['schema', 'semantics', 'evidence'] as const)
    finished = withVerdict(finished, { layer, outcome: 'skipped', rule_version: 'n/a', reason: NOT_YET });
  finished = withVerdict(finished, {
    layer: 'side_effect',
    outcome: 'warned',
    rule_version: RULE,
    reason: 'job accepted; its outcome is unknown until it finishes',
  });
  finished = withVerdict(finished, {
    layer: 'redaction',
    outcome: log.length > 0 ? 'warned' : 'passed',
    rule_version: `redaction@1;fields=${state.tool.revisions.policy}`,
  });
  return {
    kind: 'finish',
    state: {
      ...finished,
      downstream,
      redactions: [...state.redactions, ...log],
      shown: { modelResult, artifacts: [], evidenceSources: {}, job },
    },
  };
}

/** The job the envelope names, or why it cannot be one. */
function startedJob(tool: AnyToolImplementation, output: Record<string, unknown>): StartedJob | string {
  if (tool.effect === 'read') return 'a read tool cannot start a job';
  const extra = Object.keys(output).filter((key) => !JOB_ENVELOPE_KEYS.has(key));
  if (extra.length > 0) return `undeclared keys beside accepted: ${extra.join(', ')}`;
  const { handle, pollAfterMs } = (output['accepted'] ?? {}) as { handle?: unknown; pollAfterMs?: unknown };
  const bounded = auditText(handle);
  if (bounded === null || bounded.trim() === '') return 'accepted needs a non-empty handle';
  if (
    pollAfterMs !== undefined &&
    (typeof pollAfterMs !== 'number' || !Number.isFinite(pollAfterMs) || pollAfterMs < 0)
  )
    return 'accepted.pollAfterMs must be a non-negative number';
  return {
    handle: bounded,
    pollAfterMs: pollAfterMs === undefined ? null : Math.min(Math.round(pollAfterMs), Number.MAX_SAFE_INTEGER),
  };
}
