// The demo support agent as a library: the CLI starts the Temporal dev server, Postgres, the demo services and a
// worker (task queue DEMO_TASK_QUEUE, workflowsPath DEMO_WORKFLOWS_PATH, the plugin with services.tools), then calls
// runDemo and prints formatDemoSummary.
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';

export { DEMO_TASK_QUEUE, DEMO_TOOLS, SUPPORT_DEMO_WORKFLOW_TYPE } from './demo-names.js';
export { startDemoServices, type DemoServices } from './services.js';
export type { ShopBackendOptions, ProviderRefund } from './shop-backend.js';
export type { DemoCase } from './shop-data.js';
export { runDemo, type DemoOptions } from './run-demo.js';
export {
  formatDemoSummary,
  type DemoSummary,
  type DemoToolCall,
  type DemoRefund,
  type DemoReconciliation,
} from './summary.js';
export type { SupportDemoInput, SupportDemoResult } from './support-agent-workflow.js';

/**
 * Absolute path of the demo workflows module, for `Worker.create({ workflowsPath })`: the package's workflows plus
 * the demo agent. Same extension as this file, so it works from the TypeScript sources (tsx) and from `lib/`.
 */
export const DEMO_WORKFLOWS_PATH: string = fileURLToPath(
  new URL(`./workflows${extname(fileURLToPath(import.meta.url))}`, import.meta.url),
);
/** The demo's tool declarations, which its workflow imports: loaded once per workflow thread (`declarationModules`). */
export const DEMO_DECLARATIONS_PATH: string = fileURLToPath(
  new URL(`./demo-declarations${extname(fileURLToPath(import.meta.url))}`, import.meta.url),
);
