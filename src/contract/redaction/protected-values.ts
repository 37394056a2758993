import { ALNUM, inClass } from './char-class.js';
import type { Hit } from './detector.js';

/** Shortest value looked for inside text: a shorter one would shred ordinary words and identifies little. */
export const MIN_PROTECTED_SUBSTRING = 8;

/**
 * Values of one call that must not reach a model. Ids of the call (idempotency key, operation id) are hidden
 * wherever they appear. Identities (tenant, subject) are often plain words, so they are hidden as a whole string,
 * and inside text only when at least {@link MIN_PROTECTED_SUBSTRING} long and standing alone (no letter or digit on
 * either side): `tenant-acme` goes from `for tenant-acme:` but `acme` stays in `acme-widgets`.
 */
export class ProtectedValues {
  private readonly anywhere: readonly string[];
  private readonly standalone: readonly string[];
  private readonly whole: ReadonlySet<string>;
  /** Length of the longest value searched inside text. */
  readonly longest: number;

  constructor(callIds: readonly string[], identities: readonly string[]) {
    this.anywhere = callIds.filter((value) => value.length >= MIN_PROTECTED_SUBSTRING);
    this.standalone = identities.filter((value) => value.length >= MIN_PROTECTED_SUBSTRING);
    this.whole = new Set([...callIds, ...identities].filter((value) => value.length > 0));
    this.longest = Math.max(0, ...this.anywhere.map((v) => v.length), ...this.standalone.map((v) => v.length));
  }

  /** True when `text` is exactly one of the values. */
  isWhole(text: string): boolean {
    return this.whole.has(text);
  }

  /** Every occurrence in `text`, sorted by start (they may overlap). */
  find(text: string): Hit[] {
    const hits: Hit[] = [];
    for (const value of this.anywhere) collect(text, value, false, hits);
    for (const value of this.standalone) collect(text, value, true, hits);
    return hits.sort((a, b) => a.start - b.start);
  }
}

function collect(text: string, value: string, standalone: boolean, hits: Hit[]): void {
  for (let at = text.indexOf(value); at !== -1; at = text.indexOf(value, at + 1)) {
    const end = at + value.length;
    if (standalone && !(isBoundary(text, at - 1) && isBoundary(text, end))) continue;
    hits.push({ start: at, end, rule: 'protected_value' });
  }
}

function isBoundary(text: string, at: number): boolean {
  return at < 0 || at >= text.length || !inClass(ALNUM, text.charCodeAt(at));
}
