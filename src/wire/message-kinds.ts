/**
 * Tags of the messages the package passes between its own parts. A tag names the shape and its version, so a
 * receiver recognises only the messages it owns and a changed shape gets a new tag instead of a silent mismatch.
 */

/** The argument of every tool activity, built by workflow code (stored in history as activity input). */
export const TOOL_ACTIVITY_INPUT_KIND = 'ttc.tool-call.v1';

/**
 * A tool activity's answer to a call dispatched unprepared as an expected read (`ToolActivityInput.expectedRead`)
 * whose tool must be prepared first: nothing ran and nothing was recorded (stored in history as activity result).
 */
export const PREPARATION_NEEDED_KIND = 'ttc.preparation-needed.v1';

/** The {@link PREPARATION_NEEDED_KIND} message. */
export interface PreparationNeeded {
  readonly kind: typeof PREPARATION_NEEDED_KIND;
}

/** True when an activity's result is a {@link PreparationNeeded}. */
export function isPreparationNeeded(value: unknown): value is PreparationNeeded {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === PREPARATION_NEEDED_KIND;
}
