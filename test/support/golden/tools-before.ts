// A tools module for `tool-contract regress --baseline`: the order lookup before its totals rule changed.
import { ordersUnder, TOTALS_BEFORE } from './order-tools.js';

export const tools = [ordersUnder(TOTALS_BEFORE)];
