/**
 * How long a result may be relied on (seed 000: "状态应包含版本和来源，否则后续步骤可能把旧查询结果当作当前事实" —
 * an old read must not pass for the current state). A tool declares `validForMs`; its results say until when
 * (`provenance.valid_until`), counted from when the fact was observed at the source, else from when it was read.
 * A write that must not rest on an expired read re-reads it (`preconditions`); a state patch that cites only expired
 * results is refused.
 */

/** What `declareTool` refuses about `validForMs`. */
export function validForProblems(spec: { readonly validForMs?: unknown }): string[] {
  const { validForMs } = spec;
  return validForMs === undefined || (Number.isSafeInteger(validForMs) && (validForMs as number) > 0)
    ? []
    : ['validForMs must be a positive integer'];
}

/** Until when a result observed at `observedAt` (or, unknown, read at `retrievedAt`) may be relied on (ISO-8601). */
export function validUntil(observedAt: string | null, retrievedAt: string, validForMs: number): string {
  return new Date(Date.parse(observedAt ?? retrievedAt) + validForMs).toISOString();
}

/** True when a result valid until `until` (`undefined`: no window declared) may no longer be relied on at `nowMs`. */
export function hasExpired(until: string | null | undefined, nowMs: number): boolean {
  return typeof until === 'string' && Date.parse(until) <= nowMs;
}
