// (b) of the AI SDK bridge, how a tool runs: an existing AI SDK tool's `execute` becomes the handler of its contract
// declaration, on the worker, so the contract funnel validates, audits and settles what it returns.
import type { ToolExecuteFunction } from 'ai';
import type { z } from 'zod';
import { implementTool } from '../contract/implement-tool.js';
import type { HandlerContext, Principal, ToolOutput } from '../contract/tool-handler.js';
import type { ToolDeclaration, ToolImplementation, ToolImplementationSpec } from '../contract/tool-spec.js';

/**
 * The tool context an AI SDK tool's `execute` gets when the contract runs it (`options.context`; declare it with
 * `contextSchema` to read it): a write sends `idempotencyKey` to its upstream, so the upstream can refuse a second
 * request and `reconcile` can ask about the first.
 */
export interface AiSdkToolContext {
  readonly [key: string]: unknown;
  readonly idempotencyKey: string;
  readonly callId: string;
  /** The trusted caller the workflow named (never the model). */
  readonly principal: Principal;
}

/**
 * What {@link implementAiSdkTool} runs of an AI SDK tool: its `execute`, which may read at most the
 * {@link AiSdkToolContext} as its context and must return what the declaration's output schema accepts.
 */
export interface AiSdkExecutableTool<Input, Result> {
  readonly execute: ToolExecuteFunction<Input, Result, AiSdkToolContext>;
}

/** How the contract runs the tool besides its `execute`: `implementTool`'s options, and what the result rests on. */
export interface AiSdkToolRuns<Input, Out extends z.ZodType> extends Omit<
  ToolImplementationSpec<z.ZodType<Input>, Out>,
  'handler'
> {
  /**
   * The contract's facts about a result beyond its data: evidence, `observedAt`, a write's `receipt`, untrusted text.
   * Without it the result is bare data (a write without a receipt is confirmed by `reconcile`, if given).
   */
  readonly describe?: (result: z.input<Out>, args: Input) => Omit<ToolOutput<z.input<Out>>, 'data'>;
}

/**
 * The worker's implementation of `declaration` (from {@link declareAiSdkTool}) that runs `aiTool.execute`. A write's
 * handler passes the dispatch fence before `execute` starts, since `execute` itself does not know of it. A streaming
 * `execute` (an async iterable) counts by its last value.
 */
export function implementAiSdkTool<Input, Out extends z.ZodType>(
  declaration: ToolDeclaration<z.ZodType<Input>, Out>,
  aiTool: AiSdkExecutableTool<Input, z.input<Out>>,
  runs: AiSdkToolRuns<Input, Out> = {},
): ToolImplementation<z.ZodType<Input>, Out> {
  const { describe, ...rest } = runs;
  return implementTool(declaration, {
    ...rest,
    handler: async (args: Input, ctx: HandlerContext) => {
      if (declaration.effect !== 'read') await ctx.beforeDispatch();
      const result = await lastValue(
        aiTool.execute(args, {
          toolCallId: ctx.callId,
          messages: [],
          context: { idempotencyKey: ctx.idempotencyKey, callId: ctx.callId, principal: ctx.principal },
          ...(ctx.signal === undefined ? {} : { abortSignal: ctx.signal }),
        }),
      );
      return { ...describe?.(result, args), data: result };
    },
  });
}

async function lastValue<T>(produced: AsyncIterable<T> | PromiseLike<T> | T): Promise<T> {
  if (typeof produced !== 'object' || produced === null || !(Symbol.asyncIterator in produced)) return produced;
  let last: { value: T } | null = null;
  for await (const value of produced) last = { value };
  if (last === null) throw new Error('the AI SDK tool streamed no result');
  return last.value;
}
