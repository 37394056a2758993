/**
 * Provider bindings of the tool calls the package makes itself. They enter each call's audit binding digest, so
 * changing one changes the digests of every later call: a new revision string, never an edit in place.
 */

/** Calls made by workflow code rather than on behalf of a model response. */
export const WORKFLOW_CALL_PROVIDER = Object.freeze({
  provider: 'temporal-workflow',
  apiFamily: 'workflow',
  adapterRevision: 'ttc-workflow@1',
});

/** Calls the built-in agent loop makes for a model's turn (the provider is the model's name). */
export const AGENT_LOOP_CALL_PROVIDER = Object.freeze({
  apiFamily: 'ttc.model-turn',
  adapterRevision: 'ttc-agent-loop@1',
});

/**
 * Calls an AI SDK agent makes through `temporal-tool-contract/ai-sdk` (the provider is the name the tool set is given;
 * the provider call id is the AI SDK's tool call id).
 */
export const AI_SDK_CALL_PROVIDER = Object.freeze({ apiFamily: 'ai-sdk.tool-call', adapterRevision: 'ttc-ai-sdk@1' });

/**
 * The provider bindings of the package's own call paths (workflow code, the agent loop, the MCP server's workflows):
 * a worker accepts these and the ones its plugin lists (`acceptedProviders`), and refuses any other.
 */
export const PACKAGE_CALL_PROVIDERS = Object.freeze([
  Object.freeze({
    apiFamily: WORKFLOW_CALL_PROVIDER.apiFamily,
    adapterRevision: WORKFLOW_CALL_PROVIDER.adapterRevision,
  }),
  Object.freeze({
    apiFamily: AGENT_LOOP_CALL_PROVIDER.apiFamily,
    adapterRevision: AGENT_LOOP_CALL_PROVIDER.adapterRevision,
  }),
  Object.freeze({ apiFamily: AI_SDK_CALL_PROVIDER.apiFamily, adapterRevision: AI_SDK_CALL_PROVIDER.adapterRevision }),
]);
