import { QueryNotRegisteredError, WorkflowNotFoundError, WorkflowUpdateFailedError, isGrpcServiceError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { CliError, EXIT_CODES } from './cli-error.js';

/** gRPC status UNAVAILABLE / DEADLINE_EXCEEDED: the server could not be reached. */
const UNREACHABLE_GRPC_CODES = new Set([4, 14]);

/**
 * Turns a Temporal client error into a {@link CliError}: unknown workflow → not found, unreachable server →
 * unavailable, a refusal by the workflow (update validator, failure type) → refused. Other errors pass through.
 */
export function toCliError(error: unknown, workflowId: string): unknown {
  if (error instanceof CliError) return error;
  if (error instanceof WorkflowNotFoundError) return new CliError(`workflow '${workflowId}' not found (or no longer running)`, EXIT_CODES.notFound, { cause: error });
  if (error instanceof WorkflowUpdateFailedError) {
    const cause = error.cause;
    const detail = cause instanceof ApplicationFailure ? `${cause.type ?? 'ApplicationFailure'}: ${cause.message}` : String(cause?.message ?? error.message);
    return new CliError(`workflow '${workflowId}' refused the decision (${detail})`, EXIT_CODES.refused, { cause: error });
  }
  if (error instanceof QueryNotRegisteredError) {
    return new CliError(`workflow '${workflowId}' does not answer this query (it has no tool calls of this kind): ${error.message}`, EXIT_CODES.refused, { cause: error });
  }
  if (isGrpcServiceError(error) && UNREACHABLE_GRPC_CODES.has(error.code)) {
    return new CliError(`Temporal server unreachable: ${error.details}`, EXIT_CODES.unavailable, { cause: error });
  }
  return error;
}
