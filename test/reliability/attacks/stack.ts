// What the whole-stack reliability tests share: each provider adapter's rendering of a model result, checks that
// results are valid and leak nothing, and the metrics table they print.
import assert from 'node:assert/strict';
import { toToolResultBlock } from '../../../src/adapters/anthropic.js';
import { GEMINI_NAME_MAX, toFunctionResponse } from '../../../src/adapters/gemini.js';
import { toCallToolResult } from '../../../src/adapters/mcp.js';
import { toChatToolMessage, toProviderToolName, toResponsesOutput } from '../../../src/adapters/openai.js';
import { modelResultSchema, type ModelResult } from '../../../src/index.js';
import type { ContractMetrics } from '../../../src/store/index.js';
import { metricsTable } from '../../../src/cli/metrics.js';

/** A model result as every provider adapter renders it (OpenAI Responses and Chat, Anthropic, Gemini, MCP). */
export function adapterRenderings(callId: string, toolName: string, result: ModelResult): Record<string, unknown> {
  return {
    openaiResponses: toResponsesOutput(callId, result),
    openaiChat: toChatToolMessage(callId, result),
    anthropic: toToolResultBlock(callId, result),
    gemini: toFunctionResponse({ id: callId, name: toProviderToolName(toolName, GEMINI_NAME_MAX), result }),
    mcp: toCallToolResult(result),
  };
}

/** Asserts a value is a valid `tool-result.model.v1` with an error code from the catalog (or no error). */
export function assertValidModelResult(result: unknown, label: string): asserts result is ModelResult {
  const parsed = modelResultSchema.safeParse(result);
  assert.ok(
    parsed.success,
    `${label}: not a tool-result.model.v1: ${parsed.success ? '' : parsed.error.message.slice(0, 400)}`,
  );
}

/** Asserts that none of `forbidden` occurs in any of `texts` (named, so a failure says where it leaked). */
export function assertAbsent(
  texts: Readonly<Record<string, string>>,
  forbidden: readonly string[],
  label: string,
): void {
  for (const [where, text] of Object.entries(texts)) {
    for (const value of forbidden)
      assert.ok(!text.includes(value), `${label}: '${value.slice(0, 32)}' leaked into ${where}`);
  }
}

/** Prints the store's metrics after a suite as the Markdown table docs/reliability.md shows. */
export function printMetrics(title: string, metrics: ContractMetrics): void {
  process.stdout.write(`\n### ${title}\n${metricsTable(metrics)}\n\n`);
}
