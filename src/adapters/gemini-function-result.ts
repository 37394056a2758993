import { isErrorResult } from './error-flag.js';
import type { FunctionCallAnswer } from './gemini-function-response.js';
import { renderModelResult } from './render-model-result.js';
import { assertUniqueCallIds } from './unique-call-ids.js';

/**
 * A Gemini Interactions API `function_result` input step (seed 001: "Gemini Interactions: function_result + name +
 * call_id + result, with previous_interaction_id"): the model result as one text block under `result`, correlated by
 * the call's `call_id`, flagged `is_error` exactly when every other adapter flags it.
 */
export interface GeminiFunctionResult {
  readonly type: 'function_result';
  readonly call_id: string;
  readonly name: string;
  readonly result: readonly [{ readonly type: 'text'; readonly text: string }];
  readonly is_error: boolean;
}

/** The input of the next interaction: every result of one turn, and the interaction it continues (stateful mode). */
export interface GeminiInteractionInput {
  readonly previous_interaction_id?: string;
  readonly input: readonly GeminiFunctionResult[];
}

/** One answered function call as a `function_result` step: its text is the rendered model result (untrusted text fenced). */
export function toFunctionResult(answer: FunctionCallAnswer): GeminiFunctionResult {
  const { text } = renderModelResult(answer.result);
  return {
    type: 'function_result',
    call_id: answer.id,
    name: answer.name,
    result: [{ type: 'text', text }],
    is_error: isErrorResult(answer.result),
  };
}

/**
 * All results of one model turn as the next interaction's input; each call id answered once. With
 * `previousInteractionId` the server keeps the conversation (stateful); without it the caller sends the history.
 */
export function toInteractionInput(
  answers: readonly FunctionCallAnswer[],
  previousInteractionId?: string,
): GeminiInteractionInput {
  assertUniqueCallIds(answers.map((answer) => answer.id));
  return {
    ...(previousInteractionId === undefined ? {} : { previous_interaction_id: previousInteractionId }),
    input: answers.map(toFunctionResult),
  };
}
