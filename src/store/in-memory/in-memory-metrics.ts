import { auditFactsOf, decidedLayersOf } from '../audit-index.js';
import {
  checkWindow,
  contractMetricsOf,
  type ContractMetrics,
  type MetricsWindow,
  type RuleCounts,
  type ToolCounts,
} from '../contract-metrics.js';
import type { ReconciliationRecord } from '../reconciliation.js';
import { reconciliationMetricsOf } from './in-memory-reconciliation.js';
import type { InMemoryTables, Mutable } from './in-memory-tables.js';

/** Counts audits, their decided layers, labels and reconciliation rounds in the window; the figures come from the one shared derivation. */
export function contractMetrics(tables: InMemoryTables, window: MetricsWindow): ContractMetrics {
  const checked = checkWindow(window);
  const inWindow = (at: string, tool: string) =>
    (checked.since === null || Date.parse(at) >= checked.since.getTime()) &&
    (checked.tool === null || tool === checked.tool);
  const labelled = (label: string) =>
    new Set([...tables.labels.values()].filter((l) => l.label === label).map((l) => l.auditId));
  const falseAccepted = labelled('false_accept');
  const falseRejected = labelled('false_reject');
  const rounds = [...tables.reconciliations.values()].flat().filter((round) => inWindow(round.openedAt, round.tool));
  const tools = new Map<string, Mutable<Omit<ToolCounts, 'reconciliation'>> & { rounds: ReconciliationRecord[] }>();
  const toolEntry = (tool: string) => {
    let entry = tools.get(tool);
    if (entry === undefined)
      tools.set(
        tool,
        (entry = { tool, attempts: 0, byCode: {}, warnings: {}, falseAccepts: 0, falseRejects: 0, rounds: [] }),
      );
    return entry;
  };
  const rules = new Map<string, Mutable<RuleCounts>>();
  for (const { recordedAt, audit, modelResult } of tables.audits.values()) {
    if (!inWindow(recordedAt, audit.tool)) continue;
    const facts = auditFactsOf(audit, modelResult);
    const entry = toolEntry(facts.tool);
    const byCode = entry.byCode as Record<string, number>;
    const warnings = entry.warnings as Record<string, number>;
    entry.attempts += 1;
    if (facts.errorCode !== null) byCode[facts.errorCode] = (byCode[facts.errorCode] ?? 0) + 1;
    for (const code of facts.warnings) warnings[code] = (warnings[code] ?? 0) + 1;
    if (facts.accepted && falseAccepted.has(facts.auditId)) entry.falseAccepts += 1;
    if (!facts.accepted && falseRejected.has(facts.auditId)) entry.falseRejects += 1;
    for (const layer of decidedLayersOf(audit)) {
      const key = `${facts.tool}\u0000${layer.layer}\u0000${layer.ruleVersion}`;
      let rule = rules.get(key);
      if (rule === undefined)
        rules.set(
          key,
          (rule = {
            tool: facts.tool,
            layer: layer.layer,
            ruleVersion: layer.ruleVersion,
            passed: 0,
            warned: 0,
            failed: 0,
            accepted: 0,
            falseAccepts: 0,
            falseRejects: 0,
          }),
        );
      rule[layer.outcome] += 1;
      if (facts.accepted) rule.accepted += 1;
      if (facts.accepted && falseAccepted.has(facts.auditId)) rule.falseAccepts += 1;
      if (layer.outcome === 'failed' && falseRejected.has(facts.auditId)) rule.falseRejects += 1;
    }
  }
  for (const round of rounds) toolEntry(round.tool).rounds.push(round);
  const toolCounts: ToolCounts[] = [...tools.values()].map(({ rounds: toolRounds, ...entry }) => ({
    ...entry,
    reconciliation: reconciliationMetricsOf(toolRounds),
  }));
  return contractMetricsOf(checked, {
    tools: toolCounts,
    rules: [...rules.values()],
    reconciliation: reconciliationMetricsOf(rounds),
  });
}
