/**
 * Tags of the messages the package passes between its own parts. A tag names the shape and its version, so a
 * receiver recognises only the messages it owns and a changed shape gets a new tag instead of a silent mismatch.
 */

/** The argument of every tool activity, built by workflow code (stored in history as activity input). */
export const TOOL_ACTIVITY_INPUT_KIND = 'ttc.tool-call.v1';
