import type { DecisionAnswer, DecisionRecord } from '../temporal/index.js';

/** One line naming a decision: what, by whom, how authenticated, when, and its id. */
export function describeDecision(record: DecisionRecord): string {
  const how = record.key_id === null ? record.method : `${record.method}, key ${record.key_id}`;
  return `${record.decision} by ${record.decided_by} (${how}) at ${record.decided_at}, decision ${record.decision_id}`;
}

/** Why a workflow did not take a decision, with the winner after a lost race. */
export function refusedBecause(answer: Extract<DecisionAnswer, { accepted: false }>): string {
  return answer.winner === null ? answer.reason : `${answer.reason}: ${describeDecision(answer.winner)}`;
}
