import { decidedByAuthority } from '../authoritative-sources.js';
import type { ConflictInput } from '../tool-handler.js';
import type { AnyToolImplementation } from '../tool-spec.js';
import { inspectJson } from '../json-shape.js';
import { resolvePointer } from '../json-pointer.js';
import type { Conflict } from '../model-result.js';

/**
 * Checks the conflicts a handler reported: each names a field that resolves in `data` and at least two JSON values
 * with their sources. A field the tool aggregates by a declared rule is shown as a `calculation`, any other as
 * `unresolved` — conflicting sources are never resolved silently — unless the tool names the source that decides the
 * field and the data holds its value (`authoritative`).
 */
export function checkConflicts(
  tool: AnyToolImplementation,
  reported: readonly ConflictInput[],
  data: unknown,
): { ok: true; conflicts: Conflict[] } | { ok: false; reason: string } {
  const conflicts: Conflict[] = [];
  for (const input of reported) {
    if (typeof input.field !== 'string' || !resolvePointer(data, input.field).found) {
      return { ok: false, reason: `conflict field '${String(input.field)}' does not resolve in data` };
    }
    const values: unknown = input.values;
    if (!Array.isArray(values) || values.length < 2 || !values.every(isConflictValue)) {
      return { ok: false, reason: `conflict on '${input.field}' needs at least two JSON values with sources` };
    }
    const shown = values.map((v) => ({ value: v.value as Conflict['values'][number]['value'], source: v.source }));
    const authority = decidedByAuthority(tool.authoritativeSources, { field: input.field, values: shown }, data);
    const rule = authority !== null ? `source:${authority}` : tool.aggregations?.[input.field];
    const conflict: Conflict = {
      field: input.field,
      values: shown,
      resolution: authority !== null ? 'authoritative' : rule === undefined ? 'unresolved' : 'calculation',
    };
    if (rule !== undefined) conflict.rule = rule;
    conflicts.push(conflict);
  }
  return { ok: true, conflicts };
}

function isConflictValue(value: unknown): value is { value: unknown; source: string } {
  if (value === null || typeof value !== 'object') return false;
  const candidate = value as { value?: unknown; source?: unknown };
  return typeof candidate.source === 'string' && candidate.value !== undefined && inspectJson(candidate.value, 16).ok;
}
