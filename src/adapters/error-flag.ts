import type { ModelResult } from '../contract/model-result.js';

/**
 * The provider error flag (`is_error`, `isError`, Gemini's `error` key) for a result. True only when nothing
 * happened and the model may correct its call: `failed` and `needs_input`. `partial` (data or a committed write)
 * and `unknown` (a write that may have happened) are not errors: flagging them invites the model to retry into a
 * duplicate side effect, while the result itself says what to do (`recovery`).
 */
export function isErrorResult(result: Pick<ModelResult, 'status'>): boolean {
  return result.status === 'failed' || result.status === 'needs_input';
}
