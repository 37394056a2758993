import { formatPointer, parsePointer } from './json-pointer.js';
import type { Redaction, Redactor } from './redaction.js';

/** What an approver sees in place of an argument field hidden by name. */
export const HIDDEN_FIELD_MARKER = '[REDACTED: sensitive field]';

/** The arguments of a call as an approver sees them, and where something was hidden. */
export interface ArgumentsPreview {
  /** The validated arguments; hidden fields hold {@link HIDDEN_FIELD_MARKER}, secrets in text `[REDACTED]`. */
  readonly arguments: unknown;
  /** Every hidden place (JSON Pointer into the arguments) and why: the digest covers what the approver cannot see. */
  readonly hidden: readonly Redaction[];
}

/** Reasons whose field is dropped by the redactor; the preview puts a marker where it was. */
const DROPPED = new Set(['sensitive_field', 'sensitive_pair', 'secret_in_key']);

/**
 * The preview an approver decides on. Redaction for a model drops sensitive fields silently; an approver must know
 * what they cannot see, so each dropped field is shown as a marker at its place and every hidden path is listed.
 * `visiblePaths` (the tool's `visibleToApprovers`) lifts the field-name rule for the keys on those paths — the tool
 * author knows `/credentials/act_as` names an account, not a secret — but never the value checks: secret-shaped
 * text and the call's protected values stay masked, and fields below a visible path keep the name rule unless
 * declared too.
 */
export function argumentsPreview(args: unknown, redactor: Redactor, visiblePaths: readonly string[]): ArgumentsPreview {
  const visible = visiblePaths
    .map(parsePointer)
    .filter((tokens): tokens is string[] => tokens !== null && tokens.length > 0);
  const hidden: Redaction[] = [];
  const shown = walk(args, [], visible, redactor, hidden);
  for (const entry of hidden) if (DROPPED.has(entry.reason)) markDropped(shown, entry.path);
  return { arguments: shown, hidden: hidden.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)) };
}

/** Redacts `value` at `path`; only nodes on a visible path are walked here, the rest is the redactor's. */
function walk(
  value: unknown,
  path: readonly string[],
  visible: readonly (readonly string[])[],
  redactor: Redactor,
  log: Redaction[],
): unknown {
  const onPath = (key: string) =>
    visible.some(
      (tokens) =>
        tokens.length > path.length && tokens[path.length] === key && path.every((token, i) => tokens[i] === token),
    );
  const base = formatPointer(path);
  if (Array.isArray(value)) {
    return value.map((item, i) =>
      onPath(String(i))
        ? walk(item, [...path, String(i)], visible, redactor, log)
        : redactor.value(item, `${base}/${i}`, log),
    );
  }
  if (value === null || typeof value !== 'object') return redactor.value(value, base, log);
  const entries = Object.entries(value);
  const rest = redactor.value(Object.fromEntries(entries.filter(([key]) => !onPath(key))), base, log) as Record<
    string,
    unknown
  >;
  const out: Record<string, unknown> = {};
  for (const [key, child] of entries) {
    if (onPath(key)) out[key] = walk(child, [...path, key], visible, redactor, log);
    else if (Object.hasOwn(rest, key)) out[key] = rest[key];
  }
  return out;
}

/** Puts the marker where the redactor dropped a field (its parent object is still there). */
function markDropped(root: unknown, pointer: string): void {
  const tokens = parsePointer(pointer);
  if (tokens === null || tokens.length === 0) return;
  let parent: unknown = root;
  for (const token of tokens.slice(0, -1)) {
    if (parent === null || typeof parent !== 'object' || !Object.hasOwn(parent, token)) return;
    parent = (parent as Record<string, unknown>)[token];
  }
  const key = tokens[tokens.length - 1] as string;
  if (parent !== null && typeof parent === 'object' && !Array.isArray(parent) && !Object.hasOwn(parent, key)) {
    (parent as Record<string, unknown>)[key] = HIDDEN_FIELD_MARKER;
  }
}
