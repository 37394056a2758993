import type { ConflictInput } from './tool-handler.js';
import { inspectJson } from './json-shape.js';
import { canonicalJson } from './canonical-json.js';
import { parsePointer, resolvePointer, withValueAt } from './json-pointer.js';

/**
 * Seed 004: "来源冲突可换权威源" — when sources disagree on a field and the tool names the source that decides it
 * (`authoritativeSources: { '/stock': 'erp' }`), the result takes that source's value instead of reporting the
 * disagreement and leaving the model to pick. The switch is made before the data is validated, so the value shown is
 * checked like any other; the conflict stays in the result, resolved `authoritative` (rule `source:<label>`). A
 * conflict whose values do not include the authority's stays `unresolved`: there is nothing to switch to.
 */

/** One value the data takes from the field's authoritative source. */
export interface AuthoritativeSwitch {
  readonly field: string;
  readonly source: string;
  readonly value: unknown;
}

/** What `declareTool` refuses about `authoritativeSources` (one line each). */
export function authoritativeSourcesProblems(spec: { readonly authoritativeSources?: unknown }): string[] {
  const declared = spec.authoritativeSources;
  if (declared === undefined) return [];
  if (declared === null || typeof declared !== 'object' || Array.isArray(declared))
    return ['authoritativeSources must map JSON Pointers to source labels'];
  return Object.entries(declared).flatMap(([field, source]) => {
    if (field === '' || parsePointer(field) === null)
      return [`authoritativeSources: '${field}' is not a JSON Pointer into data`];
    return typeof source === 'string' && source !== ''
      ? []
      : [`authoritativeSources: the source of '${field}' must be a label`];
  });
}

/** The authority's value of each reported conflict on a declared field, where it differs from the data's. */
export function authoritativeSwitches(
  declared: Readonly<Record<string, string>> | undefined,
  reported: unknown,
  data: unknown,
): AuthoritativeSwitch[] {
  if (declared === undefined || !Array.isArray(reported)) return [];
  return (reported as unknown[]).flatMap((candidate): AuthoritativeSwitch[] => {
    const conflict = candidate as Partial<ConflictInput> | null;
    if (typeof conflict?.field !== 'string' || !Array.isArray(conflict.values)) return [];
    const decided = authorityValue(declared, conflict.field, conflict.values as unknown[]);
    const current = resolvePointer(data, conflict.field);
    if (
      decided === null ||
      !current.found ||
      !inspectJson(decided.value, 16).ok ||
      sameJson(current.value, decided.value)
    )
      return [];
    return [{ field: conflict.field, source: decided.source, value: decided.value }];
  });
}

/** `data` with each switch applied (copied along each path; `data` itself is not changed). */
export function withAuthoritativeValues(data: unknown, switches: readonly AuthoritativeSwitch[]): unknown {
  return switches.reduce((copy, change) => withValueAt(copy, parsePointer(change.field) ?? [], change.value), data);
}

/** True when the data at a conflict's field holds its authoritative source's value (the conflict is then decided). */
export function decidedByAuthority(
  declared: Readonly<Record<string, string>> | undefined,
  conflict: {
    readonly field: string;
    readonly values: readonly { readonly value: unknown; readonly source: string }[];
  },
  data: unknown,
): string | null {
  const decided = authorityValue(declared, conflict.field, conflict.values);
  const current = resolvePointer(data, conflict.field);
  return decided !== null && current.found && sameJson(current.value, decided.value) ? decided.source : null;
}

/** The value the field's declared authority reported among a conflict's values, or `null`. */
function authorityValue(
  declared: Readonly<Record<string, string>> | undefined,
  field: string,
  values: readonly unknown[],
): { readonly source: string; readonly value: unknown } | null {
  const source = declared !== undefined && Object.hasOwn(declared, field) ? declared[field] : undefined;
  if (source === undefined) return null;
  const decided = values.find(
    (value): value is { value: unknown; source: string } => (value as { source?: unknown } | null)?.source === source,
  );
  return decided === undefined ? null : { source, value: decided.value };
}

function sameJson(a: unknown, b: unknown): boolean {
  try {
    return canonicalJson(a) === canonicalJson(b);
  } catch {
    return false;
  }
}
