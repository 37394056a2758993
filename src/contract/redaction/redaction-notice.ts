import type { Warning } from '../model-result.js';

/**
 * What the model is told when anything in a result was withheld as sensitive (a credential or control field removed,
 * a secret-shaped value or a call's own id replaced by `[REDACTED]`): that the gap is deliberate, so it neither treats
 * the result as broken nor asks for the value again. Which values went is in the audit only.
 */
export const REDACTION_WARNING: Warning = Object.freeze({
  code: 'REDACTED',
  message:
    'Some values were withheld from this result as sensitive (credentials, secrets or internal identifiers). Do not ask for them.',
});
