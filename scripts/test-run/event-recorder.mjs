// A node:test reporter that writes, one JSON line each, the events the verdict ledger reads (scripts/test-run/
// verdicts.ts): verdicts and completions. Plain JavaScript because the runner loads reporters before
// TypeScript support is in place.
const KEPT = new Set(['test:pass', 'test:fail', 'test:complete']);

export default async function* recordEvents(source) {
  for await (const { type, data } of source) {
    if (!KEPT.has(type)) continue;
    const { name, nesting, file, skip, todo, details } = data;
    yield `${JSON.stringify({ type, data: { name, nesting, file, skip, todo, details: { passed: details?.passed, duration_ms: details?.duration_ms } } })}\n`;
  }
}
