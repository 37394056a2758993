import type { AnyToolImplementation } from './tool-spec.js';

/**
 * What a write rests on, read again right before it runs (seed 000: a refund decided on an old read of the order must
 * re-confirm the order first). The read is a tool like any other and runs through the whole funnel — authorized,
 * validated, fresh — as the write's caller; the write runs only when it succeeded and `holds` accepts its data.
 */
export interface Precondition<Args> {
  /** Names the precondition in the audit (`precondition:<id>`). */
  readonly id: string;
  /** The read tool whose fresh result the write rests on. */
  readonly read: AnyToolImplementation;
  /** The read's arguments, from the write's (validated) arguments. */
  readonly arguments: (args: Args) => unknown;
  /** `true` when the fresh data still allows the write; `false` or a reason (audit only) when not. */
  readonly holds: (data: unknown, args: Args) => boolean | string;
}

const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/;

/** What `implementTool` refuses about a tool's preconditions (one line each). */
export function preconditionProblems(spec: { readonly effect: string; readonly preconditions?: unknown }): string[] {
  const { preconditions } = spec;
  if (preconditions === undefined) return [];
  if (!Array.isArray(preconditions)) return ['preconditions must be a list'];
  if (spec.effect === 'read')
    return ['preconditions apply to side-effecting tools (a read re-reads nothing before it reads)'];
  const problems: string[] = [];
  const ids = new Set<string>();
  for (const candidate of preconditions as unknown[]) {
    const precondition = candidate as Partial<Precondition<unknown>> | null;
    const id = precondition?.id;
    if (typeof id !== 'string' || !ID_PATTERN.test(id)) {
      problems.push(`precondition id '${String(id)}' must match ${ID_PATTERN}`);
      continue;
    }
    if (ids.has(id)) problems.push(`duplicate precondition '${id}'`);
    ids.add(id);
    const read = precondition?.read;
    if (read === undefined || typeof read.handler !== 'function' || read.effect !== 'read')
      problems.push(`precondition '${id}' must read with a read tool`);
    if (typeof precondition?.arguments !== 'function' || typeof precondition.holds !== 'function')
      problems.push(`precondition '${id}' needs arguments and holds functions`);
  }
  return problems;
}
