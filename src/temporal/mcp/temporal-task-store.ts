import type { CreateTaskOptions, TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import { isTerminal } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  McpError,
  type Request,
  type RequestId,
  type Result,
  type Task,
} from '@modelcontextprotocol/sdk/types.js';
import { toCallToolResult } from '../../adapters/mcp-call-tool-result.js';
import type { McpWorkflowCalls } from './mcp-workflow-calls.js';

/** TTL limits of MCP tasks: what a task gets when the client asks for none, and the most it may ask for. */
export interface TaskTtlPolicy {
  readonly defaultMs: number;
  readonly maxMs: number;
}

/** A day by default, a week at most: long enough for an approver, bounded so task ids do not resolve forever. */
export const DEFAULT_TASK_TTL: TaskTtlPolicy = { defaultMs: 24 * 3600_000, maxMs: 7 * 24 * 3600_000 };

/** Options of {@link TemporalTaskStore}. */
export interface TemporalTaskStoreOptions {
  readonly ttl?: TaskTtlPolicy | undefined;
  /** The MCP revision agreed with the connection's client, read at each request (it decides `tasks/result`'s shape). */
  readonly protocolVersion?: () => string | undefined;
}

/**
 * The shortest TTL a client may ask for. The SDK accepts any number; a task that expires at once (or a non-finite
 * TTL) would start a workflow whose task can never be read back, so such a request is refused before anything runs.
 */
export const MIN_TASK_TTL_MS = 1000;

/** How long `tasks/cancel` waits for the workflow to settle before it answers with the task as it then stands. */
const CANCEL_SETTLE_MS = 10_000;
const LIST_PAGE_SIZE = 50;

/**
 * The MCP `TaskStore` of a tool server whose calls are Temporal workflows: a task *is* its workflow (task id =
 * workflow id), so tasks survive a restart of the MCP server and every replica sees the same ones. Status comes from
 * the workflow: `working` while it runs or reconciles a write, `input_required` while its approval is pending (the
 * decision still goes through the authenticated approval path, never through MCP), `completed`/`failed` by the
 * contract result, `cancelled` when the workflow was cancelled. Results are the workflow's own, never stored here.
 * Tasks are scoped to the server's principal rather than to an MCP session, so a client that reconnects after a
 * restart (a new session) still finds them; task ids are digests and are not guessable from the request alone.
 */
export class TemporalTaskStore implements TaskStore {
  readonly #calls: McpWorkflowCalls;
  readonly #connectionId: string;
  readonly #ttl: TaskTtlPolicy;

  readonly #protocolVersion: () => string | undefined;

  /** `connectionId` identifies the server connection this store serves (see `McpRequestOrigin`). */
  constructor(calls: McpWorkflowCalls, connectionId: string, options: TemporalTaskStoreOptions = {}) {
    this.#calls = calls;
    this.#connectionId = connectionId;
    this.#ttl = options.ttl ?? DEFAULT_TASK_TTL;
    this.#protocolVersion = options.protocolVersion ?? (() => undefined);
  }

  async createTask(
    params: CreateTaskOptions,
    requestId: RequestId,
    request: Request,
    sessionId?: string,
  ): Promise<Task> {
    const call = CallToolRequestSchema.safeParse(request);
    if (!call.success) throw new McpError(ErrorCode.InvalidParams, 'Only tools/call can run as a task on this server.');
    if (
      params.ttl !== undefined &&
      params.ttl !== null &&
      !(Number.isFinite(params.ttl) && params.ttl >= MIN_TASK_TTL_MS)
    ) {
      throw new McpError(ErrorCode.InvalidParams, `A task's ttl must be at least ${MIN_TASK_TTL_MS} ms.`);
    }
    // The receiver may lower a requested TTL; an unlimited one (null) is bounded too.
    const ttl = Math.min(params.ttl ?? this.#ttl.defaultMs, this.#ttl.maxMs);
    const taskId = await this.#calls.start(call.data, { sessionId, connectionId: this.#connectionId, requestId }, ttl);
    const state = await this.#calls.state(taskId);
    if (state === null)
      throw new McpError(ErrorCode.InternalError, 'The task could not be read back after it was created.');
    return state.task;
  }

  async getTask(taskId: string): Promise<Task | null> {
    return (await this.#calls.state(taskId))?.task ?? null;
  }

  /** Never used: a task's result is its workflow's result, recorded by Temporal. */
  storeTaskResult(): Promise<void> {
    return Promise.reject(new Error('the results of workflow-backed tasks are recorded by their workflows'));
  }

  async getTaskResult(taskId: string): Promise<Result> {
    const state = await this.#calls.state(taskId);
    if (state === null) throw new McpError(ErrorCode.InvalidParams, `Task not found: ${taskId.slice(0, 128)}`);
    if (state.result === null)
      throw new McpError(
        ErrorCode.InvalidParams,
        `Task ${state.task.status === 'cancelled' ? 'was cancelled' : 'ended without a result'}.`,
      );
    return toCallToolResult(state.result.modelResult, { protocolVersion: this.#protocolVersion() });
  }

  /**
   * Only `cancelled` can be set from outside: it cancels the workflow and waits (briefly) until it has settled, so the
   * answer says how the call ended. A write that had already been dispatched is still reconciled, not forgotten, and
   * a call that completed before the cancel reached it keeps its result.
   */
  async updateTaskStatus(taskId: string, status: Task['status']): Promise<void> {
    if (status !== 'cancelled')
      throw new McpError(
        ErrorCode.InvalidParams,
        `A task's status follows its workflow; it cannot be set to ${status}.`,
      );
    await this.#calls.cancel(taskId);
    const deadline = Date.now() + CANCEL_SETTLE_MS;
    for (
      let state = await this.#calls.state(taskId);
      state !== null && !isTerminal(state.task.status) && Date.now() < deadline;
      state = await this.#calls.state(taskId)
    ) {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  listTasks(cursor?: string): Promise<{ tasks: Task[]; nextCursor?: string }> {
    return this.#calls.list(cursor, LIST_PAGE_SIZE);
  }
}
