import type { UntrustedContent } from '../../contract/model-result.js';
import type { EvidenceRecord, ReconciliationRecord } from '../../store/index.js';
import type { AuditDigestCheck, CallView, ConsoleInbox, PendingCall } from './console-backend.js';
import { html, jsonBlock, type Html } from './html.js';

/**
 * The console's pages, rendered on the server: no script at all (the page needs nothing from the network, and an
 * injected `<script>` has nothing to run in: the Content-Security-Policy allows none). Every value is escaped by
 * `html`; forms carry the session's CSRF token and the exact request digest the operator saw.
 */

/** What every page needs besides its body: who is signed in, and the token its forms carry. */
export interface PageContext {
  readonly operator: string;
  readonly csrfToken: string;
  /** The Temporal UI's address and namespace, for links to a workflow; `null`: no links. */
  readonly temporalUi: { readonly url: string; readonly namespace: string } | null;
}

/** The stylesheet (served as `/console.css`): high-contrast text, visible focus, nothing fetched. */
export const CONSOLE_CSS = `
body { font: 16px/1.5 system-ui, sans-serif; margin: 0; color: #111; background: #fff; }
header, main { max-width: 72rem; margin: 0 auto; padding: 0.5rem 1rem; }
header { display: flex; justify-content: space-between; align-items: baseline; border-bottom: 2px solid #111; }
a { color: #0645ad; } a:focus, button:focus, input:focus, textarea:focus { outline: 3px solid #b35c00; outline-offset: 2px; }
section.card { border: 1px solid #555; border-radius: 6px; padding: 0.75rem 1rem; margin: 1rem 0; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 0.25rem 1rem; } dt { font-weight: 600; } dd { margin: 0; overflow-wrap: anywhere; }
pre.json { background: #f3f3f3; padding: 0.5rem; overflow-x: auto; white-space: pre-wrap; overflow-wrap: anywhere; }
code { overflow-wrap: anywhere; }
.untrusted { border-left: 6px solid #a40000; background: #fff3f3; padding: 0.5rem; margin: 0.5rem 0; }
.flag { font-weight: 700; color: #a40000; }
.ok { color: #0b6b0b; font-weight: 600; } .bad { color: #a40000; font-weight: 700; }
table { border-collapse: collapse; } th, td { border: 1px solid #777; padding: 0.2rem 0.5rem; text-align: left; vertical-align: top; }
label { display: block; font-weight: 600; margin-top: 0.5rem; } label.inline { display: inline; margin-right: 1rem; }
textarea, input[type=text] { width: 100%; max-width: 40rem; font: inherit; }
button { font: inherit; padding: 0.4rem 1rem; margin: 0.5rem 0.5rem 0 0; border: 2px solid #111; border-radius: 4px; background: #fff; color: #111; cursor: pointer; }
button.approve { background: #0b5d0b; color: #fff; } button.reject { background: #8a0000; color: #fff; }
p.message { font-size: 1.1rem; padding: 0.75rem; border: 2px solid #111; }
summary { cursor: pointer; font-weight: 600; margin: 0.5rem 0; }
`;

