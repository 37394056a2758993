import type { ModelMessage, PendingApproval } from '../../workflows/index.js';
import { compactJson, describeResult } from './describe-result.js';

/** What one poll of the running demo saw. */
export interface DemoSnapshot {
  readonly transcript: readonly ModelMessage[];
  readonly pending: readonly PendingApproval[];
  /** The reconciliation child of the refund, once it exists. */
  readonly reconciliation: {
    readonly workflowId: string;
    readonly state: string | null;
    readonly closed: boolean;
  } | null;
}

/**
 * Turns successive snapshots of the running demo into progress lines, each step printed once: model turns and the
 * calls they ask for, each tool result, approvals waiting, the reconciliation's states, the final answer.
 */
export class DemoProgress {
  private messagesSeen = 0;
  private turn = 0;
  private readonly approvalsSeen = new Set<string>();
  private reconcileSeen: string | null = null;

  private readonly approvalHint: (approval: PendingApproval) => string | null;

  constructor(approvalHint: (approval: PendingApproval) => string | null) {
    this.approvalHint = approvalHint;
  }

  /**
   * Lines for what is new in `snapshot`. Reconciliation lines come before new transcript lines: a snapshot whose
   * transcript was read last (see `takeSnapshot`) may already hold the refund's result, which the reconciliation
   * produced.
   */
  observe(snapshot: DemoSnapshot): string[] {
    const lines: string[] = [...this.reconciliationLines(snapshot.reconciliation)];
    for (const message of snapshot.transcript.slice(this.messagesSeen)) lines.push(...this.describeMessage(message));
    this.messagesSeen = Math.max(this.messagesSeen, snapshot.transcript.length);
    for (const approval of snapshot.pending) {
      if (this.approvalsSeen.has(approval.callId)) continue;
      this.approvalsSeen.add(approval.callId);
      lines.push(
        `  ⏸ ${approval.preview.tool} (${approval.callId}) waits for approval: ${compactJson(approval.preview.arguments)} · digest ${approval.preview.requestSha256.slice(0, 12)}…`,
      );
      const hint = this.approvalHint(approval);
      if (hint !== null) lines.push(hint);
    }
    return lines;
  }

  private reconciliationLines(reconciliation: DemoSnapshot['reconciliation']): string[] {
    if (reconciliation === null) return [];
    const lines: string[] = [];
    if (this.reconcileSeen === null) {
      lines.push(
        `  ↻ the refund's outcome is unknown (no answer before its timeout): reconciliation workflow ${reconciliation.workflowId} asks the provider by idempotency key`,
      );
    }
    const state = reconciliation.closed
      ? `settled, ${reconciliation.state ?? 'unknown'}`
      : (reconciliation.state ?? 'started');
    if (state !== this.reconcileSeen) lines.push(`  ↻ reconciliation: ${state}`);
    this.reconcileSeen = state;
    return lines;
  }

  private describeMessage(message: ModelMessage): string[] {
    switch (message.role) {
      case 'system':
        return [];
      case 'user':
        return [`customer: ${message.text}`];
      case 'assistant': {
        this.turn += 1;
        if (message.calls.length === 0) return [`[turn ${this.turn}] final answer: ${message.text ?? ''}`];
        return [
          `[turn ${this.turn}] model: ${message.text ?? '(no text)'}`,
          ...message.calls.map(
            (call) =>
              `  → ${call.name} ${call.malformed ? `(malformed: ${call.reason})` : compactJson(call.arguments)}`,
          ),
        ];
      }
      case 'tool':
        return [`  ← ${message.name}: ${describeResult(message.result)}`];
    }
  }
}
