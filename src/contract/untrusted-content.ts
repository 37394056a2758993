import type { UntrustedInput } from './define-tool.js';
import { UNTRUSTED_ALLOWED_USES, UNTRUSTED_FORBIDDEN_USES, type UntrustedContent } from './model-result.js';
import { digestJson } from './sha256.js';

/**
 * Phrases that address an agent rather than inform a reader. A hit marks the text `instructional` — a signal for
 * the model and for review, not a filter: the text is isolated as data either way.
 */
const INSTRUCTION_PATTERNS: readonly RegExp[] = [
  /\b(ignore|disregard|forget|override)\b[^.\n]{0,40}\b(previous|prior|above|earlier|all|system|your)\b[^.\n]{0,20}\b(instructions?|prompts?|rules?|messages?|context)\b/i,
  /\byou (are now|must|should now|will now)\b/i,
  /^\s*(system|assistant|developer)\s*:/im,
  /<\/?\s*(system|assistant|tool|instructions?|im_start|im_end)\b[^>]*>/i,
  /\b(call|invoke|use|run) the [\w.-]+ tool\b/i,
  /\b(new|updated|real) instructions?\b/i,
  /\bdo not (tell|inform|mention)[^.\n]{0,30}\b(user|human|operator)\b/i,
];

/** True when `text` reads like instructions to an agent. */
export function looksInstructional(text: string): boolean {
  return INSTRUCTION_PATTERNS.some((pattern) => pattern.test(text));
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
