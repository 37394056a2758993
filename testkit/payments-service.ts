import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/**
 * How the fake payments service treats one POST /charges for a key:
 * - `ok`: commit (once per key) and answer;
 * - `commit_then_hang`: commit, then never answer (the caller times out not knowing);
 * - `hang_before_commit`: never commit, never answer (a lost request);
 * - `fail_before_commit`: answer 503 without committing;
 * - `error_before_commit`: answer a plain 500 without committing (the caller cannot tell whether it committed);
 * - `slow`: wait `slowMs`, then commit and answer.
 */
export type ChargeFault =
  'ok' | 'commit_then_hang' | 'hang_before_commit' | 'fail_before_commit' | 'error_before_commit' | 'slow';

/** How GET /charges/:key (the status query by idempotency key) answers: the truth, or 503 forever. */
export type StatusFault = 'truthful' | 'unavailable';

/**
 * A one-shot fault for the next status query of a key (queued, then the truth): `hang` never answers (the
 * reconcile query is in flight, e.g. for a test that kills the worker right then), `unavailable` answers 503,
 * `slow` answers the truth after `slowMs`.
 */
export type QueuedStatusFault = 'hang' | 'unavailable' | 'slow';

/** One committed charge. */
export interface Charge {
  readonly charge_id: string;
  readonly idempotency_key: string;
  readonly customer: string;
  readonly amount_cents: number;
  readonly status: 'succeeded';
  readonly created_at: string;
}

/** One payout: an asynchronous job the service accepts at once and finishes after some status polls. */
export interface PayoutJob {
  readonly job_id: string;
  readonly idempotency_key: string;
  readonly amount_cents: number;
  /** Status polls that answer `running` before the job answers `paid`. */
  readonly runningPolls: number;
  polls: number;
  payout_id: string | null;
}

/**
 * An in-process HTTP payments service for tests. It is idempotent by key like a real one, and it counts, per
 * idempotency key, how many charge requests arrived (`dispatches`) and how many side effects happened (`commits`),
 * so a test can prove "exactly one side effect" and "never re-dispatched". Faults are queued per key. Payouts are
 * asynchronous jobs: POST /payouts answers 202 with a job id, GET /payouts/jobs/:id answers `running` until the
 * job is paid.
 */
export class PaymentsService {
  private readonly server: Server;
  private readonly charges = new Map<string, Charge>();
  private readonly commitCounts = new Map<string, number>();
  private readonly dispatchCounts = new Map<string, number>();
  private readonly faults = new Map<string, ChargeFault[]>();
  private readonly statusFaults = new Map<string, StatusFault>();
  private readonly queuedStatusFaults = new Map<string, QueuedStatusFault[]>();
  private readonly statusQueryCounts = new Map<string, number>();
  private readonly statusQueryHooks = new Map<string, () => Promise<void>>();
  private readonly hanging = new Set<ServerResponse>();
  private readonly payouts = new Map<string, PayoutJob>();
  private readonly payoutRunningPolls = new Map<string, number>();
  private sequence = 0;
  private port = 0;
  private readonly slowMs: number;

  constructor(slowMs = 300) {
    this.slowMs = slowMs;
    this.server = createServer((req, res) => {
      this.handle(req, res).catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
      });
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    this.port = typeof address === 'object' && address !== null ? address.port : 0;
    return this;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /**
   * How long an idle client connection stays open (Node's default is 5 s): longer, a worker frozen for a while still
   * finds its connection open when it wakes up, and sends its request on it at once.
   */
  keepConnectionsAlive(ms: number): void {
    this.server.keepAliveTimeout = ms;
  }

  /** Queues faults for the next charge requests of `key` (then `ok`). */
  inject(key: string, ...faults: ChargeFault[]): void {
    this.faults.set(key, [...(this.faults.get(key) ?? []), ...faults]);
  }

  /** Makes status queries for `key` answer 503 (the outcome can never be learned from the service). */
  setStatusFault(key: string, fault: StatusFault): void {
    this.statusFaults.set(key, fault);
  }

  /** Queues one-shot faults for the next status queries of `key` (then the truth). */
  injectStatus(key: string, ...faults: QueuedStatusFault[]): void {
    this.queuedStatusFaults.set(key, [...(this.queuedStatusFaults.get(key) ?? []), ...faults]);
  }

  /**
   * Runs `hook` when the next status query of `key` arrives, before it is answered: for a test that changes the world
   * while the query is in flight (e.g. writes what an earlier, killed run of that query had recorded).
   */
  beforeNextStatusQuery(key: string, hook: () => Promise<void>): void {
    this.statusQueryHooks.set(key, hook);
  }

  /** Status queries that arrived for `key`. */
  statusQueries(key: string): number {
    return this.statusQueryCounts.get(key) ?? 0;
  }

  /** Every key a charge request arrived for, in arrival order. */
  keys(): string[] {
    return [...this.dispatchCounts.keys()];
  }

  /** Side effects that happened for `key` (0 or 1 for a correct client). */
  commits(key: string): number {
    return this.commitCounts.get(key) ?? 0;
  }

  /** Charge requests that arrived for `key`. */
  dispatches(key: string): number {
    return this.dispatchCounts.get(key) ?? 0;
  }

  charge(key: string): Charge | undefined {
    return this.charges.get(key);
  }

  /** Makes the payout job of `key` answer `running` to this many polls before it is paid (default 1). */
  payoutRunsFor(key: string, polls: number): void {
    this.payoutRunningPolls.set(key, polls);
  }

  /** The payout job accepted for `key`, with how often it was polled. */
  payout(key: string): Readonly<PayoutJob> | undefined {
    return this.payouts.get(key);
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.hanging.clear();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.baseUrl);
    if (req.method === 'POST' && url.pathname === '/charges') return this.createCharge(await readJson(req), res);
    if (req.method === 'POST' && url.pathname === '/payouts') return this.createPayout(await readJson(req), res);
    const job = /^\/payouts\/jobs\/(.+)$/.exec(url.pathname);
    if (req.method === 'GET' && job?.[1] !== undefined) return this.payoutStatus(decodeURIComponent(job[1]), res);
    // No side effect: lets a client open (and keep) a connection before it charges.
    if (req.method === 'GET' && url.pathname === '/health') return send(res, 200, { ok: true });
    const match = /^\/charges\/(.+)$/.exec(url.pathname);
    if (req.method === 'GET' && match?.[1] !== undefined) return this.chargeStatus(decodeURIComponent(match[1]), res);
    res.writeHead(404).end();
  }

