import type { ZodType } from 'zod';
import { AUDIT_SCHEMA_VERSION, type AuditRecord, type LayerOutcome, type ValidationLayer } from './audit-record.js';
import { computeBindings, principalRef, type TrustedCallInputs } from './bindings.js';
import { catalogFailure, describeThrown, failureFromThrown, jsonSafe, settleFailure, type CallFailure } from './call-failure.js';
import { canonicalJson } from './canonical-json.js';
import type { AnyToolDefinition, HandlerContext, ToolOutput } from './define-tool.js';
import { buildEvidence, danglingPointers, EvidenceError, type BuiltEvidence } from './evidence.js';
import { findUndeclaredKeys } from './exact-output.js';
import type { ExecutionContext } from './execution-context.js';
import { fitToBudget } from './fit-budget.js';
import { cutText, utf8ByteLength } from './truncation.js';
import { inspectJson } from './json-shape.js';
import { parsePointer, resolvePointer } from './json-pointer.js';
import {
  MODEL_RESULT_SCHEMA_VERSION,
  modelResultSchema,
  type Conflict,
  type Execution,
  type ModelResult,
  type Receipt,
  type Warning,
} from './model-result.js';
import { Redactor, type Redaction } from './redaction.js';
import { sha256Hex } from './sha256.js';
import { toIsoTimestamp } from './time.js';
import { buildUntrustedContent } from './untrusted-content.js';

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

/** Longest evidence locator shown to a model (a URI or a record path; anything longer is cut with a marker). */
const MAX_LOCATOR_CHARS = 2048;

/** Deepest argument object accepted before the input schema runs. */
export const MAX_ARGUMENT_DEPTH = 64;

const ENVELOPE_KEYS = new Set([
  'data',
  'observedAt',
  'resourceRevision',
  'sourceLabel',
  'evidence',
  'untrusted',
  'conflicts',
  'next',
  'availableItems',
  'appliedArguments',
  'receipt',
  'rawResponse',
  'downstream',
]);

/**
 * Runs one tool call through the whole funnel — input, handler, protocol, schema, semantics, evidence, side
 * effect, redaction, budget — and returns the model result and the audit record bound by digests.
 *
 * It never throws for anything the tool or its input does: every such case becomes a catalogued result.
 */
export async function executeTool(tool: AnyToolDefinition, rawArgs: unknown, ctx: ExecutionContext): Promise<ToolExecution> {
  const call = new ToolCall(tool, ctx);
  try {
    return await call.run(rawArgs);
  } catch (error) {
    // A defect in this package (or a hostile value defeating a guard) still ends as a catalogued result.
    return call.fail(catalogFailure('TOOL_ERROR', 'side_effect', { internal: describeThrown(error) }));
  }
}

/**
 * The failure projection of a call that never reached a handler (an unknown tool, a refused approval): the same
 * model result and audit shape as any other failure, so hosts handle one kind of result.
 */
export function failedExecution(tool: AnyToolDefinition, ctx: ExecutionContext, failure: CallFailure, rawArgs: unknown = null): ToolExecution {
  const call = new ToolCall(tool, ctx);
  call.recordArguments(rawArgs);
  return call.fail(failure);
}

/** The state of one call as it moves through the funnel. */
class ToolCall {
  private readonly now: () => number;
  private readonly startedAt: number;
  private readonly layers: LayerOutcome[] = [];
  private readonly redactions: Redaction[] = [];
  private readonly warnings: Warning[] = [];
  private readonly redactor: Redactor;
  private args: unknown = null;
  private rawArgs: unknown = null;
  private digestArgs: unknown = null;
  private handlerRan = false;
  private handlerMs: number | null = null;
  private receipt: Receipt | null = null;
  private rawSha256: string | null = null;
  private canonicalCache: { body: string; sha256: string; bytes: number } | null = null;
  private rawBytes: number | null = null;
  private downstream: { requestRef: string | null; statusRef: string | null } = { requestRef: null, statusRef: null };

  constructor(
    private readonly tool: AnyToolDefinition,
    private readonly ctx: ExecutionContext,
  ) {
    this.now = ctx.now ?? Date.now;
    this.startedAt = this.now();
    this.redactor = new Redactor({
      sensitiveFields: tool.sensitiveFields,
      protectedSubstrings: [ctx.idempotencyKey, ctx.operationId],
      protectedExact: [ctx.principal.tenant, ctx.principal.subject],
    });
  }

