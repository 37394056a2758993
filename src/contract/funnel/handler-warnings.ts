import type { Warning } from '../model-result.js';
import type { Redaction } from '../redaction.js';
import { cutText } from '../truncation.js';
import type { FunnelState } from './funnel-state.js';

const WARNING_CODE = /^[A-Z][A-Z0-9_]{1,63}$/;
/** A handler's notes are bounded like any handler text a model sees. */
const MAX_WARNINGS = 16;
const MAX_WARNING_CHARS = 500;

/** The handler's warnings as the model sees them, or why the envelope's `warnings` is malformed. */
export type HandlerWarnings =
  { readonly ok: true; readonly warnings: readonly Warning[] } | { readonly ok: false; readonly reason: string };

/**
 * Reads the envelope's `warnings`: notes the tool wants the model to read with its result (an MCP wrapper's
 * `UNVERIFIED_TEXT`, say). Each has an UPPER_SNAKE code and a message, which is made well-formed, redacted like any handler
 * text and cut to 500 characters; more than 16, or a malformed one, is a protocol violation.
 */
export function readHandlerWarnings(state: FunnelState, raw: unknown, log: Redaction[]): HandlerWarnings {
  if (raw === undefined) return { ok: true, warnings: [] };
  if (!Array.isArray(raw) || raw.length > MAX_WARNINGS)
    return { ok: false, reason: `warnings must be a list of at most ${MAX_WARNINGS}` };
  const warnings: Warning[] = [];
  for (const [i, item] of raw.entries()) {
    const { code, message } = (item ?? {}) as { code?: unknown; message?: unknown };
    if (typeof code !== 'string' || !WARNING_CODE.test(code) || typeof message !== 'string')
      return { ok: false, reason: `warnings[${i}] needs an UPPER_SNAKE code and a message` };
    warnings.push({
      code,
      message: cutText(
        state.redactor.text(message.toWellFormed(), `/warnings/${state.warnings.length + i}/message`, log),
        MAX_WARNING_CHARS,
      ),
    });
  }
  return { ok: true, warnings };
}
