// The workflows module of the AI SDK test's worker: the package's workflows (as a user re-exports them) and an AI SDK
// agent whose tools are contract tools, its model a `temporalProvider` model (a model activity of @temporalio/ai-sdk).
// Bundled with the AiSdkPlugin, which installs the web APIs `ai` needs in the sandbox.
import { temporalProvider } from '@temporalio/ai-sdk/workflow';
import { generateText, stepCountIs } from 'ai';
import { contractToolSet } from '../../src/ai-sdk/index.js';
import type { ModelResult } from '../../src/contract/model-result.js';
import type { Principal } from '../../src/index.js';
import { customerDeclaration } from '../../testkit/payment-declarations.js';
import { aiRefundDeclaration } from './ai-sdk-refund.js';

export * from '../../workflows/index.js';

/** What the agent ended with: the model's last text and every tool result it was given, by tool. */
export interface AiSdkAgentOutcome {
  readonly text: string;
  readonly results: readonly { readonly toolName: string; readonly output: ModelResult }[];
}

/** An AI SDK agent (`generateText` with tools) that may refund payments and look customers up. */
export async function aiSdkRefundAgent(principal: Principal, prompt: string): Promise<AiSdkAgentOutcome> {
  const result = await generateText({
    model: temporalProvider.languageModel('refund-agent'),
    tools: contractToolSet([aiRefundDeclaration, customerDeclaration], { principal, provider: 'mock' }),
    prompt,
    stopWhen: stepCountIs(4),
  });
  return {
    text: result.text,
    results: result.steps.flatMap((step) =>
      step.toolResults.map(({ toolName, output }) => ({ toolName, output: output as ModelResult })),
    ),
  };
}
