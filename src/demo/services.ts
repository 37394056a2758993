import type { ToolRegistry } from '../index.js';
import { DEMO_TOOLS } from './demo-names.js';
import { demoTools } from './demo-tools.js';
import { ShopBackend, type ProviderRefund, type ShopBackendOptions } from './shop-backend.js';
import type { DemoCase } from './shop-data.js';

/** The demo's outside world, in-process: order system, knowledge base and payment provider, and the tools bound to them. */
export interface DemoServices {
  /** The demo tools, talking HTTP to the local backend. */
  readonly tools: ToolRegistry;
  /** Tools that may be sent once more with the same key after the provider said "not committed". */
  readonly safeRetryTools: readonly string[];
  /** Base URL of the local backend (127.0.0.1, a free port). */
  readonly baseUrl: string;
  /** Seeds a fresh customer and damaged order for one demo run. */
  openCase(): DemoCase;
  /** Refunds the payment provider committed (all runs). */
  refundsCommitted(): number;
  /** The committed refunds themselves, oldest first. */
  committedRefunds(): readonly ProviderRefund[];
  /** Refund requests that reached the provider for one idempotency key. */
  refundRequests(idempotencyKey: string): number;
  stop(): Promise<void>;
}

/** Starts the in-process backend on a free local port and binds the demo tools to it. */
export async function startDemoServices(options: ShopBackendOptions = {}): Promise<DemoServices> {
  const backend = await new ShopBackend(options).start();
  return {
    tools: demoTools(backend.baseUrl),
    safeRetryTools: [DEMO_TOOLS.refundCreate],
    baseUrl: backend.baseUrl,
    openCase: () => backend.openCase(),
    refundsCommitted: () => backend.committedRefunds().length,
    committedRefunds: () => backend.committedRefunds(),
    refundRequests: (key) => backend.refundRequests(key),
    stop: () => backend.stop(),
  };
}
