import type { ModelResult } from '../contract/model-result.js';
import { renderModelResult } from './render-model-result.js';

/** An OpenAI Responses API input item answering one `function_call` (`ResponseInputItem.FunctionCallOutput`). */
export interface ResponsesFunctionCallOutput {
  readonly type: 'function_call_output';
  readonly call_id: string;
  readonly output: string;
}

/**
 * The model result as a Responses API `function_call_output` item for the model's `call_id`. The API has no error
 * flag: the status and error are in the text.
 */
export function toResponsesOutput(callId: string, result: ModelResult): ResponsesFunctionCallOutput {
  return { type: 'function_call_output', call_id: callId, output: renderModelResult(result).text };
}