  private async createCharge(body: unknown, res: ServerResponse): Promise<void> {
    const { idempotency_key: key, customer, amount_cents: amount } = (body ?? {}) as Record<string, unknown>;
    if (typeof key !== 'string' || typeof customer !== 'string' || typeof amount !== 'number') {
      return send(res, 400, { error: 'bad_request' });
    }
    this.dispatchCounts.set(key, this.dispatches(key) + 1);
    const fault = this.faults.get(key)?.shift() ?? 'ok';
    switch (fault) {
      case 'fail_before_commit':
        return send(res, 503, { error: 'unavailable' });
      case 'error_before_commit':
        return send(res, 500, { error: 'internal' });
      case 'hang_before_commit':
        this.hanging.add(res);
        return;
      case 'commit_then_hang':
        this.commit(key, customer, amount);
        this.hanging.add(res);
        return;
      case 'slow':
        await new Promise((resolve) => setTimeout(resolve, this.slowMs));
        return send(res, 200, this.commit(key, customer, amount));
      case 'ok':
        return send(res, 200, this.commit(key, customer, amount));
    }
  }

  private async chargeStatus(key: string, res: ServerResponse): Promise<void> {
    this.statusQueryCounts.set(key, this.statusQueries(key) + 1);
    const hook = this.statusQueryHooks.get(key);
    this.statusQueryHooks.delete(key);
    await hook?.();
    if (this.statusFaults.get(key) === 'unavailable') return send(res, 503, { error: 'unavailable' });
    const queued = this.queuedStatusFaults.get(key)?.shift();
    if (queued === 'unavailable') return send(res, 503, { error: 'unavailable' });
    if (queued === 'hang') {
      this.hanging.add(res);
      return;
    }
    if (queued === 'slow') await new Promise((resolve) => setTimeout(resolve, this.slowMs));
    const charge = this.charges.get(key);
    if (charge === undefined) return send(res, 404, { error: 'not_found' });
    send(res, 200, charge);
  }

  /** Accepts a payout job, once per key: a repeated request gets the same job. */
  private createPayout(body: unknown, res: ServerResponse): void {
    const { idempotency_key: key, amount_cents: amount } = (body ?? {}) as Record<string, unknown>;
    if (typeof key !== 'string' || typeof amount !== 'number') return send(res, 400, { error: 'bad_request' });
    let job = this.payouts.get(key);
    if (job === undefined) {
      this.sequence += 1;
      job = {
        job_id: `job_${String(this.sequence).padStart(6, '0')}`,
        idempotency_key: key,
        amount_cents: amount,
        runningPolls: this.payoutRunningPolls.get(key) ?? 1,
        polls: 0,
        payout_id: null,
      };
      this.payouts.set(key, job);
    }
    send(res, 202, { job_id: job.job_id, poll_after_ms: 100 });
  }

  private payoutStatus(jobId: string, res: ServerResponse): void {
    const job = [...this.payouts.values()].find((candidate) => candidate.job_id === jobId);
    if (job === undefined) return send(res, 404, { error: 'not_found' });
    job.polls += 1;
    if (job.polls <= job.runningPolls) return send(res, 200, { job_id: job.job_id, state: 'running' });
    job.payout_id ??= `po_${job.job_id.slice(4)}`;
    send(res, 200, {
      job_id: job.job_id,
      state: 'paid',
      payout_id: job.payout_id,
      amount_cents: job.amount_cents,
      paid_at: new Date().toISOString(),
    });
  }

  /** Idempotent by key: a second request for a committed key returns the same charge and is not a new effect. */
  private commit(key: string, customer: string, amount: number): Charge {
    const existing = this.charges.get(key);
    if (existing !== undefined) return existing;
    this.sequence += 1;
    const charge: Charge = {
      charge_id: `ch_${String(this.sequence).padStart(6, '0')}`,
      idempotency_key: key,
      customer,
      amount_cents: amount,
      status: 'succeeded',
      created_at: new Date().toISOString(),
    };
    this.charges.set(key, charge);
    this.commitCounts.set(key, this.commits(key) + 1);
    return charge;
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    return null;
  }
}
