import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowFailedError,
  type Client,
  type WorkflowExecutionDescription,
  type WorkflowExecutionInfo,
} from '@temporalio/client';
import { McpError, ErrorCode, type CallToolRequest, type Task } from '@modelcontextprotocol/sdk/types.js';
import type { ToolCallResult } from '../../../activities/tool-activity.js';
import type { McpCallOptions, McpToolCallInput } from '../../../workflows/mcp-tool-call.js';
import type { Principal } from '../../contract/tool-handler.js';
import { digestJson } from '../../contract/sha256.js';
import { MCP_MEMO, MCP_WORKFLOW_ID_PREFIX } from '../../wire/mcp.js';
import { MCP_TOOL_CALL_WORKFLOW_TYPE } from '../../wire/names.js';
import { APPROVAL_PENDING_SA } from '../../wire/search-attributes.js';
import { isErrorResult } from '../../adapters/error-flag.js';
import { mcpRequestDigest, mcpWorkflowId, type McpRequestOrigin } from './mcp-call-identity.js';
import { isSafeMcpTaskQueueName } from './mcp-task-queue-name.js';

/** Where MCP calls run: the Temporal client, the task queue a worker with the tools polls, and the caller. */
export interface McpWorkflowCallsOptions {
  readonly client: Client;
  readonly taskQueue: string;
  /** Who every call of this server runs as (the audit's principal, the scope of business idempotency keys). */
  readonly principal: Principal;
  /** Time limits and reconciliation pace of every call (defaults: each tool's `callDefaults`, else `callTool`'s). */
  readonly callOptions?: McpCallOptions;
}

/** An MCP call as Temporal sees it, in MCP task terms. */
export interface McpCallState {
  readonly task: Task;
  /** The workflow's result, once it completed. */
  readonly result: ToolCallResult | null;
}

/** What both a describe and a visibility listing tell of a workflow. */
type CallInfo = Omit<WorkflowExecutionInfo, 'raw'>;

/** How often a client should poll a task (ms): approvals take minutes, a call usually seconds. */
export const MCP_TASK_POLL_INTERVAL_MS = 1000;

/**
 * MCP `tools/call`s as Temporal workflows (`mcpToolCall`): start one or attach to the one the same request already
 * started, read its state and result, cancel it. Everything is read back from Temporal, so a restarted server (or
 * another replica) answers for calls it did not start.
 */
export class McpWorkflowCalls {
  readonly #options: McpWorkflowCallsOptions;
  readonly #principalSha256: string;

  constructor(options: McpWorkflowCallsOptions) {
    if (!isSafeMcpTaskQueueName(options.taskQueue))
      throw new TypeError(
        "An MCP server's task queue name may use only letters, digits and . _ : / @ - (at most 200).",
      );
    this.#options = options;
    this.#principalSha256 = digestJson({ tenant: options.principal.tenant, subject: options.principal.subject });
  }

  /**
   * Starts the call's workflow, or attaches to the one this request (same identity, see `mcpWorkflowId`) started
   * before — running or closed: a closed workflow is never started again, so a retried write is one side effect. A
   * known identity with another tool or other arguments is refused (`InvalidParams`).
   */
  async start(request: CallToolRequest, origin: McpRequestOrigin, ttlMs: number | null): Promise<string> {
    const workflowId = mcpWorkflowId(request, this.#options.principal, origin);
    const requestSha256 = mcpRequestDigest(request);
    const input: McpToolCallInput = {
      tool: request.params.name,
      args: request.params.arguments ?? {},
      principal: this.#options.principal,
      ...(this.#options.callOptions === undefined ? {} : { options: this.#options.callOptions }),
    };
    try {
      await this.#options.client.workflow.start(MCP_TOOL_CALL_WORKFLOW_TYPE, {
        workflowId,
        taskQueue: this.#options.taskQueue,
        args: [input],
        // A closed call is never run again under its id: the retry gets the recorded result instead.
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        memo: {
          [MCP_MEMO.requestSha256]: requestSha256,
          [MCP_MEMO.principalSha256]: this.#principalSha256,
          [MCP_MEMO.ttlMs]: ttlMs,
        },
        staticSummary: `MCP tools/call ${request.params.name}`,
      });
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      const existing = await this.#describe(workflowId);
      if (existing === null || existing.memo?.[MCP_MEMO.requestSha256] !== requestSha256) {
        throw new McpError(
          ErrorCode.InvalidParams,
          'This idempotency key was already used for another tool call (a different tool or arguments).',
        );
      }
    }
    return workflowId;
  }

  /** The call's state, or null when there is no such call of this principal, or its TTL has passed. */
  async state(workflowId: string): Promise<McpCallState | null> {
    const description = await this.#describe(workflowId);
    return description === null ? null : this.#stateOf(description);
  }

