import type { AnyToolImplementation } from '../tool-spec.js';
import type { Receipt } from '../model-result.js';
import { toIsoTimestamp } from '../time.js';
import { wellFormedPrefix } from '../truncation.js';
import type { FunnelState } from './funnel-state.js';
import { handlerOutput } from './handler-steps.js';
import { proceed, type StepResult } from './step.js';

/**
 * Reads a write's receipt from whatever the handler returned, before any check of that output can fail: a
 * committed write must keep its receipt (and never be reported as failed) whatever the funnel finds next.
 */
export function keepReceipt(state: FunnelState): StepResult {
  const output = handlerOutput(state);
  if (output === null || typeof output !== 'object' || Array.isArray(output)) return proceed(state);
  return proceed(state, { receipt: receiptOf(state.tool, (output as { receipt?: unknown }).receipt) });
}

/** The receipt a side-effecting tool's output carries, as the audit keeps it; `null` when there is none (or a read). */
export function receiptOf(tool: AnyToolImplementation, receipt: unknown): Receipt | null {
  if (tool.effect === 'read' || receipt === null || typeof receipt !== 'object') return null;
  const { externalId, committedAt } = receipt as { externalId?: unknown; committedAt?: unknown };
  if (typeof externalId !== 'string' || externalId.length === 0) return null;
  const committed = committedAt === undefined ? null : toIsoTimestamp(committedAt as string);
  // A receipt whose id has a lone surrogate still proves the commit: it is kept, with U+FFFD in place of the surrogate.
  return { external_id: wellFormedPrefix(externalId, 256), committed_at: committed };
}
