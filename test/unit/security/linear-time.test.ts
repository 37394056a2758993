// Every pattern that runs on text from outside finishes 1 MB of its worst input in linear time, and a read tool
// returning 1 MB of adversarial text completes its call quickly. Times are CPU milliseconds in this process; a
// pattern passes when one of up to 15 runs is under the limit, since other work on a shared machine only adds to a
// run, while a super-linear pattern misses it on every run by seconds (the regex this replaced took 17 s on 160 KB).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Redactor } from '../../../src/contract/redaction.js';
import { looksInstructional } from '../../../src/contract/untrusted-content.js';
import { compileSchemaCheck } from '../../../src/adapters/json-schema-check.js';
import { PATTERN_LIMITS } from '../../../src/adapters/linear-pattern.js';
import { checkProse } from '../../../src/adapters/mcp-prose-check.js';
import type { JsonSchemaObject } from '../../../src/adapters/tool-definitions/schema-walk.js';
import { executeTool } from '../../../src/contract/execute-tool.js';
import { testContext } from '../../../testkit/context.js';
import {
  INSTRUCTION_INPUTS,
  REDACTION_INPUTS,
  repeated,
  type AdversarialInput,
} from '../../../testkit/security/adversarial-inputs.js';
import { leastCpuMsUnder } from '../../../testkit/security/cpu-time.js';
import { webPageTool } from '../../../testkit/security/web-page-tool.js';

const MEGABYTE = 1 << 20;
const LIMIT_MS = 100;
const ctx = testContext();
const redactor = new Redactor({
  sensitiveFields: [],
  protectedSubstrings: [ctx.idempotencyKey, ctx.operationId],
  protectedExact: [ctx.principal.tenant, ctx.principal.subject],
});

function checkAll(inputs: readonly AdversarialInput[], run: (text: string) => void): void {
  for (const input of inputs) {
    it(`${input.target}: 1 MB of ${input.name} in under ${LIMIT_MS} ms`, (t) => {
      // A sixteenth first: a super-linear pattern fails here in seconds instead of running for minutes on 1 MB.
      const probe = input.build(MEGABYTE / 16);
      assert.ok(leastCpuMsUnder(LIMIT_MS / 4, () => run(probe), 3) < LIMIT_MS / 4, 'not linear on 64 KB');
      const text = input.build(MEGABYTE);
      const used = leastCpuMsUnder(LIMIT_MS, () => run(text));
      t.diagnostic(`${used.toFixed(1)} ms`);
      assert.ok(used < LIMIT_MS, `${used.toFixed(1)} ms`);
    });
  }
}

describe('linear time on the worst inputs', () => {
  describe('redaction (every detector of the catalog, protected values)', () =>
    checkAll(REDACTION_INPUTS, (text) => redactor.text(text, '/t', [])));
  describe('instruction signals', () => checkAll(INSTRUCTION_INPUTS, (text) => looksInstructional(text)));

  describe('remote schema checks', () => {
    const cases: readonly [string, JsonSchemaObject, string][] = [
      ['^(a+)+$ pattern', { type: 'string', pattern: '^(a+)+$' }, `${'a'.repeat(MEGABYTE)}!`],
      ['(x+x+)+y pattern', { type: 'string', pattern: '(x+x+)+y' }, 'x'.repeat(MEGABYTE)],
      ['email format', { type: 'string', format: 'email' }, `a@${repeated('a.', MEGABYTE)}@`],
    ];
    for (const [name, schema, text] of cases) {
      it(`${name}: 1 MB of its worst input in under ${LIMIT_MS} ms`, (t) => {
        const check = compileSchemaCheck(schema, { exact: true });
        const used = leastCpuMsUnder(LIMIT_MS, () => check(text));
        t.diagnostic(`${used.toFixed(1)} ms`);
        assert.ok(used < LIMIT_MS, `${used.toFixed(1)} ms`);
        assert.equal(check(text).length, 1);
      });
    }
  });

  it('the worst remote pattern the bounds allow, on the longest value the work bound lets it read, in under 1 s', (t) => {
    // 2,000 instructions, every one a live thread on `a…`: the largest factor a pattern may have (see PATTERN_LIMITS).
    // About 0.2 s on an idle core; without the bounds, a 130-character pattern took 9 s on 50 KB.
    const check = compileSchemaCheck({ type: 'string', pattern: '[\\s\\S]{1000}[\\s\\S]{997}[^a]' }, { exact: true });
    const text = 'a'.repeat(Math.floor(PATTERN_LIMITS.maxWorkPerCheck / 2_000) - 1);
    const used = leastCpuMsUnder(1000, () => check(text));
    t.diagnostic(`${used.toFixed(1)} ms for ${text.length} characters`);
    assert.ok(used < 1000, `${used.toFixed(1)} ms`);
    assert.equal(check(text)[0]?.message, 'pattern', 'it ran, and did not match');
  });

  describe('MCP prose check (dates and numbers against structuredContent)', () => {
    // Text is bounded to 100,000 characters and the structure to 10,000 values; the claims are indexed lookups.
    // Comparing every claim with every value took 17 s for 10,000 claims against 50,000 values.
    const weather = { temperature_c: 27.4, observed_at: '2026-09-01T02:00:00Z' };
    const large = {
      readings: Array.from({ length: 50_000 }, (_, i) => i / 10),
      at: Array.from({ length: 50_000 }, (_, i) => new Date(i * 60_000).toISOString()),
    };
    const inputs: readonly [string, string][] = [
      ['one digit run', `${'9'.repeat(MEGABYTE)}x`],
      ['comma groups', repeated('1,', MEGABYTE)],
      ['date prefixes', repeated('2026-01-01T', MEGABYTE)],
      ['decimal points', repeated('1.', MEGABYTE)],
      ['many numbers and wall-clock dates', repeated('It was 27.4 °C at 2026-09-01 10:00, reading 123456. ', MEGABYTE)],
    ];
    for (const [name, text] of inputs) {
      for (const [against, structured] of [
        ['a small', weather],
        ['a 100,000-value', large],
      ] as const) {
        it(`1 MB of ${name} against ${against} structure in under ${LIMIT_MS} ms`, (t) => {
          const used = leastCpuMsUnder(LIMIT_MS, () => checkProse(text, structured));
          t.diagnostic(`${used.toFixed(1)} ms`);
          assert.ok(used < LIMIT_MS, `${used.toFixed(1)} ms`);
        });
      }
    }
  });

  it('a read tool returning 1 MB of adversarial text, as data, untrusted text and an evidence quote, completes in under 1 s of CPU', async (t) => {
    await executeTool(webPageTool('warm-up'), {}, ctx);
    for (const unit of ['eyJ-', 'sk-', '4111 ', 'password=', 'a:', 'ignore all your ', '<system ']) {
      const text = repeated(unit, MEGABYTE);
      const cpu = process.cpuUsage();
      const started = performance.now();
      const result = await executeTool(webPageTool(text), {}, ctx);
      const wall = performance.now() - started;
      const used = process.cpuUsage(cpu);
      const cpuMs = (used.user + used.system) / 1000;
      t.diagnostic(`${JSON.stringify(unit)}: ${cpuMs.toFixed(0)} ms CPU, ${wall.toFixed(0)} ms wall`);
      assert.equal(result.modelResult.error, null);
      assert.ok(cpuMs < 1000, `${JSON.stringify(unit)}: ${cpuMs.toFixed(0)} ms CPU`);
    }
  });
});
