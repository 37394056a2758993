import { formatPointer, parsePointer, resolvePointer } from './json-pointer.js';

/** One structural cut made to fit a budget. */
export interface TruncationNote {
  readonly path: string;
  readonly kind: 'items' | 'text';
  readonly kept: number;
  readonly total: number;
}

/** Limits applied structurally: whole items, and strings cut at code-point boundaries with a visible marker. */
export interface StructuralLimits {
  readonly maxItems: number;
  readonly maxTextChars: number;
}

const MARKER_HEAD = '…[truncated ';
const MARKER_TAIL = ' chars]';

/** Appended to a cut string so no reader mistakes it for the whole text. */
export function truncationMarker(omitted: number): string {
  return `${MARKER_HEAD}${omitted}${MARKER_TAIL}`;
}

const NON_ASCII = /[\u0080-\uffff]/;

/** UTF-8 size of a string without encoding it (surrogate pairs count 4, lone surrogates 3 like TextEncoder's U+FFFD). */
export function utf8ByteLength(text: string): number {
  // ASCII text (most JSON) is one byte per unit; the regex scan is native, the loop below is not.
  if (!NON_ASCII.test(text)) return text.length;
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * The first `maxUnits` UTF-16 units of `text`, well-formed: half a surrogate pair left by the cut, or a lone
 * surrogate already in the text, becomes U+FFFD. For bounded text that is recorded or digested: canonical JSON
 * (and so every binding and stored record) refuses lone surrogates.
 */
export function wellFormedPrefix(text: string, maxUnits: number): string {
  return text.slice(0, maxUnits).toWellFormed();
}

/**
 * Cuts `text` to at most `maxChars` code points (plus marker); never splits a surrogate pair. Text an earlier cut
 * already marked (redaction's scan cap cuts before the budget does) is cut before that marker, and the one marker
 * left counts what both cuts dropped, so the model is told how much is missing, not how much of a prefix was.
 */
export function cutText(text: string, maxChars: number): string {
  // Cheap exit: a string with no more UTF-16 units than the limit cannot have more code points.
  if (text.length <= maxChars) return text;
  const earlier = earlierCut(text);
  const body = earlier?.body ?? text;
  const codePoints = Array.from(body);
  if (codePoints.length <= maxChars) return text;
  return (
    codePoints.slice(0, maxChars).join('') + truncationMarker(codePoints.length - maxChars + (earlier?.omitted ?? 0))
  );
}

/**
 * True when `text` ends with a truncation marker: it was cut, whether or not a later cut changes it (redaction's scan
 * cap may cut a string shorter than the text budget, and then the budget's cut keeps it as it is).
 */
export function isCutText(text: string): boolean {
  return earlierCut(text) !== null;
}

/** The text before a truncation marker that ends `text`, and the count the marker gives; `null` without one. */
function earlierCut(text: string): { readonly body: string; readonly omitted: number } | null {
  if (!text.endsWith(MARKER_TAIL)) return null;
  const at = text.lastIndexOf(MARKER_HEAD);
  const count = at < 0 ? '' : text.slice(at + MARKER_HEAD.length, -MARKER_TAIL.length);
  return /^\d{1,15}$/.test(count) ? { body: text.slice(0, at), omitted: Number(count) } : null;
}

/**
 * Applies item and text limits everywhere in a JSON value (already shape-checked, so recursion is bounded). Only
 * what a limit changes is copied: a value with nothing to cut comes back as it is, so a 10,000-item result within
 * its limits costs one walk, not a second copy of itself.
 */
export function limitStructure(value: unknown, limits: StructuralLimits, notes: TruncationNote[]): unknown {
  return limitValue(value, limits, notes, []);
}

/** The walk behind {@link limitStructure}: the path is a token stack, made a pointer only for a note. */
function limitValue(
  value: unknown,
  limits: StructuralLimits,
  notes: TruncationNote[],
  tokens: (string | number)[],
): unknown {
  if (typeof value === 'string') {
    const cut = cutText(value, limits.maxTextChars);
    if (cut !== value || isCutText(value))
      notes.push({
        path: formatPointer(tokens),
        kind: 'text',
        kept: limits.maxTextChars,
        total: Array.from(value).length,
      });
    return cut;
  }
  if (Array.isArray(value)) {
    const kept: unknown[] = value.length > limits.maxItems ? value.slice(0, limits.maxItems) : value;
    if (kept !== value)
      notes.push({ path: formatPointer(tokens), kind: 'items', kept: kept.length, total: value.length });
    let copy: unknown[] | null = kept === value ? null : kept;
    for (let i = 0; i < kept.length; i++) {
      tokens.push(i);
      const limited = limitValue(kept[i], limits, notes, tokens);
      tokens.pop();
      if (limited === kept[i]) continue;
      copy ??= kept.slice();
      copy[i] = limited;
    }
    return copy ?? value;
  }
  if (value === null || typeof value !== 'object') return value;
  const record = value as Record<string, unknown>;
  let copy: Record<string, unknown> | null = null;
  for (const key of Object.keys(record)) {
    const child = record[key];
    tokens.push(key);
    const limited = limitValue(child, limits, notes, tokens);
    tokens.pop();
    if (limited === child) continue;
    copy ??= { ...record };
    copy[key] = limited;
  }
  return copy ?? value;
}

/**
 * Finds the result's main list: the declared pointer, else the data itself when it is an array. `null` when the
 * result is not a listing. Never guessed from the shape: an order with `lines` is one order, not a list of lines.
 */
export function locateItemsList(data: unknown, declared: string | undefined): string | null {
  const pointer = declared ?? '';
  const found = resolvePointer(data, pointer);
  return found.found && Array.isArray(found.value) ? pointer : null;
}

/** Returns a copy of `data` whose list at `pointer` keeps only its first `count` items. */
export function withItemCount(data: unknown, pointer: string, count: number): unknown {
  const tokens = parsePointer(pointer) ?? [];
  const rebuild = (node: unknown, depth: number): unknown => {
    if (depth === tokens.length) return Array.isArray(node) ? (node.slice(0, count) as unknown[]) : node;
    const token = tokens[depth]!;
    if (Array.isArray(node))
      return (node as unknown[]).map((item, i) => (String(i) === token ? rebuild(item, depth + 1) : item));
    if (node === null || typeof node !== 'object') return node;
    return { ...node, [token]: rebuild((node as Record<string, unknown>)[token], depth + 1) };
  };
  return rebuild(data, 0);
}

/** Largest `n` in [lo, hi] with `fits(n)`, assuming `fits` is monotone (true up to some n); `lo - 1` if none. */
export function largestFitting(lo: number, hi: number, fits: (n: number) => boolean): number {
  let best = lo - 1;
  while (lo <= hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (fits(mid)) {
      best = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return best;
}