function layout(title: string, ctx: Pick<PageContext, 'operator'>, body: Html): Html {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · tool-contract console</title><link rel="stylesheet" href="/console.css"></head>
<body><header><p><a href="/">tool-contract console</a></p><p>Signed in as <strong data-testid="operator">${ctx.operator}</strong></p></header>
<main id="main"><h1>${title}</h1>
${body}
</main></body></html>`;
}

/** The inbox: calls waiting for approval, runs that could not be read, and unsettled side effects. */
export function inboxPage(inbox: ConsoleInbox, ctx: PageContext): Html {
  const pending =
    inbox.pending.length === 0
      ? html`<p>No call is waiting for approval.</p>`
      : inbox.pending.map((call, index) => pendingCard(call, index, ctx));
  const unreadable = inbox.unreadable.map(
    (run) =>
      html`<p class="bad">Workflow <code>${run.workflowId}</code> (run <code>${run.runId}</code>) could not be read: ${run.error}</p>`,
  );
  const unsettled =
    inbox.unsettled.length === 0
      ? html`<p>No side effect has an unknown outcome.</p>`
      : inbox.unsettled.map((record, index) => reconciliationCard(record, index, ctx));
  return layout(
    'Inbox',
    ctx,
    html`<h2 id="approvals">Waiting for approval (${inbox.pending.length})</h2>${unreadable}${pending}
<h2 id="reconciliations">Unknown outcomes (${inbox.unsettled.length})</h2>${unsettled}`,
  );
}

/** One waiting call; `index` makes its element ids (ids a workflow chose may hold spaces, which an HTML id may not). */
function pendingCard(call: PendingCall, index: number, ctx: PageContext): Html {
  const { approval } = call;
  const { preview } = approval;
  const id = `approval-${index}`;
  const hidden =
    preview.hidden.length === 0
      ? html`<p>No argument is hidden.</p>`
      : html`<p>Hidden from you (the digest covers them):</p><ul>${preview.hidden.map((item) => html`<li><code>${item.path === '' ? '(whole value)' : item.path}</code>: ${item.reason}</li>`)}</ul>`;
  return html`<section class="card" aria-labelledby="${id}" data-testid="pending-call">
<h3 id="${id}">${preview.tool} <small>(${preview.effect})</small></h3>
<dl><dt>Workflow</dt><dd><a href="${callHref(approval.workflowId)}"><code>${approval.workflowId}</code></a> (${approval.workflowType}, run <code>${approval.runId}</code>)${workflowLink(ctx, approval.workflowId, approval.runId)}</dd>
<dt>Call</dt><dd><code>${approval.callId}</code></dd>
<dt>Request digest</dt><dd><code data-testid="request-digest">${preview.requestSha256}</code></dd>
<dt>Requested</dt><dd>${approval.requestedAt}</dd><dt>Deadline</dt><dd>${approval.expiresAt} (fails closed after it)</dd></dl>
<h4>Arguments, as the tool will run them</h4>${jsonBlock(preview.arguments)}${hidden}
${evidenceSection(call.evidence)}${untrustedSection(call.untrusted)}
<form method="post" action="/decide">
<input type="hidden" name="csrf" value="${ctx.csrfToken}"><input type="hidden" name="workflowId" value="${approval.workflowId}">
<input type="hidden" name="callId" value="${approval.callId}"><input type="hidden" name="requestSha256" value="${preview.requestSha256}">
<label for="${id}-reason">Reason (recorded in the audit)</label><textarea id="${id}-reason" name="reason" rows="2"></textarea>
<button type="submit" class="approve" name="decision" value="approve">Approve</button><button type="submit" class="reject" name="decision" value="reject">Reject</button>
</form></section>`;
}

function evidenceSection(evidence: readonly EvidenceRecord[]): Html {
  if (evidence.length === 0) return html`<h4>Evidence so far</h4><p>None recorded.</p>`;
  return html`<h4>Evidence so far</h4><table><thead><tr><th scope="col">Id</th><th scope="col">Kind</th><th scope="col">Source</th><th scope="col">Locator</th><th scope="col">Quote</th><th scope="col">Observed</th></tr></thead><tbody>${evidence.map(
    (item) =>
      html`<tr><td><code>${item.evidenceId}</code></td><td>${item.kind}</td><td>${item.source}</td><td><code>${item.locator}</code></td><td>${item.quote ?? ''}</td><td>${item.observedAt ?? ''}</td></tr>`,
  )}</tbody></table>`;
}

function untrustedSection(untrusted: readonly UntrustedContent[]): Html {
  if (untrusted.length === 0) return html`<h4>Untrusted text the agent was shown</h4><p>None.</p>`;
  return html`<h4>Untrusted text the agent was shown</h4><p>Data from outside, never instructions: the agent may not act on it.</p>${untrusted.map(
    (item) =>
      html`<div class="untrusted" data-testid="untrusted">${item.instructional ? html`<p class="flag">Reads like an instruction to the agent (possible prompt injection)</p>` : ''}<p>From <code>${item.source}</code> (<code>${item.content_id}</code>):</p><pre class="json">${item.text}</pre></div>`,
  )}`;
}

function reconciliationCard(record: ReconciliationRecord, index: number, ctx: PageContext): Html {
  const id = `reconciliation-${index}`;
  const form =
    record.state === 'escalated'
      ? html`<form method="post" action="/resolve"><fieldset><legend>Resolve with what you found out</legend>
<input type="hidden" name="csrf" value="${ctx.csrfToken}"><input type="hidden" name="idempotencyKey" value="${record.idempotencyKey}">
<input type="radio" id="${id}-committed" name="outcome" value="committed" required><label for="${id}-committed" class="inline">Committed</label>
<label for="${id}-external">External id of the committed write</label><input type="text" id="${id}-external" name="externalId">
<input type="radio" id="${id}-not" name="outcome" value="not_committed"><label for="${id}-not" class="inline">Not committed</label>
<label for="${id}-note">Note (recorded in the audit)</label><textarea id="${id}-note" name="note" rows="2"></textarea>
<button type="submit">Resolve</button></fieldset></form>`
      : html`<p>Still asking the authoritative system: a person can resolve it once it is escalated.</p>`;
  return html`<section class="card" aria-labelledby="${id}" data-testid="reconciliation">
<h3 id="${id}">${record.tool}: <span data-testid="reconciliation-state">${record.state}</span></h3>
<dl><dt>Idempotency key</dt><dd><code>${record.idempotencyKey}</code> (round ${record.round})</dd>
<dt>Workflow</dt><dd><a href="${callHref(record.workflowId, record.callId)}"><code>${record.workflowId}</code> / <code>${record.callId}</code></a>${workflowLink(ctx, record.workflowId)}</dd>
<dt>Opened</dt><dd>${record.openedAt}</dd>${record.escalatedAt === null ? '' : html`<dt>Escalated</dt><dd>${record.escalatedAt}: ${record.escalationReason ?? ''}</dd>`}</dl>
${findingsTable(record)}${form}</section>`;
}

/** The queries a reconciliation made to the authoritative system, and what each found. */
function findingsTable(record: ReconciliationRecord): Html {
  if (record.attempts.length === 0) return html`<p>No provider query yet.</p>`;
  return html`<table><caption>Queries to the authoritative system</caption><thead><tr><th scope="col">#</th><th scope="col">Finding</th><th scope="col">Detail</th><th scope="col">At</th></tr></thead><tbody>${record.attempts.map(
    (attempt) =>
      html`<tr><td>${attempt.attempt}</td><td>${attempt.finding}</td><td>${attempt.detail ?? ''}</td><td>${attempt.at}</td></tr>`,
  )}</tbody></table>`;
}

/** How a call's unknown outcome was settled (or is still being), with the findings it rests on. */
function settlement(record: ReconciliationRecord | undefined): Html {
  if (record === undefined) return html``;
  const how =
    record.state === 'settled'
      ? html`settled: <strong>${record.outcome === 'committed' ? 'committed' : 'not committed'}</strong>, ${record.via === 'human' ? html`by ${record.resolvedBy ?? 'a person'}${record.note === null ? '' : html` (“${record.note}”)`}` : "by the provider's receipt"}${record.receiptExternalId === null ? '' : html`, external id <code>${record.receiptExternalId}</code>`}`
      : html`<strong>${record.state}</strong>`;
  return html`<h3>Unknown outcome, reconciled</h3><p data-testid="settlement">Round ${record.round}: ${how}</p>${findingsTable(record)}`;
}

/** A workflow's calls (or one call): model results, audit digests checked, state patches with their evidence. */
export function callPage(view: CallView, ctx: PageContext): Html {
  const { inspected } = view;
  const evidenceById = new Map(inspected.evidence.map((item) => [item.evidenceId, item]));
  const title =
    inspected.callId === null
      ? `Workflow ${inspected.workflowId}`
      : `Call ${inspected.callId} of ${inspected.workflowId}`;
  const reconciliationOf = new Map(view.reconciliations.map((record) => [record.idempotencyKey, record]));
  const calls = inspected.calls.map(
    (
      call,
      index,
    ) => html`<section class="card" aria-labelledby="call-${index}" data-testid="call"><h2 id="call-${index}">Call <code>${call.callId}</code>: ${call.modelResult.tool} ${call.modelResult.status}</h2>
