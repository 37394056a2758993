import type { ToolOutput } from './tool-handler.js';
import { formatPointer, parsePointer, resolvePointer } from './json-pointer.js';

/**
 * The handler's output without the first `count` items of its main list (at `listPointer`): what a cursor
 * continuation shows when an earlier call already showed the start of the same upstream page. Everything that
 * points into the list follows the items: an evidence item or conflict that points into a dropped item is dropped
 * with it, one that points into a later item is re-indexed, and `availableItems` (counted from the page's start)
 * shrinks by what was dropped. Declarations that are not well formed are left for the evidence layer to refuse.
 */
export function dropLeadingItems<Data>(output: ToolOutput<Data>, listPointer: string, count: number): ToolOutput<Data> {
  const found = resolvePointer(output.data, listPointer);
  const items = found.found && Array.isArray(found.value) ? (found.value as unknown[]) : [];
  const dropped = Math.min(count, items.length);
  if (dropped === 0) return output;
  const listTokens = parsePointer(listPointer) ?? [];
  const data = replaceAt(output.data, listTokens, items.slice(dropped)) as Data;
  const shifted = (pointer: unknown): string | null | undefined =>
    typeof pointer === 'string' ? shiftPointer(pointer, listTokens, dropped) : undefined;
  const evidence = output.evidence?.flatMap((item) => {
    if (!Array.isArray(item?.supports)) return [item];
    const supports = item.supports.map(shifted);
    if (supports.includes(null)) return [];
    return [{ ...item, supports: supports.map((pointer, i) => pointer ?? item.supports[i]!) }];
  });
  const conflicts = output.conflicts?.flatMap((conflict) => {
    const field = shifted(conflict?.field);
    return field === null ? [] : [field === undefined ? conflict : { ...conflict, field }];
  });
  const availableItems =
    typeof output.availableItems === 'number' ? Math.max(0, output.availableItems - dropped) : output.availableItems;
  return {
    ...output,
    data,
    ...(evidence === undefined ? {} : { evidence }),
    ...(conflicts === undefined ? {} : { conflicts }),
    ...(availableItems === undefined ? {} : { availableItems }),
  };
}

/** A copy of `node` with `value` at the path `tokens` (which resolves: the caller found the list there). */
function replaceAt(node: unknown, tokens: readonly string[], value: unknown): unknown {
  if (tokens.length === 0) return value;
  const [head, ...rest] = tokens as [string, ...string[]];
  if (Array.isArray(node))
    return (node as unknown[]).map((item, i) => (String(i) === head ? replaceAt(item, rest, value) : item));
  if (node === null || typeof node !== 'object') return node;
  return { ...node, [head]: replaceAt((node as Record<string, unknown>)[head], rest, value) };
}

/**
 * `pointer` re-indexed after `dropped` leading items of the list at `listTokens` went: `null` when it points into a
 * dropped item, unchanged when it points elsewhere (or at the list itself).
 */
function shiftPointer(pointer: string, listTokens: readonly string[], dropped: number): string | null {
  const tokens = parsePointer(pointer);
  if (tokens === null || tokens.length <= listTokens.length || !listTokens.every((token, i) => tokens[i] === token))
    return pointer;
  const indexToken = tokens[listTokens.length]!;
  if (!/^(0|[1-9][0-9]*)$/.test(indexToken)) return pointer;
  const index = Number(indexToken);
  if (index < dropped) return null;
  return formatPointer([...listTokens, String(index - dropped), ...tokens.slice(listTokens.length + 1)]);
}
