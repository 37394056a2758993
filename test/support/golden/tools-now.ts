// A tools module for `tool-contract regress --tools`: the order lookup with its totals rule at version 2.
import { ordersUnder, TOTALS_NOW } from './order-tools.js';

export const tools = [ordersUnder(TOTALS_NOW)];
