import type { Invariant } from '../../../src/index.js';
import { orderTool, type Order } from '../tools.js';

/** The order lookup of the golden-set fixtures under one version of its totals rule; its handler is never called. */
export function ordersUnder(totals: Invariant<{ order_id: string }, Order>) {
  return orderTool(() => Promise.reject(new Error('a golden set replays recorded output')), { invariants: [totals] });
}

/** The totals rule as it was: any positive total. */
export const TOTALS_BEFORE: Invariant<{ order_id: string }, Order> = {
  id: 'total-matches-lines',
  version: 1,
  check: (data) => data.total_cents > 0,
};

/** The totals rule now: the total is the sum of the lines. */
export const TOTALS_NOW: Invariant<{ order_id: string }, Order> = {
  id: 'total-matches-lines',
  version: 2,
  check: (data) =>
    data.total_cents === data.lines.reduce((sum, line) => sum + line.cents, 0) || 'total differs from the sum of lines',
};
