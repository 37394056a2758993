import { canonicalJson } from '../contract/canonical-json.js';
import { renderUntrustedContent } from '../contract/fence-untrusted.js';
import { modelResultSchema, type ModelResult } from '../contract/model-result.js';
import { AdapterError } from './adapter-error.js';

/** Top-level keys in the order a model reads them: status first, untrusted text late. */
const KEY_ORDER = Object.keys(modelResultSchema.shape) as readonly (keyof ModelResult)[];

/** A model result as every provider adapter shows it. */
export interface RenderedModelResult {
  /** The model result with each untrusted text fenced and defanged, and its source defanged; still a valid `tool-result.model.v1`. */
  readonly value: ModelResult;
  /** `value` as JSON: top-level keys in schema order, everything below in RFC 8785 canonical form. */
  readonly text: string;
}

/**
 * The one rendering of a model result shared by all adapters. It accepts only a valid model result — a value with
 * any extra key (an audit field, a control field) is refused, not stripped — so nothing but the model projection
 * can reach a provider. The text is deterministic: the same result renders to the same bytes after any storage
 * round trip that reorders keys.
 */
export function renderModelResult(result: ModelResult): RenderedModelResult {
  const parsed = modelResultSchema.safeParse(result);
  if (!parsed.success) {
    const paths = parsed.error.issues.map((issue) => `/${issue.path.map(String).join('/')} (${issue.code})`);
    throw new AdapterError('INVALID_MODEL_RESULT', `not a tool-result.model.v1: ${paths.join(', ')}`.slice(0, 500));
  }
  const value: ModelResult = {
    ...parsed.data,
    untrusted_content: parsed.data.untrusted_content.map(renderUntrustedContent),
  };
  const members = KEY_ORDER.filter((key) => value[key] !== undefined).map(
    (key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`,
  );
  return { value, text: `{${members.join(',')}}` };
}
