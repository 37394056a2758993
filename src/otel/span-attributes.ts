import type { Attributes } from '@opentelemetry/api';
import type { ReconciliationStep, SettledToolCall } from '../../activities/call-telemetry.js';

/**
 * Attribute keys of the package's spans, all under `ttc.`. Public API (queries and dashboards name them). Values are
 * names, codes and ids the package derives — never arguments, results, or the principal.
 */
export const SPAN_ATTRIBUTES = Object.freeze({
  tool: 'ttc.tool',
  effect: 'ttc.effect',
  status: 'ttc.status',
  errorCode: 'ttc.error.code',
  delivery: 'ttc.delivery',
  outcome: 'ttc.outcome',
  attempt: 'ttc.attempt',
  callId: 'ttc.call_id',
  step: 'ttc.reconcile.step',
  finding: 'ttc.reconcile.finding',
});

/** The span name of one tool call attempt, `tool_call <tool>` (tool names are a bounded set). */
export function toolCallSpanName(tool: string): string {
  return `tool_call ${tool}`;
}

/** The span name of a reconciliation step, `tool_call.reconcile <tool>` or `tool_call.resolve <tool>`. */
export function reconciliationSpanName(step: ReconciliationStep): string {
  return `${step.kind === 'query' ? 'tool_call.reconcile' : 'tool_call.resolve'} ${step.tool}`;
}

export function toolCallAttributes(call: SettledToolCall): Attributes {
  return {
    [SPAN_ATTRIBUTES.tool]: call.tool,
    [SPAN_ATTRIBUTES.effect]: call.effect,
    [SPAN_ATTRIBUTES.status]: call.status,
    [SPAN_ATTRIBUTES.attempt]: call.attempt,
    [SPAN_ATTRIBUTES.callId]: call.callId,
    ...(call.errorCode === null ? {} : { [SPAN_ATTRIBUTES.errorCode]: call.errorCode }),
    ...(call.delivery === null ? {} : { [SPAN_ATTRIBUTES.delivery]: call.delivery }),
    ...(call.outcome === null ? {} : { [SPAN_ATTRIBUTES.outcome]: call.outcome }),
  };
}

export function reconciliationAttributes(step: ReconciliationStep): Attributes {
  return {
    [SPAN_ATTRIBUTES.tool]: step.tool,
    [SPAN_ATTRIBUTES.callId]: step.callId,
    [SPAN_ATTRIBUTES.step]: step.kind,
    [SPAN_ATTRIBUTES.finding]: step.finding,
    ...(step.attempt === null ? {} : { [SPAN_ATTRIBUTES.attempt]: step.attempt }),
  };
}
