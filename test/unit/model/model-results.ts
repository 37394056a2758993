import { type ModelResult } from '../../../src/index.js';
import { executeTool } from '../../../src/contract/execute-tool.js';
import { testContext } from '../../../testkit/context.js';
import { goodOrderOutput, orderTool, returning } from '../../support/tools.js';

/** A real model result (through the contract funnel) of the `orders.get` read tool, with one evidence item. */
export async function orderResult(): Promise<ModelResult> {
  const execution = await executeTool(orderTool(returning(goodOrderOutput())), { order_id: 'ord_1001' }, testContext());
  return execution.modelResult;
}

/** A real `INVALID_ARGUMENTS` model result: what a caller returns for a malformed call. */
export async function invalidArgumentsResult(): Promise<ModelResult> {
  const execution = await executeTool(orderTool(returning(goodOrderOutput())), 'not an object', testContext());
  return execution.modelResult;
}
