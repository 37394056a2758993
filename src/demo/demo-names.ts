// Names of the demo, defined once. Sandbox-safe (the demo workflow imports it): plain constants only.

/** Task queue of the demo worker. */
export const DEMO_TASK_QUEUE = 'ttc-demo';

/** Workflow type of the demo support agent (must equal the exported workflow function's name). */
export const SUPPORT_DEMO_WORKFLOW_TYPE = 'supportAgentDemo';

/** The demo's tools, by contract name. */
export const DEMO_TOOLS = {
  orderGet: 'orders.get',
  orderList: 'orders.list',
  kbSearch: 'kb.search',
  refundCreate: 'refunds.create',
} as const;
