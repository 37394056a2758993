// The demo worker's workflows module (its `workflowsPath`): the package's workflows, as any user re-exports them,
// plus the demo support agent. Sandbox-only, like every workflows module.
export * from '../../workflows/index.js';
export { supportAgentDemo } from './support-agent-workflow.js';
