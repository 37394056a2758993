import type { ModelResult } from '../contract/model-result.js';
import { isErrorResult } from './error-flag.js';
import { renderModelResult } from './render-model-result.js';
import { assertUniqueCallIds } from './unique-call-ids.js';

/** A Gemini `FunctionResponse`: the result goes under `output`, or under `error` when it is an error (Gemini's convention). */
export interface GeminiFunctionResponse {
  readonly id: string;
  readonly name: string;
  readonly response: { readonly output: ModelResult } | { readonly error: ModelResult };
}

/** The `Content` turn that carries function responses back to the model. */
export interface GeminiFunctionResponseContent {
  readonly role: 'user';
  readonly parts: { readonly functionResponse: GeminiFunctionResponse }[];
}

/** One answered `functionCall`: its `id` and `name` as the model sent them, and the model result. */
export interface FunctionCallAnswer {
  readonly id: string;
  readonly name: string;
  readonly result: ModelResult;
}

/**
 * The model result as a Gemini `functionResponse`, correlated by the call's `id` and `name`. `response` is an
 * object; its value is the rendered model result (untrusted text fenced), never a string to re-parse.
 */
export function toFunctionResponse(answer: FunctionCallAnswer): GeminiFunctionResponse {
  const { value } = renderModelResult(answer.result);
  return {
    id: answer.id,
    name: answer.name,
    response: isErrorResult(answer.result) ? { error: value } : { output: value },
  };
}

/** All responses to one model turn in a single `Content`; each call id may be answered once. */
export function toFunctionResponseContent(answers: readonly FunctionCallAnswer[]): GeminiFunctionResponseContent {
  assertUniqueCallIds(answers.map((answer) => answer.id));
  return { role: 'user', parts: answers.map((answer) => ({ functionResponse: toFunctionResponse(answer) })) };
}
