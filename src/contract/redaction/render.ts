import type { Hit } from './detector.js';
import { REDACTED_MARKER } from './marker.js';

/**
 * `text[0, keep)` with every hit replaced by one marker; hits that overlap or touch become one marker. `hits` must be
 * sorted by start. A hit running past `keep` still hides everything up to `keep`.
 */
export function renderRedacted(text: string, hits: readonly Hit[], keep: number): string {
  const parts: string[] = [];
  let shownFrom = 0;
  let hiddenTo = -1;
  for (const hit of hits) {
    if (hit.start >= keep) break;
    if (hit.start > hiddenTo) {
      parts.push(text.slice(shownFrom, hit.start), REDACTED_MARKER);
      hiddenTo = hit.end;
    } else hiddenTo = Math.max(hiddenTo, hit.end);
    shownFrom = Math.min(keep, hiddenTo);
  }
  parts.push(text.slice(shownFrom, keep));
  return parts.join('');
}

/** Merges two hit lists sorted by start into one sorted list. */
export function mergeSorted(a: readonly Hit[], b: readonly Hit[]): Hit[] {
  const merged: Hit[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i]!.start <= b[j]!.start)) merged.push(a[i++]!);
    else merged.push(b[j++]!);
  }
  return merged;
}
