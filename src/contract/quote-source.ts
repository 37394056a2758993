import { phraseKey } from './claim-support.js';
import type { RawResponse } from './tool-handler.js';
import type { BuiltEvidence } from './evidence.js';

/** Largest raw body the quotes are looked for in; a larger one leaves them unchecked. */
export const MAX_QUOTE_SOURCE_BYTES = 1024 * 1024;

/** What checking evidence quotes against the source the handler kept found. */
export type QuoteSourceCheck =
  /** No quote to check, or no source kept (the handler returned no raw response). */
  | { readonly kind: 'not_applicable' }
  | { readonly kind: 'too_large'; readonly bytes: number }
  /** The evidence whose quote the source does not contain (empty: every quote is in it). */
  | { readonly kind: 'checked'; readonly missing: readonly BuiltEvidence[] };

/**
 * A quote says what the source says (seed 004: "引用验证至少确认来源确实包含所述事实"): when the handler kept the raw
 * response it read (`rawResponse`), every evidence quote must occur in it — compared as words (Unicode NFKC, case,
 * punctuation and JSON syntax do not matter: `status=shipped` is in `{"status":"shipped"}`), a JSON body read as its
 * decoded text. Without a kept response there is nothing to check against, and the quote is checked against the data
 * only (by the answer's citation check). Linear in the body's length.
 */
export function checkQuotesInSource(
  evidence: readonly BuiltEvidence[],
  raw: RawResponse | undefined,
): QuoteSourceCheck {
  const quoted = evidence.filter((item) => item.evidence.quote !== undefined);
  if (quoted.length === 0 || raw === undefined || (typeof raw.body !== 'string' && !(raw.body instanceof Uint8Array)))
    return { kind: 'not_applicable' };
  const bytes = typeof raw.body === 'string' ? raw.body.length : raw.body.byteLength;
  if (bytes > MAX_QUOTE_SOURCE_BYTES) return { kind: 'too_large', bytes };
  const source = ` ${phraseKey(sourceText(raw))} `;
  return {
    kind: 'checked',
    missing: quoted.filter((item) => !source.includes(` ${phraseKey(item.evidence.quote ?? '')} `)),
  };
}

/** The body as text; a JSON document as its values read, so an escaped character compares as itself. */
function sourceText(raw: RawResponse): string {
  const text = typeof raw.body === 'string' ? raw.body : new TextDecoder('utf-8', { fatal: false }).decode(raw.body);
  if (!/json/i.test(raw.contentType)) return text;
  try {
    // Re-serialised, every string is written as itself (`\u00e9` becomes `é`); keys stay, as a quote may name one.
    return JSON.stringify(JSON.parse(text) as unknown);
  } catch {
    return text;
  }
}
