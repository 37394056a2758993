import type { GoldenCaseResult } from '../contract/golden-set.js';
import type { RegressReport } from './regress.js';

/** The report as text: one table row per case, then what missed its expectation and which rule versions changed. */
export function regressText(report: RegressReport): string {
  const baseline = report.baseline === 'module' ? 'the baseline module' : 'the recorded outcomes';
  const rows = report.tools.flatMap((tool) =>
    tool.cases.map(
      (result) =>
        `| ${tool.tool} | ${result.id} | ${outcomeText(result.outcome)} | ${result.baseline === null ? '-' : outcomeText(result.baseline)} | ${result.changed ? 'changed' : ''} | ${result.expectation.replace('_', ' ')} |`,
    ),
  );
  const misses = report.tools.flatMap((tool) =>
    tool.cases
      .filter((result) => result.expectation === 'not_met')
      .map((result) => `- ${tool.tool} ${result.id}: ${result.mismatches.join('; ')}`),
  );
  const rules = ruleChangeCounts(
    report.tools.flatMap((tool) => tool.cases.map((result) => ({ tool: tool.tool, result }))),
  );
  return [
    `${report.casesFile}: ${report.tools.reduce((sum, tool) => sum + tool.cases.length, 0)} case(s); ${report.changed} changed against ${baseline}, ${report.notMet} miss their expectation`,
    '',
    '| tool | case | outcome now | baseline | | expectation |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows,
    ...(misses.length === 0 ? [] : ['', 'Expectations missed:', ...misses]),
    ...(rules.length === 0 ? [] : ['', 'Rule versions changed:', ...rules]),
  ].join('\n');
}

function outcomeText(outcome: GoldenCaseResult['outcome']): string {
  const refused = outcome.failedLayer === null ? '' : ` at ${outcome.failedLayer}`;
  return `${outcome.status}${outcome.code === null ? '' : ` ${outcome.code}`}${refused}`;
}

function ruleChangeCounts(results: readonly { tool: string; result: GoldenCaseResult }[]): string[] {
  const counts = new Map<string, number>();
  for (const { tool, result } of results)
    for (const change of result.ruleChanges)
      counts.set(`${tool} ${change}`, (counts.get(`${tool} ${change}`) ?? 0) + 1);
  return [...counts].map(([change, count]) => `- ${change} (${count} case${count === 1 ? '' : 's'})`);
}
