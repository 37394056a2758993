// `temporal-tool-contract/ai-sdk`: the bridge to the Vercel AI SDK (`ai`) as Temporal runs it (`@temporalio/ai-sdk`).
// Contract tools become an AI SDK tool set for workflow code, and existing AI SDK tools become contract tools.
export { contractToolSet, type ContractAiTool, type ContractToolSetOptions } from './contract-tool-set.js';
export { declareAiSdkTool, type AiSdkToolFields, type AiSdkToolShape } from './declare-ai-sdk-tool.js';
export {
  implementAiSdkTool,
  type AiSdkExecutableTool,
  type AiSdkToolContext,
  type AiSdkToolRuns,
} from './implement-ai-sdk-tool.js';