  async #stateOf(info: CallInfo): Promise<McpCallState | null> {
    if (!this.#ours(info) || expired(info)) return null;
    const base = {
      taskId: info.workflowId,
      ttl: ttlOf(info),
      createdAt: info.startTime.toISOString(),
      lastUpdatedAt: (info.closeTime ?? new Date()).toISOString(),
      pollInterval: MCP_TASK_POLL_INTERVAL_MS,
    };
    switch (info.status.name) {
      case 'RUNNING': {
        const pending = info.typedSearchAttributes.get(APPROVAL_PENDING_SA) === true;
        return pending
          ? {
              task: {
                ...base,
                status: 'input_required',
                statusMessage: 'Waiting for an approver to decide this call (tool-contract pending / approve).',
              },
              result: null,
            }
          : { task: { ...base, status: 'working' }, result: null };
      }
      case 'COMPLETED': {
        const result = await this.result(info.workflowId);
        // A contract failure (`failed`, `needs_input`) is a failed task; its result still says why (tasks/result).
        return { task: { ...base, status: isErrorResult(result.modelResult) ? 'failed' : 'completed' }, result };
      }
      case 'CANCELLED':
        return { task: { ...base, status: 'cancelled' }, result: null };
      default:
        return { task: { ...base, status: 'failed', statusMessage: 'The call ended without a result.' }, result: null };
    }
  }

  /** Waits for the call's result. A workflow that ended without one (cancelled, terminated) is an `InternalError`. */
  async result(workflowId: string): Promise<ToolCallResult> {
    try {
      return (await this.#options.client.workflow.getHandle(workflowId).result()) as ToolCallResult;
    } catch (error) {
      if (error instanceof WorkflowFailedError)
        throw new McpError(ErrorCode.InternalError, 'The tool call ended without a result (cancelled or stopped).');
      throw error;
    }
  }

  /** Requests cancellation: a running tool sees its abort signal; a write whose outcome is unknown is still reconciled. */
  async cancel(workflowId: string): Promise<void> {
    await this.#options.client.workflow.getHandle(workflowId).cancel();
  }

  /**
   * This principal's calls on this task queue, newest first, about `pageSize` at a time. The cursor is the start time
   * of the last call listed (visibility has no page token in this client): calls started in the same instant as a
   * page's last one may be skipped.
   */
  async list(cursor: string | undefined, pageSize: number): Promise<{ tasks: Task[]; nextCursor?: string }> {
    const before = cursor === undefined ? '' : ` AND StartTime < '${cursorTime(cursor).toISOString()}'`;
    // The task queue name was checked to be safe inside a string literal (constructor).
    const query = `WorkflowType = '${MCP_TOOL_CALL_WORKFLOW_TYPE}' AND TaskQueue = '${this.#options.taskQueue}'${before}`;
    const tasks: Task[] = [];
    let last: Date | undefined;
    let seen = 0;
    for await (const info of this.#options.client.workflow.list({ query, pageSize })) {
      seen += 1;
      last = info.startTime;
      const state = await this.#stateOf(info);
      if (state !== null) tasks.push(state.task);
      if (seen >= pageSize) break;
    }
    return seen >= pageSize && last !== undefined ? { tasks, nextCursor: last.toISOString() } : { tasks };
  }

  async #describe(workflowId: string): Promise<WorkflowExecutionDescription | null> {
    if (!workflowId.startsWith(MCP_WORKFLOW_ID_PREFIX)) return null;
    let description: WorkflowExecutionDescription;
    try {
      description = await this.#options.client.workflow.getHandle(workflowId).describe();
    } catch (error) {
      if ((error as { name?: unknown }).name === 'WorkflowNotFoundError') return null;
      throw error;
    }
    return this.#ours(description) ? description : null;
  }

  /** An MCP call of this server's principal: task ids are never resolved to another principal's calls. */
  #ours(info: CallInfo): boolean {
    return info.type === MCP_TOOL_CALL_WORKFLOW_TYPE && info.memo?.[MCP_MEMO.principalSha256] === this.#principalSha256;
  }
}

/** A `tasks/list` cursor (a start time this server handed out); anything else is the client's error. */
function cursorTime(cursor: string): Date {
  const time = new Date(cursor);
  if (Number.isNaN(time.getTime())) throw new McpError(ErrorCode.InvalidParams, 'Invalid tasks/list cursor.');
  return time;
}

/** The task's TTL (ms from its creation), as the server granted it; null: unlimited. */
function ttlOf(info: CallInfo): number | null {
  const ttl = info.memo?.[MCP_MEMO.ttlMs];
  return typeof ttl === 'number' ? ttl : null;
}

/** Past its TTL a task is not found, whatever its status (MCP lets a receiver drop it); the workflow and audit stay. */
function expired(info: CallInfo): boolean {
  const ttl = ttlOf(info);
  return ttl !== null && info.startTime.getTime() + ttl < Date.now();
}
