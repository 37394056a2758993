// Where the funnel's CPU goes: runs one case of the contract benchmark many times under V8's sampling profiler
// (the profiler `node --cpu-prof` uses, driven in-process) and prints the functions with the most self time.
// From the repo root:  npm run bench:profile -- small|large [calls]
import { Session } from 'node:inspector/promises';
import { executeTool } from '../src/contract/execute-tool.js';
import { benchContext, largeTool, smallTool } from './support/contract-cases.js';
import { printTable } from './support/stats.js';

const CASES = {
  small: { tool: smallTool, args: { order_id: 'ord_1001' }, calls: 5000 },
  large: { tool: largeTool, args: { since: '2026-11-01' }, calls: 60 },
} as const;
const TOP = 15;

const name = process.argv[2] ?? 'small';
if (!(name in CASES)) {
  console.error(`unknown case '${name}'; choose from ${Object.keys(CASES).join(', ')}`);
  process.exit(2);
}
const chosen = CASES[name as keyof typeof CASES];
const calls = process.argv[3] === undefined ? chosen.calls : Number(process.argv[3]);

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
}

// Warm-up outside the profile, so it shows the steady state rather than compilation.
for (let i = 0; i < Math.ceil(calls / 10); i++) await executeTool(chosen.tool, chosen.args, benchContext);
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.start');
const started = performance.now();
for (let i = 0; i < calls; i++) await executeTool(chosen.tool, chosen.args, benchContext);
const elapsed = performance.now() - started;
const { profile } = await session.post('Profiler.stop');
session.disconnect();

const nodes = new Map((profile.nodes as ProfileNode[]).map((node) => [node.id, node]));
const selfUs = new Map<string, number>();
let totalUs = 0;
profile.samples?.forEach((id, i) => {
  const delta = profile.timeDeltas?.[i] ?? 0;
  const frame = nodes.get(id)!.callFrame;
  // Frames are named by function and file (line numbers point into tsx's transpiled output, so they are left out).
  const key = `${frame.functionName || '(anonymous)'} ${frame.url.replace(/^.*\/(node_modules\/)?/, '') || '(native)'}`;
  selfUs.set(key, (selfUs.get(key) ?? 0) + delta);
  totalUs += delta;
});
const rows = [...selfUs]
  .sort((a, b) => b[1] - a[1])
  .slice(0, TOP)
  .map(([frame, us]) => [frame, (us / 1000 / calls).toFixed(3), `${((100 * us) / totalUs).toFixed(1)}%`]);
printTable(
  `Top ${TOP} frames by self time, case '${name}', ${calls} calls, ${(elapsed / calls).toFixed(3)} ms per call (profiled)`,
  ['function file', 'self ms per call', 'share'],
  rows,
);