  async run(rawArgs: unknown): Promise<ToolExecution> {
    const inputFailure = this.validateInput(rawArgs);
    if (inputFailure) return this.fail(inputFailure);

    let output: unknown;
    const handlerStart = this.now();
    try {
      this.handlerRan = true;
      output = await this.tool.handler(this.args, this.handlerContext());
    } catch (thrown) {
      this.handlerMs = this.now() - handlerStart;
      return this.fail(failureFromThrown(this.tool, thrown));
    }
    this.handlerMs = this.now() - handlerStart;

    const envelope = this.checkEnvelope(output);
    if (!envelope.ok) return this.fail(envelope.failure);
    return this.validateOutput(envelope.output);
  }

  private validateInput(rawArgs: unknown): CallFailure | null {
    const rule = `input@${this.tool.revisions.input}`;
    const shape = inspectJson(rawArgs, MAX_ARGUMENT_DEPTH);
    if (!shape.ok) {
      this.digestArgs = { unrepresentable: shape.reason };
      return this.layerFailed('input', rule, catalogFailure('INVALID_ARGUMENTS', 'input', shape), `${shape.reason} at '${shape.path}'`);
    }
    this.digestArgs = rawArgs;
    this.rawArgs = rawArgs;
    const inputSchema = this.tool.input as ZodType;
    const parsed = inputSchema.safeParse(rawArgs);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((issue) => `${formatPath(issue.path)} (${issue.code})`);
      const message = `The arguments do not match the tool input schema: ${issues.join(', ')}`.slice(0, 500);
      return this.layerFailed('input', rule, catalogFailure('INVALID_ARGUMENTS', 'input', { issues }, { message }), issues.join('; '));
    }
    this.args = parsed.data;
    // The request digest is over the arguments that will run; a schema whose output is not JSON keeps the raw ones.
    if (inspectJson(parsed.data, MAX_ARGUMENT_DEPTH).ok) this.digestArgs = parsed.data;
    this.pass('input', rule);
    return null;
  }

  /** Records arguments for the request digest without validating them (for calls that never reach the input layer). */
  recordArguments(rawArgs: unknown): void {
    const shape = inspectJson(rawArgs, MAX_ARGUMENT_DEPTH);
    this.digestArgs = shape.ok ? rawArgs : { unrepresentable: shape.reason };
  }

  private handlerContext(): HandlerContext {
    const { callId, operationId, idempotencyKey, attempt, principal, signal } = this.ctx;
    return { callId, operationId, idempotencyKey, attempt, principal, now: this.now, ...(signal ? { signal } : {}) };
  }

  /** Protocol layer, part one: the handler's envelope is an object with only the declared keys. */
  private checkEnvelope(output: unknown): { ok: true; output: ToolOutput<unknown> } | { ok: false; failure: CallFailure } {
    const rule = 'envelope@1';
    if (output === null || typeof output !== 'object' || Array.isArray(output)) {
      return { ok: false, failure: this.layerFailed('protocol', rule, contractFailure('protocol', 'handler did not return an object'), 'not an object') };
    }
    const unknownKeys = Object.keys(output).filter((key) => !ENVELOPE_KEYS.has(key));
    const envelope = output as ToolOutput<unknown>;
    // Read the receipt before anything else can fail: a committed write must keep it whatever happens next.
    this.receipt = this.readReceipt(envelope.receipt);
    if (unknownKeys.length > 0 || !('data' in output)) {
      const why = unknownKeys.length > 0 ? `undeclared envelope keys: ${unknownKeys.join(', ')}` : 'missing data';
      return { ok: false, failure: this.layerFailed('protocol', rule, contractFailure('protocol', why), why) };
    }
    if (envelope.downstream) {
      this.downstream = { requestRef: stringOrNull(envelope.downstream.requestRef), statusRef: stringOrNull(envelope.downstream.statusRef) };
    }
    return { ok: true, output: envelope };
  }

  private readReceipt(receipt: unknown): Receipt | null {
    if (this.tool.effect === 'read' || receipt === null || typeof receipt !== 'object') return null;
    const { externalId, committedAt } = receipt as { externalId?: unknown; committedAt?: unknown };
    if (typeof externalId !== 'string' || externalId.length === 0) return null;
    const committed = committedAt === undefined ? null : toIsoTimestamp(committedAt as string);
    return { external_id: externalId.slice(0, 256), committed_at: committed };
  }

  private validateOutput(output: ToolOutput<unknown>): ToolExecution {
    const { tool } = this;
    // Protocol, part two: plain, bounded JSON before any recursive code sees it.
    const shape = inspectJson(output.data, tool.budget.maxDepth);
    const protocolRule = `json-shape@1;maxDepth=${tool.budget.maxDepth}`;
    if (!shape.ok) {
      return this.fail(this.layerFailed('protocol', protocolRule, contractFailure('protocol', shape), `${shape.reason} at '${shape.path}'`));
    }
    this.recordRaw(output);
    this.pass('protocol', protocolRule);

    const schemaRule = `output@${tool.revisions.output}`;
    const outputSchema = tool.output as ZodType;
    const parsed = outputSchema.safeParse(output.data);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((issue) => `${formatPath(issue.path)} (${issue.code})`);
      return this.fail(this.layerFailed('schema', schemaRule, contractFailure('schema', { issues }), issues.join('; ')));
    }
    const undeclared = findUndeclaredKeys(output.data, parsed.data);
    if (undeclared.length > 0) {
      return this.fail(this.layerFailed('schema', schemaRule, contractFailure('schema', { undeclared }), `undeclared keys: ${undeclared.join(', ')}`));
    }
    const data = parsed.data;
    this.pass('schema', schemaRule);

    const invariantFailure = this.checkInvariants(data);
    if (invariantFailure) return this.fail(invariantFailure);

    const evidence = this.checkEvidence(output, data);
    if (!evidence.ok) return this.fail(evidence.failure);

    if (tool.effect !== 'read') {
      if (this.receipt === null) {
        const failure = catalogFailure('OUTCOME_UNKNOWN', 'side_effect', { reason: 'write returned without a receipt' });
        return this.fail(this.layerFailed('side_effect', 'receipt@1', failure, 'no receipt from the authoritative system'));
      }
      this.pass('side_effect', 'receipt@1');
    } else this.skip('side_effect', 'read-only');

    return this.succeed(output, data, evidence);
  }

  private checkInvariants(data: unknown): CallFailure | null {
    for (const invariant of this.tool.invariants) {
      const rule = `invariant:${invariant.id}@${invariant.version}`;
      let verdict: boolean | string;
      try {
        verdict = invariant.check(data, this.args);
      } catch (error) {
        verdict = `invariant threw: ${describeThrown(error)['exception'] as string}`;
      }
      if (verdict !== true) {
        const reason = typeof verdict === 'string' ? verdict : 'returned false';
        return this.layerFailed('semantics', rule, catalogFailure('INVARIANT_VIOLATION', 'semantics', { invariant: rule, reason }), reason);
      }
    }
    if (this.tool.invariants.length > 0) this.pass('semantics', this.tool.invariants.map((i) => `invariant:${i.id}@${i.version}`).join(','));
    else this.skip('semantics', 'no invariants declared');
    return null;
  }

  private checkEvidence(
    output: ToolOutput<unknown>,
    data: unknown,
  ): { ok: true; evidence: BuiltEvidence[]; observedAt: string | null; conflicts: Conflict[] } | { ok: false; failure: CallFailure } {
    const { tool } = this;
    const rule = `evidence@1;policy=${tool.revisions.policy}`;
    const fail = (failure: CallFailure, reason: string) => ({ ok: false as const, failure: this.layerFailed('evidence', rule, failure, reason) });
    const sourceLabel = output.sourceLabel ?? tool.source.label;
    let evidence: BuiltEvidence[];
    try {
      evidence = buildEvidence(output.evidence ?? [], sourceLabel);
    } catch (error) {
      const reason = error instanceof EvidenceError ? error.message : 'malformed evidence';
      return fail(contractFailure('evidence', reason), reason);
    }
    const allowlist = tool.source.allowlist;
    const disallowed = [sourceLabel, ...evidence.map((item) => item.source)].filter((label) => allowlist && !allowlist.includes(label));
    if (disallowed.length > 0) {
      const reason = `sources not on the allowlist: ${[...new Set(disallowed)].join(', ')}`;
      return fail(catalogFailure('SOURCE_NOT_ALLOWED', 'evidence', { disallowed }), reason);
    }
    const dangling = danglingPointers(
      evidence.map((item) => item.evidence),
      data,
    );
    if (dangling.length > 0) return fail(contractFailure('evidence', { dangling }), `evidence pointers do not resolve: ${dangling.join(', ')}`);

    let observedAt: string | null = null;
    if (output.observedAt !== undefined) {
      observedAt = toIsoTimestamp(output.observedAt);
      if (observedAt === null) return fail(contractFailure('evidence', 'invalid observedAt'), 'invalid observedAt');
    }
    if (tool.freshness) {
      const { maxAgeMs, onStale } = tool.freshness;
      if (observedAt === null) {
        this.warnings.push({ code: 'FRESHNESS_UNKNOWN', message: 'The source did not say when this data was observed.' });
      } else {
        const ageMs = this.now() - Date.parse(observedAt);
        if (ageMs > maxAgeMs) {
          const reason = `data is ${ageMs} ms old; the tool allows ${maxAgeMs} ms`;
          if (onStale === 'fail') return fail(catalogFailure('STALE_DATA', 'evidence', { ageMs, maxAgeMs }), reason);
          this.warnings.push({ code: 'STALE_DATA', message: `This data may be out of date (older than ${maxAgeMs} ms).` });
        }
      }
    }
    const conflicts = this.buildConflicts(output, data);
    if (!conflicts.ok) return fail(contractFailure('evidence', conflicts.reason), conflicts.reason);
    this.pass('evidence', rule);
    return { ok: true, evidence, observedAt, conflicts: conflicts.conflicts };
  }

  private buildConflicts(output: ToolOutput<unknown>, data: unknown): { ok: true; conflicts: Conflict[] } | { ok: false; reason: string } {
    const conflicts: Conflict[] = [];
    for (const input of output.conflicts ?? []) {
      if (typeof input.field !== 'string' || !resolvePointer(data, input.field).found) {
        return { ok: false, reason: `conflict field '${String(input.field)}' does not resolve in data` };
      }
      const values: unknown = input.values;
      if (!Array.isArray(values) || values.length < 2 || !values.every(isConflictValue)) {
        return { ok: false, reason: `conflict on '${input.field}' needs at least two JSON values with sources` };
      }
      const rule = this.tool.aggregations?.[input.field];
      const conflict: Conflict = {
        field: input.field,
        values: values.map((v) => ({ value: v.value as Conflict['values'][number]['value'], source: v.source })),
        resolution: rule === undefined ? 'unresolved' : 'calculation',
      };
      if (rule !== undefined) conflict.rule = rule;
      conflicts.push(conflict);
    }
    if (conflicts.some((c) => c.resolution === 'unresolved')) {
      this.warnings.push({ code: 'CONFLICTING_SOURCES', message: 'Sources disagree on some fields; see conflicts.' });
    }
    return { ok: true, conflicts };
  }

  private succeed(
    output: ToolOutput<unknown>,
    data: unknown,
    checked: { evidence: BuiltEvidence[]; observedAt: string | null; conflicts: Conflict[] },
  ): ToolExecution {
    const { tool } = this;
    // Locators are often URLs (which can carry tokens) and quotes are free text: both are scrubbed and bounded.
    const evidence = checked.evidence.map((item) => {
      const path = `/evidence/${item.evidence.evidence_id}`;
      const scrubbed = {
        ...item.evidence,
        kind: this.scrub(item.evidence.kind, `${path}/kind`),
        locator: cutText(this.scrub(item.evidence.locator, `${path}/locator`), MAX_LOCATOR_CHARS),
      };
      if (item.evidence.quote !== undefined) {
        scrubbed.quote = cutText(this.scrub(item.evidence.quote, `${path}/quote`), tool.budget.maxTextChars);
      }
      return { ...item, evidence: scrubbed };
    });
    const untrusted = buildUntrustedContent(output.untrusted ?? []).map((item, i) => ({
      ...item,
      text: this.scrub(item.text, `/untrusted_content/${i}/text`),
      source: this.scrub(item.source, `/untrusted_content/${i}/source`),
    }));
    // A conflict on a sensitive field would show the very values redaction removes from `data`: it is dropped.
    const conflicts = checked.conflicts.flatMap((conflict, i) => {
      if ((parsePointer(conflict.field) ?? []).some((token) => this.redactor.isSensitiveName(token))) {
        this.redactions.push({ path: `/conflicts/${i}`, reason: 'sensitive_field' });
        return [];
      }
      const values = conflict.values.map((v, j) => ({
        value: this.redactor.value(v.value, `/conflicts/${i}/values/${j}/value`, this.redactions) as typeof v.value,
        source: this.scrub(v.source, `/conflicts/${i}/values/${j}/source`),
      }));
      return [{ ...conflict, values }];
    });
    const next = output.next?.type === 'cursor' && typeof output.next.value === 'string'
      ? { ...output.next, value: this.scrub(output.next.value, '/completeness/next/value') }
      : (output.next ?? null);
    const appliedArguments = this.appliedArguments(output.appliedArguments);

    const execution: Execution = {
      outcome: tool.effect === 'read' ? 'none' : 'committed',
      delivery: 'fresh',
      receipt: this.visibleReceipt(),
    };
    const base: Omit<ModelResult, 'status' | 'data' | 'completeness' | 'evidence' | 'untrusted_content'> = {
      schema_version: MODEL_RESULT_SCHEMA_VERSION,
      tool: tool.name,
      error: null,
      execution,
      provenance: {
        source_label: this.scrub(output.sourceLabel ?? tool.source.label, '/provenance/source_label').slice(0, 256),
        source_type: tool.source.type,
        producer_revision: tool.revisions.producer,
        resource_revision: typeof output.resourceRevision === 'string' ? this.scrub(output.resourceRevision, '/provenance/resource_revision').slice(0, 256) : null,
        observed_at: checked.observedAt,
        retrieved_at: new Date(this.startedAt).toISOString(),
        trust: tool.source.trust ?? 'untrusted_data',
      },
      conflicts,
      warnings: this.warnings,
      ...(appliedArguments === undefined ? {} : { applied_arguments: appliedArguments as ModelResult['applied_arguments'] }),
    };
    const fitted = fitToBudget({
      base,
      data,
      // Only what the model will see is redacted: the cut comes first, so a 10,000-item result is not walked twice.
      redact: (shown, log) => this.redactor.value(shown, '/data', log),
      evidence,
      untrusted,
      budget: tool.budget,
      pagination: { next, availableItems: output.availableItems ?? null },
    });
    this.redactions.push(...fitted.redactions);
    this.layers.push({
      layer: 'redaction',
      outcome: this.redactions.length > 0 ? 'warned' : 'passed',
      rule_version: `redaction@1;fields=${tool.revisions.policy}`,
      ...(this.redactions.length > 0 ? { reason: `${this.redactions.length} value(s) removed` } : {}),
    });
    this.layers.push({
      layer: 'budget',
      outcome: fitted.truncated ? 'warned' : 'passed',
      rule_version: `budget@1;bytes=${tool.budget.maxBytes};items=${tool.budget.maxItems};text=${tool.budget.maxTextChars}`,
      ...(fitted.truncated ? { reason: fitted.modelResult.completeness.reason ?? 'truncated' } : {}),
    });
    let artifacts: ArtifactPayload[] = [];
    let modelResult = fitted.modelResult;
    if (fitted.truncated) {
      // The full result goes out of band to protected storage; the model sees a reference it cannot forge.
      const artifact = this.fullResultArtifact(output);
      artifacts = [artifact];
      modelResult = { ...modelResult, artifact: { artifact_id: `art_${artifact.sha256}`, content_type: artifact.contentType, bytes: artifact.bytes } };
    }
    const evidenceSources = Object.fromEntries(fitted.evidence.map((item) => [item.evidence.evidence_id, item.source]));
    return this.finish(modelResult, artifacts, evidenceSources, null);
  }

  /**
   * Every handler-supplied string a model sees passes here (labels, sources, ids, cursors), not only `data`: any of
   * them can echo the idempotency key, the operation id or a credential.
   */
  private scrub(text: string, path: string): string {
    return this.redactor.text(text, path, this.redactions);
  }

  /** The receipt as the model sees it; the audit keeps the external id exactly as the authoritative system gave it. */
  private visibleReceipt(): Receipt | null {
    return this.receipt && { ...this.receipt, external_id: this.scrub(this.receipt.external_id, '/execution/receipt/external_id') };
  }

  private appliedArguments(fromHandler: unknown): unknown {
    const applied = fromHandler === undefined ? this.args : fromHandler;
    if (!inspectJson(applied, MAX_ARGUMENT_DEPTH).ok) return undefined;
    try {
      if (canonicalJson(applied) === canonicalJson(this.rawArgs)) return undefined;
    } catch {
      return undefined;
    }
    return this.redactor.value(applied, '/applied_arguments', this.redactions);
  }

  /** Builds the failure projection of this call. Public so the top-level guard can use it. */
  fail(failure: CallFailure): ToolExecution {
    const settled = settleFailure(failure, this.tool, this.handlerRan, this.receipt);
    const retrievedAt = new Date(this.startedAt).toISOString();
    const modelResult: ModelResult = {
      schema_version: MODEL_RESULT_SCHEMA_VERSION,
      tool: this.tool.name,
      status: settled.status,
      data: null,
      error: settled.error,
      execution: { outcome: settled.outcome, delivery: 'fresh', receipt: this.visibleReceipt() },
      completeness: { state: 'unknown', returned_items: 0, available_items: null, next: null },
      provenance: {
        source_label: this.tool.source.label,
        source_type: this.tool.source.type,
        producer_revision: this.tool.revisions.producer,
        resource_revision: null,
        observed_at: null,
        retrieved_at: retrievedAt,
        trust: this.tool.source.trust ?? 'untrusted_data',
      },
      evidence: [],
      untrusted_content: [],
      conflicts: [],
      warnings: settled.outcome === 'committed'
        ? [{ code: 'COMMITTED_OUTPUT_UNVERIFIED', message: 'The operation took effect (see receipt) but its output could not be verified. Do not repeat it.' }]
        : [],
    };
    const detail = { layer: failure.layer, code: failure.error.code, ...(settled.replacedCode ? { replaced_code: settled.replacedCode } : {}), detail: jsonSafe(failure.detail) };
    return this.finish(modelResult, [], {}, detail);
  }

  private finish(modelResult: ModelResult, artifacts: ArtifactPayload[], evidenceSources: Record<string, string>, errorDetail: unknown): ToolExecution {
    // Defence in depth: the result must satisfy its own published schema before anyone sees it.
    const checked = modelResultSchema.safeParse(modelResult);
    if (!checked.success) {
      throw new Error(`internal: model result violates tool-result.model.v1 at ${checked.error.issues.map((i) => formatPath(i.path)).join(', ')}`);
    }
    this.fillSkippedLayers();
    const trusted: TrustedCallInputs = {
      principal: this.ctx.principal,
      tool: { name: this.tool.name, revisions: this.tool.revisions },
      arguments: this.digestArgs,
      provider: this.ctx.provider,
      callId: this.ctx.callId,
      operationId: this.ctx.operationId,
      idempotencyKey: this.ctx.idempotencyKey,
    };
    const finishedAt = this.now();
    const auditRedactions: Redaction[] = [];
    const audit: AuditRecord = {
      schema_version: AUDIT_SCHEMA_VERSION,
      audit_id: `aud_${sha256Hex(canonicalJson({ op: this.ctx.operationId, call: this.ctx.callId, attempt: this.ctx.attempt })).slice(0, 24)}`,
      principal_ref: principalRef(this.ctx.principal),
      provider: {
        provider: this.ctx.provider.provider,
        api_family: this.ctx.provider.apiFamily,
        response_id: this.ctx.provider.responseId,
        provider_call_id: this.ctx.provider.providerCallId,
        adapter_revision: this.ctx.provider.adapterRevision,
      },
      temporal: this.ctx.temporal
        ? { workflow_id: this.ctx.temporal.workflowId, run_id: this.ctx.temporal.runId, activity_id: this.ctx.temporal.activityId, attempt: this.ctx.temporal.attempt }
        : null,
      tool: this.tool.name,
      effect: this.tool.effect,
      call_id: this.ctx.callId,
      operation_id: this.ctx.operationId,
      idempotency_key: this.ctx.idempotencyKey,
      attempt: this.ctx.attempt,
      revisions: this.tool.revisions,
      status: modelResult.status,
      error_code: modelResult.error?.code ?? null,
      // Exception text can carry credentials too; the audit is protected, but secrets still do not belong in it.
      error_detail: errorDetail === null ? null : (this.redactor.value(jsonSafe(errorDetail), '/audit/error_detail', auditRedactions) as AuditRecord['error_detail']),
      downstream: {
        request_ref: this.downstream.requestRef,
        receipt_external_id: this.receipt?.external_id ?? null,
        committed_at: this.receipt?.committed_at ?? null,
        status_ref: this.downstream.statusRef,
      },
      validation: this.layers,
      raw_response_sha256: this.rawSha256,
      raw_response_bytes: this.rawBytes,
      redactions: [...this.redactions, ...auditRedactions],
      timings: {
        started_at: new Date(this.startedAt).toISOString(),
        finished_at: new Date(finishedAt).toISOString(),
        handler_ms: this.handlerMs,
        total_ms: Math.max(0, finishedAt - this.startedAt),
      },
      bindings: computeBindings(trusted, modelResult),
    };
    return { modelResult, audit, artifacts, evidenceSources };
  }

  private recordRaw(output: ToolOutput<unknown>): void {
    const raw = output.rawResponse;
    if (raw && (typeof raw.body === 'string' || raw.body instanceof Uint8Array)) {
      this.rawSha256 = sha256Hex(raw.body);
      this.rawBytes = typeof raw.body === 'string' ? utf8ByteLength(raw.body) : raw.body.byteLength;
      return;
    }
    this.rawSha256 = this.canonicalData(output).sha256;
    this.rawBytes = this.canonicalData(output).bytes;
  }

  /**
   * The handler's data exactly as returned (canonical JSON), unredacted: artifacts live in protected storage like
   * the audit, and anything served from one to a model must pass the funnel again.
   */
  private fullResultArtifact(output: ToolOutput<unknown>): ArtifactPayload {
    return { ...this.canonicalData(output), contentType: 'application/json' };
  }

  /** Canonical form of the handler's data, computed once: it serves both the raw digest and the artifact. */
  private canonicalData(output: ToolOutput<unknown>): { body: string; sha256: string; bytes: number } {
    if (this.canonicalCache === null) {
      const body = canonicalJson(output.data);
      this.canonicalCache = { body, sha256: sha256Hex(body), bytes: utf8ByteLength(body) };
    }
    return this.canonicalCache;
  }

  private pass(layer: ValidationLayer, rule: string): void {
    this.layers.push({ layer, outcome: 'passed', rule_version: rule });
  }

  private skip(layer: ValidationLayer, reason: string): void {
    this.layers.push({ layer, outcome: 'skipped', rule_version: 'n/a', reason });
  }

  private layerFailed(layer: ValidationLayer, rule: string, failure: CallFailure, reason: string): CallFailure {
    this.layers.push({ layer, outcome: 'failed', rule_version: rule, reason: reason.slice(0, 1000) });
    return failure;
  }

  private fillSkippedLayers(): void {
    const seen = new Set(this.layers.map((l) => l.layer));
    for (const layer of ['input', 'protocol', 'schema', 'semantics', 'evidence', 'side_effect', 'redaction', 'budget'] as const) {
      if (!seen.has(layer)) this.skip(layer, 'not reached');
    }
  }
}

function contractFailure(layer: ValidationLayer, detail: unknown): CallFailure {
  return catalogFailure('OUTPUT_CONTRACT_VIOLATION', layer, detail);
}

function formatPath(path: readonly PropertyKey[]): string {
  return path.length === 0 ? '/' : path.map((token) => `/${String(token)}`).join('');
}

function isConflictValue(value: unknown): value is { value: unknown; source: string } {
  if (value === null || typeof value !== 'object') return false;
  const candidate = value as { value?: unknown; source?: unknown };
  return typeof candidate.source === 'string' && candidate.value !== undefined && inspectJson(candidate.value, 16).ok;
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}
