/** Replacement for a secret found inside text. */
export const REDACTED_MARKER = '[REDACTED]';
