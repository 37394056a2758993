// The funnel's use of the redaction engine: the scan cap (redact, then cut, so a secret is never half-shown), the
// catalog version in the audit, and the audit's own cut of exception text.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { ToolError, type ToolOutput } from '../../../src/index.js';
import { executeTool } from '../../../src/contract/execute-tool.js';
import { scanCap } from '../../../src/contract/call-redactor.js';
import { MAX_DETAIL_TEXT_CHARS } from '../../../src/contract/funnel/audit-bounds.js';
import { REDACTED_MARKER, SECRET_CATALOG_VERSION } from '../../../src/contract/redaction.js';
import { truncationMarker } from '../../../src/contract/truncation.js';
import { testContext } from '../../../testkit/context.js';
import { assertHidden } from './hidden.js';
import { FAKE_SECRETS } from '../../../testkit/security/secret-corpus.js';
import { defineTool } from '../../../testkit/define-tool.js';

const ctx = testContext();
const MAX_TEXT = 1_000;
const GITHUB = FAKE_SECRETS.find((secret) => secret.family === 'github_token')!;

function pageTool(output: () => ToolOutput<{ body: string }> | Promise<never>) {
  return defineTool({
    name: 'web.fetch',
    description: 'Fetch a page.',
    input: z.strictObject({}),
    output: z.strictObject({ body: z.string() }),
    effect: 'read',
    source: { label: 'web', type: 'http_api' },
    budget: { maxTextChars: MAX_TEXT },
    handler: () => Promise.resolve(output()),
  });
}

describe('the funnel redacts, then cuts', () => {
  it('scans a multiple of the text budget per string, and the one marker counts everything cut', async () => {
    const body = `${'w'.repeat(MAX_TEXT - 10)} ${GITHUB.secret} ${'z'.repeat(1 << 20)}`;
    const { modelResult } = await executeTool(
      pageTool(() => ({
        data: { body },
        untrusted: [{ text: body, source: 'web' }],
        evidence: [{ kind: 'page', locator: 'https://example.com/', supports: ['/body'], quote: body }],
      })),
      {},
      ctx,
    );
    assert.equal(
      scanCap(pageTool(() => ({ data: { body: '' } })).budget),
      4_096,
      'at least the floor for a small text budget',
    );
    const shown = [
      (modelResult.data as { body: string }).body,
      modelResult.untrusted_content[0]!.text,
      modelResult.evidence[0]!.quote!,
    ];
    for (const text of shown) {
      // The secret straddles the budget's cut: redaction saw it whole before the cut, so no part of it shows.
      assertHidden(text, GITHUB, 'a string cut at the text budget');
      const redactedLength = body.length - GITHUB.secret.length + REDACTED_MARKER.length;
      assert.ok(
        text.endsWith(truncationMarker(redactedLength - MAX_TEXT)),
        `the marker counts the whole cut: ${text.slice(-40)}`,
      );
    }
    assert.equal(modelResult.completeness.state, 'truncated');
  });

  it('reports a string cut by the scan cap as truncated even when what is left fits the text budget (regression)', async () => {
    // One megabyte that is all one token: hidden whole, so what is shown is far shorter than the budget.
    const body = `github_pat_${'a'.repeat(1 << 20)}`;
    const { modelResult, artifacts } = await executeTool(
      pageTool(() => ({ data: { body }, untrusted: [{ text: body, source: 'web' }] })),
      {},
      ctx,
    );
    const cut = `${REDACTED_MARKER}${truncationMarker(body.length - scanCap(pageTool(() => ({ data: { body: '' } })).budget))}`;
    assert.equal((modelResult.data as { body: string }).body, cut);
    assert.equal(modelResult.untrusted_content[0]!.text, cut);
    assert.equal(modelResult.status, 'partial');
    assert.deepEqual([modelResult.completeness.state, modelResult.completeness.reason], ['truncated', 'text_budget']);
    assert.equal(artifacts.length, 1, 'the full result is kept as an artifact');
  });

  it('records the secret catalog version in the redaction layer of the audit', async () => {
    const tool = pageTool(() => ({ data: { body: GITHUB.carrier } }));
    const { audit } = await executeTool(tool, {}, ctx);
    const layer = audit.validation.find((entry) => entry.layer === 'redaction');
    assert.equal(layer?.outcome, 'warned');
    assert.equal(layer?.rule_version, `redaction@1;catalog=${SECRET_CATALOG_VERSION};fields=${tool.revisions.policy}`);
  });

  it('hides a secret that straddles the cut of an exception message in the audit, for a plain Error and ToolError details', async () => {
    for (const before of [4, 12, 20, 30]) {
      const message =
        `${'x '.repeat(MAX_DETAIL_TEXT_CHARS)}`.slice(0, MAX_DETAIL_TEXT_CHARS - before - 1) +
        ` ${GITHUB.secret} and more`;
      for (const thrown of [new Error(message), new ToolError('NOT_FOUND', { upstream: message })]) {
        const { modelResult, audit } = await executeTool(
          pageTool(() => Promise.reject(thrown)),
          {},
          ctx,
        );
        assert.ok(modelResult.error !== null);
        const detail = JSON.stringify(audit.error_detail);
        assertHidden(detail, GITHUB, `the audit of an exception cut ${before} characters into the secret`);
        assert.ok(detail.includes('x x x'), 'the message is in the audit, cut');
      }
    }
  });
});
