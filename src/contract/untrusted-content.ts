import type { UntrustedInput } from './tool-handler.js';
import { hasInstructionSignals } from './instruction-signals.js';
import { UNTRUSTED_ALLOWED_USES, UNTRUSTED_FORBIDDEN_USES, type UntrustedContent } from './model-result.js';
import { digestJson } from './sha256.js';

/**
 * True when `text` reads like instructions to an agent. A hit marks the text `instructional` — a signal for the model
 * and for review, not a filter: the text is isolated as data either way. Linear in the text's length.
 */
export function looksInstructional(text: string): boolean {
  return hasInstructionSignals(text);
}

/** Builds isolated untrusted-content entries with stable ids and the fixed use policy. */
export function buildUntrustedContent(items: readonly UntrustedInput[]): UntrustedContent[] {
  return items.map((item) => {
    const text = String(item.text);
    const source = String(item.source);
    return {
      content_id: `uc_${digestJson({ text, source }).slice(0, 16)}`,
      text,
      source,
      instructional: looksInstructional(text),
      allowed_uses: [...UNTRUSTED_ALLOWED_USES],
      forbidden_uses: [...UNTRUSTED_FORBIDDEN_USES],
    };
  });
}
