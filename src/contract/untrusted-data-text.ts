import type { UntrustedInput } from './tool-handler.js';
import { formatPointer, withValueAt } from './json-pointer.js';
import { normalizeFieldName } from './redaction.js';
import { looksInstructional } from './untrusted-content.js';
import { digestJson } from './sha256.js';

/**
 * Free text inside `data` (seed 000: a third-party `recommendation` next to a balance) is data, never an instruction
 * — but only what a handler routed to `untrusted` was fenced as such. Text in `data` that reads like instructions to
 * an agent, and text in a field the tool declares as external free text (`untrustedTextFields`), is moved out of the
 * facts into `untrusted_content` (fenced and defanged by every adapter, marked `instructional` when it reads like
 * instructions), and its place in `data` holds a marker naming the entry: `[untrusted_content uc_…]`.
 */

/** The text left in `data` where a free text was moved out. */
export function movedTextMarker(contentId: string): string {
  return `[untrusted_content ${contentId}]`;
}

/** Most texts moved out of one result; the rest stay where they are, with a warning. */
export const MAX_MOVED_TEXTS = 16;

/** One text found in `data` that belongs in `untrusted_content`. */
export interface DataText {
  /** Where it is, as a JSON Pointer into `data`. */
  readonly pointer: string;
  readonly tokens: readonly (string | number)[];
  readonly text: string;
  /** The untrusted-content entry it becomes (`source` names the tool's source and the place). */
  readonly untrusted: UntrustedInput;
  readonly contentId: string;
}

/**
 * The strings of `data` that are external free text: in a field named in `declaredFields` (compared as redaction
 * compares names), or reading like instructions to an agent. Linear in the text of `data` (the instruction check is).
 */
export function freeTextsIn(data: unknown, declaredFields: readonly string[], sourceLabel: string): DataText[] {
  const declared = new Set(declaredFields.map(normalizeFieldName));
  const found: DataText[] = [];
  const walk = (value: unknown, tokens: (string | number)[], field: string | null, depth: number): void => {
    if (typeof value === 'string') {
      if ((field !== null && declared.has(normalizeFieldName(field))) || looksInstructional(value)) {
        const pointer = formatPointer(tokens);
        const untrusted = { text: value, source: `${sourceLabel} data ${pointer}` };
        // The id buildUntrustedContent gives the entry: the marker names exactly the entry the model gets.
        found.push({
          pointer,
          tokens: [...tokens],
          text: value,
          untrusted,
          contentId: `uc_${digestJson(untrusted).slice(0, 16)}`,
        });
      }
      return;
    }
    if (value === null || typeof value !== 'object' || depth > 64) return;
    if (Array.isArray(value)) value.forEach((item, i) => walk(item, [...tokens, i], field, depth + 1));
    else for (const [key, child] of Object.entries(value)) walk(child, [...tokens, key], key, depth + 1);
  };
  walk(data, [], null, 0);
  return found;
}

/** `data` with each text's place holding its marker (copied along each path; `data` itself is not changed). */
export function withMarkers(data: unknown, texts: readonly DataText[]): unknown {
  return texts.reduce((copy, text) => withValueAt(copy, text.tokens, movedTextMarker(text.contentId)), data);
}

/** What `declareTool` refuses about `untrustedTextFields` (one line each). */
export function untrustedTextFieldsProblems(spec: { readonly untrustedTextFields?: unknown }): string[] {
  const fields = spec.untrustedTextFields;
  if (fields === undefined) return [];
  if (!Array.isArray(fields) || !fields.every((field) => typeof field === 'string' && normalizeFieldName(field) !== ''))
    return ['untrustedTextFields must be field names'];
  return [];
}
