import {
  continueAsNew,
  defineQuery,
  isCancellation,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type {
  AgentModelConfig,
  AssistantMessage,
  ModelCallInput,
  ModelMessage,
  ModelResponse,
  ModelSettings,
  ToolResultMessage,
} from '../activities/model-call.js';
import type { ProviderContext } from '../src/contract/bindings.js';
import type { Principal } from '../src/contract/tool-handler.js';
import { nonRetryableCodes, type CatalogCode } from '../src/contract/error-catalog.js';
import { failureType } from './activity-failure.js';
import { installApprovalHandlers } from './approvals.js';
import { catalogWorkflowFailure } from './catalog-failure.js';
import { resumeToolCallCounts, toolCallCounts } from './call/pipeline.js';
import { callTools, type BatchCallRequest, type CallToolsOptions } from './call-tools.js';
import { checkCitations, type CitableResult, type CitationReport } from './citations.js';
import { citationFollowUp } from './citation-follow-up.js';
import { resumeWriteHalt, writesHaltedBy } from './write-halt.js';
import { AGENT_LOOP_CALL_PROVIDER } from '../src/wire/call-providers.js';
import { agentCallId } from '../src/wire/ids.js';
import { AGENT_TRANSCRIPT_QUERY, MODEL_CALL_ACTIVITY } from '../src/wire/names.js';

export type { AgentModelConfig, ModelMessage, ModelSettings } from '../activities/model-call.js';

/** Tool-call options the loop passes to every call (timeouts, approvals, reconciliation, task queue). */
export type AgentToolOptions = Omit<CallToolsOptions, 'principal' | 'provider' | 'allowedTools'>;

/** Input of {@link agentLoop}. Everything is plain JSON and secret-free: it is stored in history. */
export interface AgentLoopInput {
  /** The task, sent as a user message after `messages`. */
  readonly goal?: string;
  /** The conversation so far (system instructions, earlier turns). */
  readonly messages?: readonly ModelMessage[];
  /** Contract names of the tools the model may call; any other name is answered with `UNKNOWN_TOOL`. */
  readonly allowedTools: readonly string[];
  readonly model: AgentModelConfig;
  readonly settings?: ModelSettings;
  /** Model turns (model calls) this loop may take in total, across continue-as-new. */
  readonly maxTurns: number;
  /** The trusted caller every tool call runs as. */
  readonly principal: Principal;
  readonly toolOptions?: AgentToolOptions;
  /** One model call's time limit (default 120 s) and attempts (default 5; only retryable codes are retried). */
  readonly modelTimeoutMs?: number;
  readonly modelAttempts?: number;
  /** Turns per workflow run before it continues as new (default 50), besides the server's own suggestion. */
  readonly turnsPerRun?: number;
  /** What to do with a final answer whose citation report is not clean (default `ask_again`). */
  readonly citationPolicy?: CitationPolicy;
  /** Set by the loop itself when it continues as new. */
  readonly carried?: AgentLoopCarry;
}

/** What a continued run inherits besides the transcript (which travels as `messages`). */
export interface AgentLoopCarry {
  readonly turns: number;
  /** Tool calls made so far: the next call id is `agent-call-<callCount + 1>`, unique across runs. */
  readonly callCount: number;
  readonly runs: number;
  /** Messages that were input to the first run: their tool results are not evidence returned by this loop. */
  readonly seedMessages: number;
  /** Calls admitted per tool so far, so per-workflow call limits hold across runs (absent in runs carried before). */
  readonly callsByTool?: Readonly<Record<string, number>>;
  /** Set once the loop asked the model again about an answer's citations (`citationPolicy: 'ask_again'`). */
  readonly askedAboutCitations?: boolean;
  /** The call whose invariant failure halted the run's writes, so a continued run stays halted (see `write-halt.ts`). */
  readonly writesHaltedBy?: string;
}

/**
 * What the loop does with a final answer whose citation report is not clean (an uncited figure, date, id or returned
 * value, a claim its cited evidence does not show, an unknown citation, a quote that does not match, a whole-result
 * citation): `ask_again` (the default) gives the model the report's findings and asks once more (if a turn is
 * left), then returns whatever it answers with its report — or, should that model call fail, the first answer with
 * its report; `report` returns it with the report; `fail` returns status `citations_rejected` (the answer and report
 * kept for a person).
 */
export type CitationPolicy = 'report' | 'ask_again' | 'fail';

/** Why the loop stopped. */
export type AgentLoopStatus = 'final' | 'turn_budget_exhausted' | 'model_error' | 'citations_rejected';

/** Result of {@link agentLoop}. */
export interface AgentLoopResult {
  readonly status: AgentLoopStatus;
  /** The final answer (`status: 'final'`, or `citations_rejected`), else `null`. */
  readonly answer: string | null;
  /** The final answer's citations checked against the evidence this run's tool calls returned. */
  readonly citations: CitationReport | null;
  readonly turns: number;
  readonly toolCalls: number;
  /** Workflow runs the loop took (1 + continue-as-new count). */
  readonly runs: number;
  /** For `model_error`: the failure type (a catalog code) and the model response id, when there was a response. */
  readonly error: { readonly code: string; readonly responseId: string | null } | null;
}

/** The agent loop's conversation so far: system/user text, model turns and model results (never audits). */
export const agentTranscriptQuery = defineQuery<ModelMessage[]>(AGENT_TRANSCRIPT_QUERY);

const DEFAULT_TURNS_PER_RUN = 50;

/**
 * The built-in agent loop. Each turn asks the model (an activity), then runs the tool calls it asked for through
 * {@link callTools} — so approvals and reconciliation apply — and gives the model one result per call, correlated by
 * its call id. Malformed arguments are refused as `INVALID_ARGUMENTS` and tools outside `allowedTools` as
 * `UNKNOWN_TOOL`, both without running anything. It stops on a final answer (whose `[ev_…]` citations are checked,
 * and handled as `citationPolicy` says), when `maxTurns` is used up, or when the model fails (non-retryable, or
 * duplicate call ids in one response).
 * Long loops continue as new with the transcript and the call counter, so call ids stay unique.
 */
export async function agentLoop(input: AgentLoopInput): Promise<AgentLoopResult> {
  // Decisions may arrive at any time: one for no pending call is refused and kept on record from the first moment.
  installApprovalHandlers();
  const transcript: ModelMessage[] = [
    ...(input.messages ?? []),
    ...(input.goal === undefined ? [] : [{ role: 'user' as const, text: input.goal }]),
  ];
  setHandler(agentTranscriptQuery, () => [...transcript]);
  const carried = input.carried ?? { turns: 0, callCount: 0, runs: 1, seedMessages: transcript.length };
  resumeToolCallCounts(carried.callsByTool ?? {});
  resumeWriteHalt(carried.writesHaltedBy);
  let turns = carried.turns;
  let callCount = carried.callCount;
  let askedAboutCitations = carried.askedAboutCitations ?? false;
  // Seeds 000 and 004: an answer's claims must rest on the evidence; by default the model gets one chance to fix them.
  const citationPolicy = input.citationPolicy ?? 'ask_again';
  let turnsThisRun = 0;
  const modelName = input.model.kind === 'named' ? input.model.name.slice(0, 64) : 'scripted';
  // Per turn, for the summary the UI shows on the timeline (the model and the turn; never the conversation).
  const model = (turn: number) =>
    proxyActivities<Record<typeof MODEL_CALL_ACTIVITY, (input: ModelCallInput) => Promise<ModelResponse>>>({
      startToCloseTimeout: input.modelTimeoutMs ?? 120_000,
      retry: { maximumAttempts: input.modelAttempts ?? 5, nonRetryableErrorTypes: nonRetryableCodes() },
      summary: `model turn ${turn} (${modelName})`,
    })[MODEL_CALL_ACTIVITY];
  const citationsOf = (answer: string) =>
    checkCitations(answer, returnedResults(transcript.slice(carried.seedMessages)));
  const end = (
    status: AgentLoopStatus,
    answer: string | null,
    error: AgentLoopResult['error'] = null,
  ): AgentLoopResult => ({
    status,
    answer,
    citations: answer === null ? null : citationsOf(answer),
    turns,
    toolCalls: callCount,
    runs: carried.runs,
    error,
  });

  for (;;) {
    if (turns >= input.maxTurns) return end('turn_budget_exhausted', null);
    if (turnsThisRun >= (input.turnsPerRun ?? DEFAULT_TURNS_PER_RUN) || workflowInfo().continueAsNewSuggested) {
      // No call is in flight here: every batch has settled, so nothing pending is lost with this run. The goal is
      // already part of the transcript.
      const halted = writesHaltedBy();
      const next: AgentLoopInput = {
        ...input,
        messages: transcript,
        carried: {
          ...carried,
          turns,
          callCount,
          runs: carried.runs + 1,
          callsByTool: toolCallCounts(),
          askedAboutCitations,
          ...(halted === null ? {} : { writesHaltedBy: halted }),
        },
      };
      delete (next as { goal?: string }).goal;
      return continueAsNew<typeof agentLoop>(next);
    }
    let response: ModelResponse;
    try {
      response = await model(turns + 1)({
        model: input.model,
        messages: transcript,
        allowedTools: input.allowedTools,
        ...(input.settings === undefined ? {} : { settings: input.settings }),
      });
    } catch (error) {
      if (isCancellation(error)) throw error;
      turns += 1;
      // Asked again about its citations, the model failed: its first answer stands, with its report.
      const reAsked = askedAboutCitations ? answerBeforeFollowUp(transcript) : null;
      if (reAsked !== null) return end('final', reAsked);
      return end('model_error', null, { code: failureType(error), responseId: null });
    }
    turns += 1;
    turnsThisRun += 1;
    if (response.kind === 'final') {
      transcript.push({ role: 'assistant', text: response.text, calls: [] });
      const report = citationsOf(response.text);
      if (report.clean || citationPolicy === 'report') return end('final', response.text);
      if (citationPolicy === 'fail') return end('citations_rejected', response.text);
      if (askedAboutCitations || turns >= input.maxTurns) return end('final', response.text);
      askedAboutCitations = true;
      transcript.push({ role: 'user', text: citationFollowUp(report) });
      continue;
    }
    // Results are correlated by call id: a response that repeats one cannot be answered call by call. Model
    // clients refuse it already; this guards clients that do not.
    const ids = response.calls.map((call) => call.callId);
    if (response.calls.length === 0 || new Set(ids).size !== ids.length)
      return end('model_error', null, {
        code: 'PROTOCOL_ERROR' satisfies CatalogCode,
        responseId: response.responseId,
      });
    const assistant: AssistantMessage = { role: 'assistant', text: response.text, calls: response.calls };
    transcript.push(assistant);
    const requests = response.calls.map((call): BatchCallRequest => {
      callCount += 1;
      const provider = providerContext(input.model, response.responseId, call.callId);
      return call.malformed
        ? {
            name: call.name,
            args: call.rawArguments,
            callId: agentCallId(callCount),
            provider,
            malformedArguments: call.reason,
          }
        : { name: call.name, args: call.arguments, callId: agentCallId(callCount), provider };
    });
    const results = await callTools(requests, {
      ...input.toolOptions,
      principal: input.principal,
      allowedTools: input.allowedTools,
    });
    const byCallId = new Map(results.map((result) => [result.callId, result]));
    for (const [i, call] of response.calls.entries()) {
      const result = byCallId.get(requests[i]?.callId ?? '');
      if (result === undefined) throw catalogWorkflowFailure('TOOL_ERROR', 'a tool call has no result');
      transcript.push({
        role: 'tool',
        callId: call.callId,
        name: call.name,
        result: result.modelResult,
      } satisfies ToolResultMessage);
    }
  }
}

/** The final answer the citation follow-up asked about, when that follow-up is the transcript's last message. */
function answerBeforeFollowUp(transcript: readonly ModelMessage[]): string | null {
  const [answer, followUp] = transcript.slice(-2);
  return followUp?.role === 'user' && answer?.role === 'assistant' && answer.calls.length === 0 ? answer.text : null;
}

/** The tool results of the transcript, in order: what a final answer's citations are checked against. */
function returnedResults(transcript: readonly ModelMessage[]): CitableResult[] {
  return transcript.flatMap((message) => (message.role === 'tool' ? [message.result] : []));
}

/** The model call a tool call answers, for the call's audit binding. */
function providerContext(model: AgentModelConfig, responseId: string, callId: string): ProviderContext {
  return {
    provider: model.kind === 'scripted' ? 'scripted' : model.name,
    apiFamily: AGENT_LOOP_CALL_PROVIDER.apiFamily,
    responseId,
    providerCallId: callId,
    adapterRevision: AGENT_LOOP_CALL_PROVIDER.adapterRevision,
  };
}
