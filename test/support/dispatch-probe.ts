// A control channel from a worker process's charge tool to its test: at each dispatch point (just before the fence,
// just past it) the tool asks the test's probe server over HTTP and waits for the answer. To freeze the worker right
// there, the server sends SIGSTOP to the asking process before it answers: the answer waits in the socket until the
// test sends SIGCONT. Loopback only.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DispatchPoint, DispatchPointAnswer } from '../../testkit/payment-tools.js';

/** What a worker reports at a dispatch point. */
interface ProbeReport {
  readonly point: DispatchPoint;
  readonly idempotencyKey: string;
  readonly pid: number;
}

/** What the probe answers a worker. */
interface ProbeAnswer extends DispatchPointAnswer {
  /** Open a connection to the provider now. */
  readonly warm: boolean;
}

/** Where the test wants a call's worker frozen, and whether it should open its provider connection first. */
export interface FreezePlan {
  readonly point: DispatchPoint;
  /**
   * Open a keep-alive connection to the provider before the fence, so that after the freeze the request leaves on it
   * at once instead of waiting for a new connection (which a deadline timer can still abort).
   */
  readonly warmConnection: boolean;
  /** See `DispatchPointAnswer.sendRegardless`. */
  readonly sendRegardless: boolean;
}

/** A worker frozen at its dispatch point. */
export interface Frozen {
  readonly pid: number;
  readonly at: number;
  /** SIGCONT. */
  resume(): void;
}

/** The test side: plan a freeze per idempotency key, then wait for it to happen. */
export interface DispatchProbe {
  readonly url: string;
  plan(idempotencyKey: string, plan: FreezePlan): void;
  /** Resolves once the call's worker was frozen as planned. */
  frozen(idempotencyKey: string): Promise<Frozen>;
  /** Every point each key's worker reported, in order (for assertions on the path taken). */
  reports(idempotencyKey: string): readonly DispatchPoint[];
  stop(): Promise<void>;
}

export async function startDispatchProbe(): Promise<DispatchProbe> {
  const plans = new Map<string, FreezePlan>();
  const reports = new Map<string, DispatchPoint[]>();
  const waiters = new Map<string, { promise: Promise<Frozen>; resolve: (frozen: Frozen) => void }>();
  const waiter = (key: string) => {
    let entry = waiters.get(key);
    if (entry === undefined) {
      let resolve!: (frozen: Frozen) => void;
      const promise = new Promise<Frozen>((r) => (resolve = r));
      entry = { promise, resolve };
      waiters.set(key, entry);
    }
    return entry;
  };
  const server: Server = createServer((req, res) => {
    void readReport(req).then((report) => {
      const plan = plans.get(report.idempotencyKey);
      reports.set(report.idempotencyKey, [...(reports.get(report.idempotencyKey) ?? []), report.point]);
      if (plan?.point === report.point) {
        process.kill(report.pid, 'SIGSTOP');
        waiter(report.idempotencyKey).resolve({
          pid: report.pid,
          at: Date.now(),
          resume: () => process.kill(report.pid, 'SIGCONT'),
        });
      }
      const answer: ProbeAnswer = {
        warm: plan !== undefined && report.point === 'before_fence' && plan.warmConnection,
        sendRegardless: plan?.sendRegardless === true,
      };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/dispatch-point`,
    plan: (key, plan) => plans.set(key, plan),
    frozen: (key) => waiter(key).promise,
    reports: (key) => reports.get(key) ?? [],
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * The worker side: reports a dispatch point to the probe at `probeUrl` and waits for its answer (this is where the
 * test freezes the process); opens a connection to the provider at `paymentsUrl` when the probe asks for it.
 */
export function reportDispatchPoints(
  probeUrl: string,
  paymentsUrl: string,
): (point: DispatchPoint, idempotencyKey: string) => Promise<DispatchPointAnswer> {
  return async (point, idempotencyKey) => {
    const report: ProbeReport = { point, idempotencyKey, pid: process.pid };
    const res = await fetch(probeUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(report),
    });
    const answer = (await res.json()) as ProbeAnswer;
    if (answer.warm) await (await fetch(`${paymentsUrl}/health`)).arrayBuffer();
    return { sendRegardless: answer.sendRegardless };
  };
}

async function readReport(req: IncomingMessage): Promise<ProbeReport> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as ProbeReport;
}
