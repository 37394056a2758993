import { ApplicationFailure } from '@temporalio/workflow';
import type { CatalogCode } from '../src/contract/error-catalog.js';

/**
 * A non-retryable failure thrown by workflow code. Its `type` is a catalog code (checked at compile time), because
 * callers match on the type, never on the message.
 */
export function catalogWorkflowFailure(code: CatalogCode, message: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(message, code);
}
