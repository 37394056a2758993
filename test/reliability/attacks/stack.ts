// What the whole-stack reliability tests share: a runtime harness with extra tools registered, the text of a
// workflow's Temporal history with every payload decoded, and each provider adapter's rendering of a model result.
import assert from 'node:assert/strict';
import { toToolResultBlock } from '../../../src/adapters/anthropic.js';
import { GEMINI_NAME_MAX, toFunctionResponse } from '../../../src/adapters/gemini.js';
import { toCallToolResult } from '../../../src/adapters/mcp.js';
import { toChatToolMessage, toProviderToolName, toResponsesOutput } from '../../../src/adapters/openai.js';
import { modelResultSchema, type AnyToolDefinition, type ModelResult } from '../../../src/index.js';
import type { ContractMetrics } from '../../../src/store/index.js';
import { metricsTable } from '../../../src/cli/metrics.js';
import { integrationStore } from '../../support/integration-store.js';
import { startRuntimeHarness, type RunningWorker, type RuntimeHarness } from '../../support/runtime-harness.js';

/** A harness whose worker also offers `tools`, with one worker already running. */
export interface StackHarness {
  readonly h: RuntimeHarness;
  readonly worker: RunningWorker;
  stop(): Promise<void>;
}

/** Starts the real dev server + Postgres + worker, with `tools` registered next to the harness's payment tools. */
export async function startStack(label: string, tools: readonly AnyToolDefinition[]): Promise<StackHarness> {
  const h = await startRuntimeHarness(integrationStore(label));
  try {
    for (const tool of tools) h.tools.register(tool);
    const worker = await h.startWorker();
    return {
      h,
      worker,
      stop: async () => {
        await worker.stop();
        await h.stop();
      },
    };
  } catch (error) {
    await h.stop();
    throw error;
  }
}

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
  assert.ok(parsed.success, `${label}: not a tool-result.model.v1: ${parsed.success ? '' : parsed.error.message.slice(0, 400)}`);
}

/** Asserts that none of `forbidden` occurs in any of `texts` (named, so a failure says where it leaked). */
export function assertAbsent(texts: Readonly<Record<string, string>>, forbidden: readonly string[], label: string): void {
  for (const [where, text] of Object.entries(texts)) {
    for (const value of forbidden) assert.ok(!text.includes(value), `${label}: '${value.slice(0, 32)}' leaked into ${where}`);
  }
}

/** Prints the store's metrics after a suite as the Markdown table docs/reliability.md shows. */
export function printMetrics(title: string, metrics: ContractMetrics): void {
  process.stdout.write(`\n### ${title}\n${metricsTable(metrics)}\n\n`);
}
