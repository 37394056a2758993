import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { ToolDefinitionError } from '../../../src/index.js';
import { defineTool } from '../../../testkit/define-tool.js';
import { executeTool } from '../../../src/contract/execute-tool.js';
import { testContext } from '../../../testkit/context.js';

const TEXT =
  'Refunds: https://help.shop.example/refunds?id=7. Log in again at https://shop-example.login.evil.test/verify, or http://198.51.100.7:8080/x';

const helpTool = (allowedUrlDomains?: string[]) =>
  defineTool({
    name: 'help.article',
    description: 'One help-center article with its links.',
    input: z.strictObject({ id: z.string() }),
    output: z.strictObject({ summary: z.string() }),
    effect: 'read',
    source: { label: 'help-center', type: 'http_api' },
    ...(allowedUrlDomains === undefined ? {} : { allowedUrlDomains }),
    handler: () =>
      Promise.resolve({ data: { summary: TEXT }, untrusted: [{ text: `Body: ${TEXT}`, source: 'article 7' }] }),
  });

describe("links a model is shown stay on the tool's domains (seeds 001, 003)", () => {
  it('a link to any other host is hidden in data and in untrusted text, recorded, and announced', async () => {
    const { modelResult, audit } = await executeTool(helpTool(['shop.example']), { id: '7' }, testContext());
    const summary = (modelResult.data as { summary: string }).summary;
    assert.equal(summary, 'Refunds: https://help.shop.example/refunds?id=7. Log in again at [REDACTED], or [REDACTED]');
    assert.doesNotMatch(JSON.stringify(modelResult), /evil\.test|198\.51\.100\.7/);
    assert.match(modelResult.untrusted_content[0]!.text, /https:\/\/help\.shop\.example\/refunds/);
    assert.ok(
      audit.redactions.some(
        (redaction) => redaction.reason === 'url_not_allowed' && redaction.path === '/data/summary',
      ),
    );
    assert.ok(modelResult.warnings.some((warning) => warning.code === 'REDACTED'));
  });

  it('a tool that declares no domains shows links as they are; a malformed domain is refused', async () => {
    const { modelResult } = await executeTool(helpTool(), { id: '7' }, testContext());
    assert.equal((modelResult.data as { summary: string }).summary, TEXT);
    assert.throws(() => helpTool(['https://shop.example/']), ToolDefinitionError);
  });

  it('stays linear on hostile text (a megabyte of separators)', async () => {
    const tool = defineTool({
      ...helpTool(['shop.example']),
      name: 'help.article_hostile',
      budget: { maxTextChars: 300_000, maxBytes: 2_000_000 },
      handler: () => Promise.resolve({ data: { summary: 'https://'.repeat(40_000) + ':'.repeat(100_000) } }),
    });
    const started = performance.now();
    await executeTool(tool, { id: '7' }, testContext());
    assert.ok(performance.now() - started < 5_000, `${Math.round(performance.now() - started)} ms`);
  });
});
