import type { ModelResult } from '../contract/model-result.js';
import { isErrorResult } from './error-flag.js';
import { renderModelResult } from './render-model-result.js';

/** MCP protocol revisions whose `CallToolResult` carries `resultType` (required from 2026-07-28 on). */
const RESULT_TYPE_SINCE = '2026-07-28';

/** An MCP `CallToolResult` whose text block and structured content are the same model result. */
export interface ContractCallToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent: ModelResult;
  isError: boolean;
  resultType?: 'complete';
}

/** Options of {@link toCallToolResult}. */
export interface CallToolResultOptions {
  /** The negotiated MCP protocol revision (`YYYY-MM-DD`); decides revision-specific fields. */
  readonly protocolVersion?: string | undefined;
}

/**
 * The model result as an MCP `CallToolResult`: `structuredContent` is the rendered model result and the single text
 * block is exactly its JSON (so clients that read either see the same thing), `isError` as decided by
 * {@link isErrorResult}.
 */
export function toCallToolResult(result: ModelResult, options: CallToolResultOptions = {}): ContractCallToolResult {
  const { value, text } = renderModelResult(result);
  const callToolResult: ContractCallToolResult = {
    content: [{ type: 'text', text }],
    structuredContent: value,
    isError: isErrorResult(result),
  };
  // Protocol revisions are ISO dates, so string order is date order.
  if (options.protocolVersion !== undefined && options.protocolVersion >= RESULT_TYPE_SINCE)
    callToolResult.resultType = 'complete';
  return callToolResult;
}
