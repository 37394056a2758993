import type { Client } from '@temporalio/client';
import { auditDigest, resultDigest } from '../../contract/bindings.js';
import type { DecisionKey } from '../../decisions/keys.js';
import type { StoredAudit, ToolStore } from '../../store/index.js';
import { decideApproval } from '../approve.js';
import { historyLookup } from '../audit-history.js';
import { inspectCalls } from '../inspect.js';
import { maskCredentials } from '../mask-credentials.js';
import { listPendingApprovals } from '../pending.js';
import { resolveOutcome } from '../resolve.js';
import type { AuditDigestCheck, ConsoleBackend, PendingCall } from './console-backend.js';

/** How the console reaches Temporal and the store, and the key it signs with (the CLI's: `readDecisionKeys`). */
export interface ConsoleConnections {
  readonly client: Client;
  readonly store: ToolStore;
  readonly signingKey: DecisionKey | null;
}

/**
 * The console's backend on a real server and store: the inbox is `pending` (what the worker recorded, confirmed by
 * the workflow) and `unsettled`; decisions are `approve`/`reject` and `resolve`, signed with the CLI's key.
 */
export function storeBackend({ client, store, signingKey }: ConsoleConnections): ConsoleBackend {
  return {
    inbox: async () => {
      const [{ workflows }, unsettled] = await Promise.all([
        listPendingApprovals(client, store),
        store.listUnsettled(),
      ]);
      const pending: PendingCall[] = [];
      for (const run of workflows) {
        if (run.approvals.length === 0) continue;
        const [evidence, audits] = await Promise.all([
          store.listEvidence({ workflowId: run.workflowId }),
          store.listAudits({ workflowId: run.workflowId }),
        ]);
        const untrusted = audits.flatMap((audit) => audit.modelResult.untrusted_content);
        for (const approval of run.approvals) pending.push({ approval, evidence, untrusted });
      }
      const unreadable = workflows.flatMap((run) =>
        run.error === null ? [] : [{ workflowId: run.workflowId, runId: run.runId, error: maskCredentials(run.error) }],
      );
      return { pending, unreadable, unsettled };
    },
    decide: (input) => decideApproval(client, store, input, signingKey),
    resolve: (input) => resolveOutcome(client, input, signingKey),
    call: async (filter) => {
      const inspected = await inspectCalls(store, filter);
      const attempts = inspected.calls.flatMap((call) => call.attempts);
      const keys = [...new Set(inspected.calls.map((call) => call.idempotencyKey))];
      const [inHistory, reconciliations] = await Promise.all([
        historyDigests(client, attempts),
        Promise.all(keys.map((key) => store.getReconciliation(key))),
      ]);
      return {
        inspected,
        checks: attempts.map((attempt) => checkDigests(attempt, inHistory.get(attempt.auditId))),
        reconciliations: reconciliations.filter((record) => record !== null),
      };
    },
  };
}

/** The `audit_sha256` each audit's reference carries in its run's history (read as `verify` reads it), by audit id. */
async function historyDigests(client: Client, audits: readonly StoredAudit[]): Promise<ReadonlyMap<string, string>> {
  const history = historyLookup(client);
  const runs = new Map(
    audits.flatMap((audit) =>
      audit.runId === null
        ? []
        : [[JSON.stringify([audit.workflowId, audit.runId]), [audit.workflowId, audit.runId] as const]],
    ),
  );
  const digests = new Map<string, string>();
  for (const [workflowId, runId] of runs.values()) {
    for (const { ref } of (await history.references(workflowId, runId)) ?? [])
      if (ref.audit_sha256 !== undefined) digests.set(ref.audit_id, ref.audit_sha256);
  }
  return digests;
}

/** Recomputes an attempt's record and result digests (the store checked them on read too; this shows the operator). */
function checkDigests(stored: StoredAudit, inHistory: string | undefined): AuditDigestCheck {
  const matches = (compute: () => string, recorded: string | undefined) => {
    try {
      return compute() === recorded;
    } catch {
      return false;
    }
  };
  return {
    auditId: stored.auditId,
    attempt: stored.attempt,
    auditSha256: stored.auditSha256,
    auditDigestMatches: matches(() => auditDigest(stored.audit), stored.auditSha256),
    resultDigestMatches: matches(() => resultDigest(stored.modelResult), stored.audit.bindings.result_sha256),
    history: inHistory === undefined ? 'absent' : inHistory === stored.auditSha256 ? 'matches' : 'differs',
  };
}
