// Lives in the contract, not in the adapters that show it, because fitting a result to its byte budget must measure
// what the model will read: the fenced, escaped form (issue 15), which can be several times the raw text.
import { canonicalJson } from './canonical-json.js';
import type { UntrustedContent } from './model-result.js';
import { sha256Hex } from './sha256.js';

/** Tag name stem of the fence; the full tag carries a per-content nonce (`<untrusted-content-1a2b…>`). */
export const FENCE_TAG = 'untrusted-content';

/** Invisible, bidirectional-override and control characters: they can hide a role prefix or a marker. */
const INVISIBLE =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point.
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F\u00AD\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/g;
/**
 * Unicode tag characters (U+E0000–E007F): invisible, yet models read them as the ASCII they shadow ("ASCII
 * smuggling"), so a whole hidden instruction can ride along in visibly harmless text. The untrusted-content entry is
 * already marked `instructional` for them; the fence removes them so the model never reads the hidden text.
 */
const TAG_CHARACTERS = /[\u{E0000}-\u{E007F}]/gu;

/** Chat-template control tokens of common model families (ChatML, Llama, Gemma, sentence markers). */
const TEMPLATE_TOKENS: readonly RegExp[] = [
  /<\|([^|<>\n]{0,64})\|>/g,
  /\[(\/?INST)\]/gi,
  /<<(\/?SYS)>>/gi,
  /<\/?(start_of_turn|end_of_turn|bos|eos|s)>/gi,
];

/** `role:` at the start of a line (after indentation or markdown quote/list marks) for any conversational role. */
const LINE_ROLE_PREFIX = /^([\t >*#-]*)(system|assistant|developer|user|human|tool|function|model)(\s*)[:\uFF1A]/gim;
/** Roles that must never appear as a speaker anywhere in tool text, even mid-line. */
const ANY_ROLE_PREFIX = /\b(system|assistant|developer)(\s*)[:\uFF1A]/gi;

/**
 * The fence nonce: a digest of the content id *and the text*. It looks random and is deterministic (same result,
 * same rendering), and the text cannot contain its own closing tag: that would need a digest fixed point.
 */
export function fenceNonce(item: Pick<UntrustedContent, 'content_id' | 'text'>): string {
  return sha256Hex(canonicalJson({ domain: 'ttc.fence.v1', content_id: item.content_id, text: item.text })).slice(
    0,
    16,
  );
}

/**
 * Neutralises untrusted text for display inside a fence: invisible characters (Unicode tag characters included)
 * removed, chat-template tokens and
 * role prefixes rewritten as visibly quoted words, then `&`, `<` and `>` escaped — so the text contains no tag at all
 * and can neither close its fence nor open a role or template tag.
 */
export function defangUntrustedText(text: string): string {
  let out = text
    .replace(/\r\n?|[\u0085\u2028\u2029]/g, '\n')
    .replace(INVISIBLE, '')
    .replace(TAG_CHARACTERS, '');
  for (const token of TEMPLATE_TOKENS) out = out.replace(token, (_match, inner: string) => `[token ${inner.trim()}]`);
  out = out.replace(LINE_ROLE_PREFIX, (_m, lead: string, role: string) => `${lead}[quoted ${role}]:`);
  out = out.replace(ANY_ROLE_PREFIX, (_m, role: string) => `[quoted ${role}]:`);
  return out.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The text of one untrusted-content entry as every adapter shows it: defanged, between nonce-tagged markers. */
export function fenceUntrustedText(item: Pick<UntrustedContent, 'content_id' | 'text'>): string {
  const tag = `${FENCE_TAG}-${fenceNonce(item)}`;
  return `<${tag}>\n${defangUntrustedText(item.text)}\n</${tag}>`;
}

/**
 * One untrusted-content entry as every adapter renders it: the text fenced and defanged, and the `source` label
 * (from the same untrusted answer: a remote tool's name, a URL) defanged too, since it sits outside the fence.
 */
export function renderUntrustedContent(item: UntrustedContent): UntrustedContent {
  return { ...item, text: fenceUntrustedText(item), source: defangUntrustedText(item.source) };
}
