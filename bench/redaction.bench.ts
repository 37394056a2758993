// Benchmark of redaction and the other patterns that run on text from outside (not a timed test). From the repo root:
//   node --import tsx bench/redaction.bench.ts
// Prints: the worst 1 MB input of every detector, rule and remote-schema check (CPU ms, least and median of 5);
// the regular expression the engine replaced, on growing input, to show its quadratic growth; the security corpus
// counts and false-positive rate; executeTool on a read tool returning 1 MB of adversarial text.
import { compileSchemaCheck } from '../src/adapters/json-schema-check.js';
import type { JsonSchemaObject } from '../src/adapters/tool-definitions/schema-walk.js';
import { Redactor } from '../src/contract/redaction.js';
import { looksInstructional } from '../src/contract/untrusted-content.js';
import { executeTool } from '../src/contract/execute-tool.js';
import { type ExecutionContext } from '../src/contract/execution-context.js';
import { INSTRUCTION_INPUTS, REDACTION_INPUTS, repeated } from '../testkit/security/adversarial-inputs.js';
import { cpuMs } from '../testkit/security/cpu-time.js';
import { webPageTool } from '../testkit/security/web-page-tool.js';
import { BENIGN_LOOKALIKES, FAKE_SECRETS } from '../testkit/security/secret-corpus.js';
import { machineLine, median, ms, printTable, reportSummary } from './support/stats.js';

const MEGABYTE = 1 << 20;
const RUNS = 5;
const ctx: ExecutionContext = {
  principal: { tenant: 'tenant-bench', subject: 'user-bench' },
  provider: {
    provider: 'openai',
    apiFamily: 'responses',
    responseId: 'resp_bench',
    providerCallId: 'call_bench',
    adapterRevision: 'bench@1',
  },
  callId: 'call-bench-1',
  operationId: 'op-bench-0001',
  idempotencyKey: 'idem-bench-0001',
  attempt: 1,
};
const redactor = new Redactor({
  sensitiveFields: [],
  protectedSubstrings: [ctx.idempotencyKey, ctx.operationId],
  protectedExact: [ctx.principal.tenant, ctx.principal.subject],
});

/** CPU milliseconds of `runs` runs after one warm-up run. */
function samples(run: () => void, runs = RUNS): number[] {
  run();
  return Array.from({ length: runs }, () => cpuMs(run));
}

console.log(machineLine());

const rows: string[][] = [];
let worst = { name: '', least: 0 };
const measure = (target: string, name: string, run: () => void) => {
  const cpu = samples(run);
  const least = Math.min(...cpu);
  if (least > worst.least) worst = { name: `${target} ${name}`, least };
  rows.push([target, name, ms(least), ms(median(cpu))]);
};
for (const input of REDACTION_INPUTS) {
  const text = input.build(MEGABYTE);
  measure(input.target, input.name, () => redactor.text(text, '/t', []));
}
for (const input of INSTRUCTION_INPUTS) {
  const text = input.build(MEGABYTE);
  measure(input.target, input.name, () => looksInstructional(text));
}
const schemaCases: readonly [string, JsonSchemaObject, string][] = [
  ['^(a+)+$ pattern', { type: 'string', pattern: '^(a+)+$' }, `${'a'.repeat(MEGABYTE)}!`],
  ['(x+x+)+y pattern', { type: 'string', pattern: '(x+x+)+y' }, 'x'.repeat(MEGABYTE)],
  ['email format', { type: 'string', format: 'email' }, `a@${repeated('a.', MEGABYTE)}@`],
];
for (const [name, schema, text] of schemaCases) {
  const check = compileSchemaCheck(schema, { exact: true });
  measure('remote schema', name, () => check(text));
}
printTable(
  `Worst 1 MB input per pattern (CPU ms, least and median of ${RUNS})`,
  ['pattern', 'input', 'least', 'median'],
  rows,
);

// The pattern the engine replaced: quadratic, so it is measured on small inputs only.
const replacedJwt = /\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]+/g;
const growth = [2_500, 5_000, 10_000, 20_000].map((repeats) => {
  const text = 'eyJ-'.repeat(repeats);
  const old = samples(() => text.replace(replacedJwt, '[REDACTED]'), 1)[0]!;
  const now = Math.min(...samples(() => redactor.text(text, '/t', []), 3));
  return [`${text.length / 1000} KB`, ms(old), ms(now)];
});
printTable(
  "'eyJ-' repeated: the replaced JWT regex vs the engine (CPU ms)",
  ['input', 'replaced regex', 'engine'],
  growth,
);

const changed = BENIGN_LOOKALIKES.filter(({ text }) => redactor.text(text, '/t', []) !== text);
const leaked = FAKE_SECRETS.filter((secret) => redactor.text(secret.carrier, '/t', []).includes(secret.secret));
printTable(
  'Security corpus (redactor, free-text placement)',
  ['measure', 'value'],
  [
    ['fake secrets', String(FAKE_SECRETS.length)],
    ['families', String(new Set(FAKE_SECRETS.map((secret) => secret.family)).size)],
    ['fake secrets left visible', String(leaked.length)],
    ['benign look-alikes', String(BENIGN_LOOKALIKES.length)],
    ['false positives', `${changed.length} (${((100 * changed.length) / BENIGN_LOOKALIKES.length).toFixed(1)} %)`],
  ],
);

await executeTool(webPageTool('warm-up'), {}, ctx);
const calls: string[][] = [];
let slowestCall = 0;
for (const unit of ['eyJ-', 'sk-', '4111 ', 'password=', 'a:', 'ignore all your ', '<system ']) {
  const text = repeated(unit, MEGABYTE);
  const before = process.cpuUsage();
  const started = performance.now();
  await executeTool(webPageTool(text), {}, ctx);
  const wall = performance.now() - started;
  const used = process.cpuUsage(before);
  const cpu = (used.user + used.system) / 1000;
  slowestCall = Math.max(slowestCall, cpu);
  calls.push([JSON.stringify(unit), ms(cpu), ms(wall)]);
}
printTable(
  'executeTool, read tool returning 1 MB of adversarial text as data, untrusted text and evidence quote',
  ['text', 'CPU ms', 'wall ms'],
  calls,
);

reportSummary([
  { part: 'redaction', measure: `worst 1 MB pattern input (${worst.name}), CPU ms`, value: ms(worst.least) },
  { part: 'redaction', measure: 'corpus false positives', value: `${changed.length}/${BENIGN_LOOKALIKES.length}` },
  { part: 'redaction', measure: 'slowest 1 MB adversarial executeTool call, CPU ms', value: ms(slowestCall) },
]);
