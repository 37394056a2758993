import type { z } from 'zod';
import { implementTool } from '../contract/implement-tool.js';
import { readFetchJson, ToolRegistry, type HttpJson, type ReconcileOutcome, type ToolOutput } from '../index.js';
import {
  kbSearch,
  orderGet,
  orderList,
  refundCreate,
  type OrderData,
  type orderSummary,
  type RefundData,
} from './demo-declarations.js';

export { ORDER_LIST_ITEM_BUDGET } from './demo-declarations.js';

/** The demo's tools (demo-declarations.ts), implemented against the shop backend at `baseUrl`. */
export function demoTools(baseUrl: string): ToolRegistry {
  const http = async (path: string, init: RequestInit = {}): Promise<HttpJson> =>
    readFetchJson(await fetch(`${baseUrl}${path}`, { redirect: 'error', ...init }));
  const refundOf = ({ json, rawResponse }: HttpJson): ToolOutput<RefundData> => {
    const body = record(json);
    const data = pick(body, ['refund_id', 'order_id', 'amount_cents', 'currency', 'status']) as RefundData;
    return {
      data,
      receipt: { externalId: String(body['refund_id']), committedAt: String(body['created_at']) },
      observedAt: String(body['created_at']),
      evidence: [
        {
          kind: 'payment_receipt',
          locator: `payments/refunds/${String(body['refund_id'])}`,
          supports: ['/refund_id', '/amount_cents', '/status'],
        },
      ],
      rawResponse,
    };
  };

  return new ToolRegistry([
    implementTool(orderGet, {
      handler: async (args, ctx) => {
        const response = await http(`/orders/${encodeURIComponent(args.order_id)}`, signalOf(ctx));
        const { observed_at: observedAt, ...data } = record(response.json);
        return {
          data: data as OrderData,
          observedAt: String(observedAt),
          evidence: [
            {
              kind: 'order_record',
              locator: `shop/orders/${args.order_id}`,
              supports: ['/order_id', '/status', '/delivered_at', '/total_cents', '/paid_cents', '/refunded_cents'],
              observedAt: String(observedAt),
            },
          ],
          rawResponse: response.rawResponse,
        };
      },
    }),
    implementTool(orderList, {
      handler: async (args, ctx) => {
        const offset = args.offset ?? 0;
        const response = await http(
          `/customers/${encodeURIComponent(args.customer_id)}/orders?offset=${offset}`,
          signalOf(ctx),
        );
        const body = record(response.json);
        const orders = Array.isArray(body['orders']) ? (body['orders'] as z.infer<typeof orderSummary>[]) : [];
        return {
          data: { customer_id: String(body['customer_id']), orders },
          availableItems: typeof body['total'] === 'number' ? Math.max(0, body['total'] - offset) : null,
          evidence: [
            {
              kind: 'order_listing',
              locator: `shop/customers/${args.customer_id}/orders?offset=${offset}`,
              supports: ['/orders'],
            },
          ],
          rawResponse: response.rawResponse,
        };
      },
    }),
    implementTool(kbSearch, {
      handler: async (args, ctx) => {
        const response = await http(`/kb/search?q=${encodeURIComponent(args.query)}`, signalOf(ctx));
        const articles = (
          Array.isArray(record(response.json)['articles']) ? (record(response.json)['articles'] as unknown[]) : []
        ).map(record);
        return {
          data: {
            query: args.query,
            results: articles.map(
              (article) =>
                pick(article, ['article_id', 'title', 'updated_at']) as {
                  article_id: string;
                  title: string;
                  updated_at: string;
                },
            ),
          },
          // The article bodies are the free text: isolated as untrusted content, never merged into the facts.
          untrusted: articles.map((article) => ({
            text: String(article['body']),
            source: `help-center/articles/${String(article['article_id'])}`,
          })),
          evidence: articles.map((article, i) => ({
            kind: 'kb_article',
            locator: `help-center/articles/${String(article['article_id'])}`,
            supports: [`/results/${i}/article_id`, `/results/${i}/title`],
          })),
          rawResponse: response.rawResponse,
        };
      },
    }),
    implementTool(refundCreate, {
      handler: async (args, ctx) => {
        await ctx.beforeDispatch();
        return refundOf(
          await http('/refunds', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({
              idempotency_key: ctx.idempotencyKey,
              order_id: args.order_id,
              amount_cents: args.amount_cents,
              reason: args.reason,
            }),
            ...signalOf(ctx),
          }),
        );
      },
      // The provider is the authority: asked by idempotency key, it says whether the refund happened.
      reconcile: async (key, ctx): Promise<ReconcileOutcome<RefundData>> => {
        const res = await fetch(`${baseUrl}/refunds/${encodeURIComponent(key)}`, {
          redirect: 'error',
          ...signalOf(ctx),
        });
        if (res.status === 404) return { state: 'not_committed' };
        if (!res.ok) return { state: 'unknown', reason: `status query answered ${res.status}` };
        return { state: 'committed', output: refundOf(await readFetchJson(res)) };
      },
    }),
  ]);
}

function signalOf(ctx: { readonly signal?: AbortSignal }): { signal?: AbortSignal } {
  return ctx.signal === undefined ? {} : { signal: ctx.signal };
}

/** The JSON object of a response (anything else becomes an empty object, which the output schema then refuses). */
function record(json: unknown): Record<string, unknown> {
  return json !== null && typeof json === 'object' && !Array.isArray(json) ? (json as Record<string, unknown>) : {};
}

/** Only the named fields: the provider's extra fields (idempotency key, timestamps) never reach the model. */
function pick(source: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((key) => key in source).map((key) => [key, source[key]]));
}
