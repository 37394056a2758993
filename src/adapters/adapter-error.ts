/** Why an adapter refused to produce provider output. Closed set; tests and callers match on it, never on text. */
export const ADAPTER_ERROR_CODES = [
  /** The value handed to an adapter is not a valid `tool-result.model.v1` (extra keys included). */
  'INVALID_MODEL_RESULT',
  /** A tool name that cannot be mapped to (or back from) a provider's name rules. */
  'TOOL_NAME_UNMAPPABLE',
  /** A tool's input schema is not an object schema, which every provider requires at the root. */
  'INPUT_SCHEMA_NOT_OBJECT',
  /** A schema that OpenAI strict mode cannot express (open-ended maps). */
  'STRICT_SCHEMA_UNSUPPORTED',
  /** Two results answer the same provider call id in one message. */
  'DUPLICATE_CALL_ID',
] as const;
export type AdapterErrorCode = (typeof ADAPTER_ERROR_CODES)[number];

/**
 * Thrown for programming errors at the adapter boundary (a malformed model result, an unmappable tool name). It
 * never describes a tool call's outcome: those are model results.
 */
export class AdapterError extends Error {
  override readonly name = 'AdapterError';

  readonly code: AdapterErrorCode;

  constructor(code: AdapterErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}
