import { QueryNotRegisteredError, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { CliError, EXIT_CODES } from './cli-error.js';

/**
 * Turns a Temporal client error about the workflow into a {@link CliError}: unknown workflow → not found, a refusal
 * by the workflow (update validator, failure type) → refused. Other errors pass through; the CLI maps those that are
 * about the connection (server gone, credentials refused) with the address, as it maps a failed connect
 * (`connection-failure.ts`).
 */
export function toCliError(error: unknown, workflowId: string): unknown {
  if (error instanceof CliError) return error;
  if (error instanceof WorkflowNotFoundError)
    return new CliError(`workflow '${workflowId}' not found (or no longer running)`, EXIT_CODES.notFound, {
      cause: error,
    });
  if (error instanceof WorkflowUpdateFailedError) {
    const cause = error.cause;
    const detail =
      cause instanceof ApplicationFailure
        ? `${cause.type ?? 'ApplicationFailure'}: ${cause.message}`
        : String(cause?.message ?? error.message);
    return new CliError(`workflow '${workflowId}' refused the decision (${detail})`, EXIT_CODES.refused, {
      cause: error,
    });
  }
  if (error instanceof QueryNotRegisteredError) {
    return new CliError(
      `workflow '${workflowId}' does not answer this query (it has no tool calls of this kind): ${error.message}`,
      EXIT_CODES.refused,
      { cause: error },
    );
  }
  return error;
}
