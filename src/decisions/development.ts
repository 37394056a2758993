/**
 * The plugin's `decisions` for development only: approvals and resolutions count as sent and are recorded
 * `unauthenticated`. Whoever can signal a workflow then decides as anyone, and any workflow on the task queue can hand
 * a tool activity a self-made "approved" record. It has a name so that no worker ends up keyless by leaving an option
 * out: without `decisions`, no decision counts at all.
 */
export interface UnauthenticatedDecisions {
  readonly kind: 'unauthenticated-for-development';
}

const UNAUTHENTICATED: UnauthenticatedDecisions = Object.freeze({ kind: 'unauthenticated-for-development' });

/** `ToolContractPlugin({ decisions: unauthenticatedForDevelopment() })`: decisions are taken as sent (development only). */
export function unauthenticatedForDevelopment(): UnauthenticatedDecisions {
  return UNAUTHENTICATED;
}

/** True for the value {@link unauthenticatedForDevelopment} returns. */
export function isUnauthenticatedDecisions(value: unknown): value is UnauthenticatedDecisions {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === UNAUTHENTICATED.kind;
}
