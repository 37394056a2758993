import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { ORDER_LIST_ITEM_BUDGET } from './demo-tools.js';
import { caseOrders, KB_ARTICLES, type DemoCase, type ShopOrder } from './shop-data.js';

/** A refund as the payment provider records it. */
export interface ProviderRefund {
  readonly refund_id: string;
  readonly idempotency_key: string;
  readonly order_id: string;
  readonly amount_cents: number;
  readonly currency: 'USD';
  readonly status: 'succeeded';
  readonly created_at: string;
}

/** Options of {@link ShopBackend}. */
export interface ShopBackendOptions {
  /** Orders per demo case; more than the listing's item budget (default 8). */
  readonly ordersPerCase?: number;
  /**
   * The first refund request of every idempotency key commits, then its response is held this long (default 60 s,
   * far past the tool's timeout) — the caller cannot know whether the refund happened. Later requests answer at once.
   */
  readonly stallFirstRefundMs?: number;
}

/**
 * The demo's outside world as one local HTTP server on 127.0.0.1: the shop's order system, its knowledge base and
 * the payment provider. Tools talk to it over real HTTP. The provider is idempotent by key like a real one and
 * counts requests and committed refunds, so the demo can prove "exactly one refund".
 */
export class ShopBackend {
  private readonly server: Server;
  private readonly orders = new Map<string, ShopOrder>();
  private readonly refunds = new Map<string, ProviderRefund>();
  private readonly requests = new Map<string, number>();
  private readonly held = new Set<ServerResponse>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private cases = 0;
  private port = 0;
  private readonly options: ShopBackendOptions;

  constructor(options: ShopBackendOptions = {}) {
    this.options = options;
    const { ordersPerCase = 8, stallFirstRefundMs = 60_000 } = options;
    // The script continues the listing once: a case needs more orders than one page shows.
    if (!Number.isSafeInteger(ordersPerCase) || ordersPerCase <= ORDER_LIST_ITEM_BUDGET || ordersPerCase > 100) {
      throw new RangeError(
        `ordersPerCase must be an integer from ${ORDER_LIST_ITEM_BUDGET + 1} to 100 (got ${String(ordersPerCase)})`,
      );
    }
    if (!Number.isSafeInteger(stallFirstRefundMs) || stallFirstRefundMs < 0)
      throw new RangeError(`stallFirstRefundMs must be a non-negative integer (got ${String(stallFirstRefundMs)})`);
    this.server = createServer((req, res) => {
      this.route(req, res).catch(() => {
        if (!res.headersSent) send(res, 500, { error: 'internal' });
      });
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', resolve);
    });
    const address = this.server.address();
    this.port = typeof address === 'object' && address !== null ? address.port : 0;
    return this;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Seeds a fresh customer with orders, so every demo run has its own order to refund. */
  openCase(): DemoCase {
    this.cases += 1;
    const { demoCase, orders } = caseOrders(this.cases, this.options.ordersPerCase ?? 8);
    for (const order of orders) this.orders.set(order.order_id, order);
    return demoCase;
  }

  /** Every refund the provider committed, oldest first. */
  committedRefunds(): ProviderRefund[] {
    return [...this.refunds.values()];
  }

  /** Refund requests that reached the provider for `key` (committed or not). */
  refundRequests(key: string): number {
    return this.requests.get(key) ?? 0;
  }

  async stop(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    for (const res of this.held) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.baseUrl);
    const path = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    if (req.method === 'GET' && path[0] === 'orders' && path.length === 2) return this.getOrder(path[1]!, res);
    if (req.method === 'GET' && path[0] === 'customers' && path[2] === 'orders' && path.length === 3)
      return this.listOrders(path[1]!, url.searchParams, res);
    if (req.method === 'GET' && path[0] === 'kb' && path[1] === 'search')
      return this.searchKb(url.searchParams.get('q') ?? '', res);
    if (req.method === 'POST' && path[0] === 'refunds' && path.length === 1)
      return this.createRefund(await readJson(req), res);
    if (req.method === 'GET' && path[0] === 'refunds' && path.length === 2) return this.getRefund(path[1]!, res);
    send(res, 404, { error: 'not_found' });
  }

  private getOrder(orderId: string, res: ServerResponse): void {
    const order = this.orders.get(orderId);
    if (order === undefined) return send(res, 404, { error: 'not_found' });
    send(res, 200, { ...order, refunded_cents: this.refundedCents(orderId), observed_at: new Date().toISOString() });
  }

  private listOrders(customerId: string, params: URLSearchParams, res: ServerResponse): void {
    const offset = Number(params.get('offset') ?? '0');
    if (!Number.isSafeInteger(offset) || offset < 0) return send(res, 400, { error: 'bad_offset' });
    const all = [...this.orders.values()].filter((order) => order.customer_id === customerId);
    const orders = all.slice(offset).map((order) => ({
      order_id: order.order_id,
      placed_at: order.placed_at,
      status: order.status,
      total_cents: order.total_cents,
    }));
    send(res, 200, { customer_id: customerId, offset, total: all.length, orders });
  }

  private searchKb(query: string, res: ServerResponse): void {
    const words = query.toLowerCase().split(/\W+/).filter(Boolean);
    const articles = KB_ARTICLES.filter((article) => article.keywords.some((keyword) => words.includes(keyword)));
    send(res, 200, { query, articles });
  }

  private createRefund(body: unknown, res: ServerResponse): void {
    const { idempotency_key: key, order_id: orderId, amount_cents: amount } = (body ?? {}) as Record<string, unknown>;
    if (
      typeof key !== 'string' ||
      typeof orderId !== 'string' ||
      typeof amount !== 'number' ||
      !Number.isSafeInteger(amount) ||
      amount <= 0
    ) {
      return send(res, 400, { error: 'bad_request' });
    }
    const first = this.refundRequests(key) === 0;
    this.requests.set(key, this.refundRequests(key) + 1);
    const existing = this.refunds.get(key);
    if (existing !== undefined) return send(res, 200, existing);
    const order = this.orders.get(orderId);
    if (order === undefined) return send(res, 404, { error: 'order_not_found' });
    if (amount > order.paid_cents - this.refundedCents(orderId))
      return send(res, 409, { error: 'refund_exceeds_balance' });
    const refund: ProviderRefund = {
      refund_id: `re_${String(this.refunds.size + 1).padStart(6, '0')}`,
      idempotency_key: key,
      order_id: orderId,
      amount_cents: amount,
      currency: 'USD',
      status: 'succeeded',
      created_at: new Date().toISOString(),
    };
    this.refunds.set(key, refund);
    if (!first) return send(res, 200, refund);
    // Commit-then-timeout: the money moved, but the answer does not arrive before the caller gives up.
    this.held.add(res);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.held.delete(res);
      res.destroy();
    }, this.options.stallFirstRefundMs ?? 60_000);
    timer.unref();
    this.timers.add(timer);
  }

  private getRefund(key: string, res: ServerResponse): void {
    const refund = this.refunds.get(key);
    if (refund === undefined) return send(res, 404, { error: 'not_found' });
    send(res, 200, refund);
  }

  private refundedCents(orderId: string): number {
    let sum = 0;
    for (const refund of this.refunds.values()) if (refund.order_id === orderId) sum += refund.amount_cents;
    return sum;
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
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
