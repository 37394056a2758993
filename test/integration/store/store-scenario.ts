import type { ApprovalRequest } from '../../../src/store/approval-requests.js';
import { isStoreError } from '../../../src/store/store-error.js';
import type { ToolStore } from '../../../src/store/tool-store.js';
import { ordersGet, paymentsCharge, runCall } from '../../../testkit/store-tools.js';

/**
 * Runs one scenario over every kind of write and returns what a caller can observe: result kinds, versions, decisions
 * and error codes. Two stores that return the same list behave alike (the parity test; the named-schema test).
 */
export async function storeScenario(store: ToolStore): Promise<unknown[]> {
  const seen: unknown[] = [];
  const observe = async (work: () => Promise<unknown>, pick: (value: never) => unknown) => {
    try {
      seen.push(pick((await work()) as never));
    } catch (error) {
      seen.push(isStoreError(error) ? `${error.code}/${error.reason}` : `thrown: ${String(error)}`);
    }
  };
  const read = await runCall(ordersGet, { orderId: 'o-1' }, { workflowId: 'wf', callId: 'c1' });
  const pay = await runCall(
    paymentsCharge,
    { amount: 5, mode: 'commit' },
    { workflowId: 'wf', callId: 'c2', idempotencyKey: 'k-pay' },
  );
  const payOther = await runCall(
    paymentsCharge,
    { amount: 6, mode: 'commit' },
    { workflowId: 'wf', callId: 'c3', idempotencyKey: 'k-pay' },
  );
  const unknown = await runCall(
    paymentsCharge,
    { amount: 7, mode: 'no_receipt' },
    { workflowId: 'wf', callId: 'c4', idempotencyKey: 'k-unknown' },
  );
  const claim = (e: typeof pay) => ({
    idempotencyKey: e.audit.idempotency_key,
    requestSha256: e.audit.bindings.request_sha256,
    tool: e.audit.tool,
    callId: e.audit.call_id,
    workflowId: 'wf',
  });
  const kind = (r: { kind: string; state?: string; modelResult?: { execution: { delivery: string } } }) => [
    r.kind,
    r.state ?? null,
    r.modelResult?.execution.delivery ?? null,
  ];

  await observe(
    () => store.recordExecution({ execution: read, workflowId: 'wf', runId: null }),
    (r: { audit_id: string }) => r.audit_id,
  );
  // Filed under a workflow its audit does not name: refused before anything is written.
  const elsewhere = await runCall(ordersGet, { orderId: 'o-2' }, { workflowId: 'wf-named', callId: 'c9' });
  await observe(
    () => store.recordExecution({ execution: elsewhere, workflowId: 'wf', runId: null }),
    () => 'recorded',
  );
  await observe(
    () => store.listAudits({ workflowId: 'wf' }),
    (rows: unknown[]) => rows.length,
  );
  await observe(() => store.claimIdempotencyKey(claim(pay)), kind);
  await observe(() => store.claimIdempotencyKey(claim(pay)), kind);
  await observe(
    () => store.recordExecution({ execution: pay, workflowId: 'wf', runId: null }),
    (r: { result_sha256: string }) => r.result_sha256,
  );
  await observe(() => store.claimIdempotencyKey(claim(pay)), kind);
  await observe(() => store.claimIdempotencyKey(claim(payOther)), kind);
  await observe(
    () => store.recordExecution({ execution: payOther, workflowId: 'wf', runId: null }),
    () => 'recorded',
  );
  await observe(
    () => store.recordExecution({ execution: unknown, workflowId: 'wf', runId: null }),
    () => 'recorded',
  );
  await observe(() => store.claimIdempotencyKey(claim(unknown)), kind);

  const ev = read.modelResult.evidence[0]!.evidence_id;
  const patch = {
    patchId: 'p1',
    workflowId: 'wf',
    key: 'k',
    value: { a: 1 },
    evidenceIds: [ev],
    source: 'orders-db',
    observedAt: null,
    retrievedAt: '2026-11-30T12:00:00Z',
    expectedVersion: 0,
    callId: 'c1',
  };
  const version = (r: { applied: boolean; version: number }) => [r.applied, r.version];
  await observe(() => store.applyStatePatch(patch), version);
  await observe(() => store.applyStatePatch(patch), version);
  await observe(() => store.applyStatePatch({ ...patch, value: { a: 2 } }), version);
  await observe(() => store.applyStatePatch({ ...patch, patchId: 'p2' }), version);
  await observe(() => store.applyStatePatch({ ...patch, patchId: 'p3', expectedVersion: 1, value: { a: 3 } }), version);
  await observe(
    () => store.applyStatePatch({ ...patch, patchId: 'p4', key: 'k2', evidenceIds: ['ev_0000000000000000'] }),
    version,
  );
  await observe(() => store.applyStatePatch({ ...patch, patchId: 'p5', key: 'k3', evidenceIds: [] }), version);
  await observe(() => store.applyStatePatch({ ...patch, patchId: 'p6', key: 'k4', source: 'elsewhere' }), version);
  await observe(
    () =>
      store.applyStatePatch({
        patchId: 'p7',
        workflowId: 'wf',
        key: 'k5',
        value: 1,
        evidenceIds: [ev],
        expectedVersion: 0,
        callId: 'c1',
      }),
    (r: { patch: { source: string; retrievedAt: string } }) => [r.patch.source, r.patch.retrievedAt],
  );
  await observe(
    () => store.getState('wf', 'k'),
    (r: { value: unknown; version: number }) => [r.value, r.version],
  );
  // The same patch id in another workflow (the same write run again for the same order) is that workflow's own patch.
  const again = await runCall(ordersGet, { orderId: 'o-1' }, { workflowId: 'wf-again', callId: 'c1' });
  await observe(
    () => store.recordExecution({ execution: again, workflowId: 'wf-again', runId: null }),
    () => 'recorded',
  );
  const patchAgain = { ...patch, workflowId: 'wf-again', evidenceIds: [again.modelResult.evidence[0]!.evidence_id] };
  await observe(
    () => store.applyStatePatch(patchAgain),
    (r: { applied: boolean; version: number; patch: { patchId: string } }) => [r.applied, r.version, r.patch.patchId],
  );
  await observe(() => store.applyStatePatch(patchAgain), version);
  await observe(
    () => store.getState('wf-again', 'k'),
    (r: { patchId: string; version: number }) => [r.patchId, r.version],
  );

  const memory = (
    memoryId: string,
    kind: 'user_explicit_statement' | 'model_inference' | 'external_content' | 'confirmed_fact',
    evidenceIds: string[] = [],
  ) =>
    store.proposeMemory({
      memoryId,
      subjectRef: 's',
      workflowId: 'wf',
      fact: memoryId,
      kind,
      evidenceIds,
      observedAt: null,
      confidence: null,
    });
  const decision = (r: { decision: string; reason: string }) => [r.decision, r.reason];
  await observe(() => memory('m1', 'user_explicit_statement'), decision);
  await observe(() => memory('m2', 'model_inference'), decision);
  await observe(() => memory('m3', 'external_content'), decision);
  await observe(() => memory('m4', 'confirmed_fact'), decision);
  await observe(() => memory('m5', 'confirmed_fact', [ev]), decision);
  await observe(
    () => store.confirmMemoryCandidate({ memoryId: 'm3', confirmedBy: 'u' }),
    (r: { status: string }) => r.status,
  );
  const secretFact = {
    memoryId: 'm6',
    subjectRef: 's',
    workflowId: 'wf',
    fact: `password=hunter2 and ghp_${'x1Y2z3'.repeat(6)}`,
    kind: 'user_explicit_statement',
    evidenceIds: [],
    observedAt: null,
    confidence: null,
  } as const;
  await observe(
    () => store.proposeMemory(secretFact),
    (r: { memory: { fact: string } }) => r.memory.fact,
  );
  await observe(
    () => store.proposeMemory(secretFact),
    (r: { memory: { fact: string } }) => r.memory.fact,
  );
  // A confirmation bound to a workflow confirms only that workflow's candidate; another's is as if absent.
  await observe(() => memory('m7', 'external_content'), decision);
  await observe(
    () => store.confirmMemoryCandidate({ memoryId: 'm7', confirmedBy: 'u', workflowId: 'wf-other' }),
    (r: { status: string }) => r.status,
  );
  await observe(
    () => store.confirmMemoryCandidate({ memoryId: 'm7', confirmedBy: 'u', workflowId: 'wf' }),
    (r: { status: string }) => r.status,
  );

  // Approval requests: written once (a retry gets the stored one), another request for the call is refused.
  const request = {
    workflowId: 'wf',
    runId: 'run-1',
    callId: 'c9',
    tool: 'bank.transfer',
    effect: 'write',
    arguments: { to_account: 'acct_1', amount_cents: 100, credentials: '[REDACTED: sensitive field]' },
    hidden: [{ path: '/credentials', reason: 'sensitive_field' }],
    requestSha256: 'a'.repeat(64),
    waitMs: 60_000,
  } as const;
  const shown = (r: ApprovalRequest) => [
    r.workflowId,
    r.runId,
    r.callId,
    r.tool,
    r.effect,
    r.arguments,
    r.hidden,
    r.requestSha256,
    Date.parse(r.expiresAt) - Date.parse(r.requestedAt),
  ];
  await observe(() => store.recordApprovalRequest(request), shown);
  await observe(() => store.recordApprovalRequest(request), shown);
  await observe(() => store.recordApprovalRequest({ ...request, requestSha256: 'b'.repeat(64) }), shown);
  await observe(
    () => store.recordApprovalRequest({ ...request, arguments: { ...request.arguments, amount_cents: 1 } }),
    shown,
  );
  await observe(() => store.recordApprovalRequest({ ...request, callId: 'c10', waitMs: 0 }), shown);
  await observe(() => store.recordApprovalRequest({ ...request, callId: 'c10', requestSha256: 'not a digest' }), shown);
  await observe(() => store.recordApprovalRequest({ ...request, callId: 'c10', effect: 'delete' as 'write' }), shown);
  await observe(() => store.recordApprovalRequest({ ...request, runId: 'run-2' }), shown);
  await observe(() => store.getApprovalRequest({ workflowId: 'wf', runId: 'run-1', callId: 'c9' }), shown);
  await observe(
    () => store.getApprovalRequest({ workflowId: 'wf', runId: 'run-3', callId: 'c9' }),
    (r: ApprovalRequest | null) => r,
  );
  const calls = (rs: ApprovalRequest[]) => rs.map((r) => [r.runId, r.callId]);
  await observe(() => store.listApprovalRequests({ at: new Date(), workflowId: 'wf' }), calls);
  await observe(() => store.listApprovalRequests({ at: new Date(), workflowId: 'wf-other' }), calls);
  await observe(() => store.listApprovalRequests({ at: new Date(Date.now() + 120_000) }), calls);
  // A call that recorded an attempt in that run no longer waits.
  const decided = await runCall(ordersGet, { orderId: 'o-9' }, { workflowId: 'wf', callId: 'c9' });
  await observe(
    () => store.recordExecution({ execution: decided, workflowId: 'wf', runId: 'run-1' }),
    () => 'recorded',
  );
  await observe(() => store.listApprovalRequests({ at: new Date(), workflowId: 'wf' }), calls);

  const rec = (r: { state: string; round: number; attempts: unknown[] }) => [r.state, r.round, r.attempts.length];
  await observe(
    () =>
      store.openReconciliation({
        idempotencyKey: 'k-unknown',
        workflowId: 'wf',
        callId: 'c4',
        tool: 'payments.charge',
        auditId: null,
      }),
    rec,
  );
  await observe(
    () =>
      store.recordReconciliationAttempt({ idempotencyKey: 'k-unknown', attempt: 1, finding: 'unknown', detail: null }),
    rec,
  );
  await observe(
    () =>
      store.settleReconciliation({
        idempotencyKey: 'k-unknown',
        outcome: 'not_committed',
        via: 'receipt',
        receiptExternalId: null,
        resolvedBy: null,
        note: null,
      }),
    rec,
  );
  await observe(() => store.claimIdempotencyKey(claim(unknown)), kind);
  await observe(
    () =>
      store.openReconciliation({
        idempotencyKey: 'k-unknown',
        workflowId: 'wf',
        callId: 'c4',
        tool: 'payments.charge',
        auditId: null,
      }),
    rec,
  );
  await observe(
    () => store.reconciliationMetrics(),
    (m: { unknownSideEffects: number; settled: number }) => [m.unknownSideEffects, m.settled],
  );
  await observe(
    () => store.countUnsettledByTool(),
    (byTool: Readonly<Record<string, number>>) => byTool,
  );
  await observe(
    () => store.getArtifact('0'.repeat(64)),
    () => 'found',
  );
  return seen;
}