<dl><dt>Idempotency key</dt><dd><code>${call.idempotencyKey}</code></dd><dt>Ledger</dt><dd>${call.ledger?.status ?? 'no row'}</dd></dl>${settlement(reconciliationOf.get(call.idempotencyKey))}
<h3>Audit digests (recomputed by the console)</h3>${checksTable(view.checks.filter((check) => call.attempts.some((attempt) => attempt.auditId === check.auditId)))}
${untrustedSection(call.modelResult.untrusted_content)}<details><summary>Model result (what the model saw)</summary>${jsonBlock(call.modelResult)}</details></section>`,
  );
  const patches =
    inspected.statePatches.length === 0
      ? html`<p>No state patch.</p>`
      : inspected.statePatches.map(
          (
            patch,
          ) => html`<section class="card"><h3><code>${patch.key}</code> v${patch.version} (call <code>${patch.callId}</code>)</h3>${jsonBlock(patch.value)}
<p>Cites:</p><ul>${patch.evidenceIds.map((evidenceId) => {
            const item = evidenceById.get(evidenceId);
            return html`<li><code>${evidenceId}</code>${item === undefined ? html` <span class="bad">(not among this view's evidence)</span>` : html`: ${item.kind} from ${item.source}, <code>${item.locator}</code>${item.quote === null ? '' : html` — “${item.quote}”`}`}</li>`;
          })}</ul></section>`,
        );
  return layout(
    title,
    ctx,
    html`<p>${workflowLink(ctx, inspected.workflowId)}</p>${calls}<h2>State patches</h2>${patches}`,
  );
}

function checksTable(checks: readonly AuditDigestCheck[]): Html {
  const mark = (ok: boolean) =>
    ok ? html`<span class="ok">matches</span>` : html`<span class="bad">DOES NOT MATCH</span>`;
  const history = (check: AuditDigestCheck) =>
    check.history === 'absent' ? html`not in history` : mark(check.history === 'matches');
  return html`<table><thead><tr><th scope="col">Attempt</th><th scope="col">Audit</th><th scope="col">audit_sha256</th><th scope="col">Record digest</th><th scope="col">Result digest</th><th scope="col">Workflow history</th></tr></thead><tbody>${checks.map(
    (check) =>
      html`<tr data-testid="audit-check"><td>${check.attempt}</td><td><code>${check.auditId}</code></td><td><code>${check.auditSha256}</code></td><td>${mark(check.auditDigestMatches)}</td><td>${mark(check.resultDigestMatches)}</td><td>${history(check)}</td></tr>`,
  )}</tbody></table>`;
}

/** A page that reports the outcome of an action (or why it was refused), with the way back. */
export function messagePage(title: string, message: string, ctx: Pick<PageContext, 'operator'>): Html {
  return layout(
    title,
    ctx,
    html`<p class="message" role="status" data-testid="message">${message}</p><p><a href="/">Back to the inbox</a></p>`,
  );
}

function callHref(workflowId: string, callId?: string): string {
  const query = new URLSearchParams({ workflowId, ...(callId === undefined ? {} : { callId }) });
  return `/call?${query.toString()}`;
}

function workflowLink(ctx: PageContext, workflowId: string, runId?: string): Html {
  if (ctx.temporalUi === null) return html``;
  const base = `${ctx.temporalUi.url.replace(/\/+$/, '')}/namespaces/${encodeURIComponent(ctx.temporalUi.namespace)}/workflows/${encodeURIComponent(workflowId)}`;
  return html` <a href="${runId === undefined ? base : `${base}/${encodeURIComponent(runId)}`}">open in the Temporal UI</a>`;
}
