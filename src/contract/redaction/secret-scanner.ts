import { cardNumberDetector } from './card-numbers.js';
import { TOKEN_FAMILIES } from './catalog.js';
import { inClass, type CharClass } from './char-class.js';
import type { Detector, Hit } from './detector.js';
import type { SecretNames } from './field-names.js';
import { jwtDetector } from './jwt.js';
import { PrefixedTokenDetector } from './prefixed-tokens.js';
import { privateKeyDetector } from './private-key.js';
import { SecretAssignmentDetector } from './secret-assignments.js';
import { urlCredentialsDetector } from './url-credentials.js';

/** The prefixed-token detector depends on the catalog alone, so every scanner shares one (it keeps no state). */
const PREFIXED_TOKENS = new PrefixedTokenDetector(TOKEN_FAMILIES);

/**
 * Finds every secret of the catalog in a text in one left-to-right pass. At each position only the detectors whose
 * start characters match are asked, in a fixed order (the most specific first); the first hit wins and the scan
 * continues after it. Each detector honours the contract of {@link Detector}, so the whole scan is linear in the
 * scanned length: no pattern is matched by backtracking over text from outside.
 */
export class SecretScanner {
  /** Each detector's `detect`, called through its own closure so every call site sees one kind of detector. */
  private readonly detects: readonly ((text: string, at: number, limit: number) => Hit | number)[];
  private readonly secondChars: readonly (CharClass | undefined)[];
  /** For each ASCII code, the indexes of the detectors that may start there. */
  private readonly byChar: readonly (readonly number[])[];
  /** The indexes of the detectors that may start at a character outside ASCII. */
  private readonly outsideAscii: readonly number[];

  constructor(names: SecretNames) {
    const detectors: readonly Detector[] = [
      privateKeyDetector,
      jwtDetector,
      PREFIXED_TOKENS,
      urlCredentialsDetector,
      cardNumberDetector,
      new SecretAssignmentDetector(names),
    ];
    this.detects = detectors.map(
      (detector) => (text: string, at: number, limit: number) => detector.detect(text, at, limit),
    );
    this.secondChars = detectors.map((detector) => detector.secondChars);
    const byChar: number[][] = Array.from({ length: 128 }, () => []);
    detectors.forEach((detector, index) => {
      for (const ch of detector.startChars) byChar[ch.charCodeAt(0)]!.push(index);
    });
    this.byChar = byChar;
    this.outsideAscii = detectors.flatMap((detector, index) => (detector.startsOutsideAscii === true ? [index] : []));
  }

  /** The secrets in `text[0, limit)`, in order and not overlapping. */
  scan(text: string, limit: number): Hit[] {
    const hits: Hit[] = [];
    // Position before which each detector is not asked again (its last miss said nothing starts earlier).
    const resume = new Int32Array(this.detects.length);
    let i = 0;
    while (i < limit) {
      const code = text.charCodeAt(i);
      const candidates = code < 128 ? this.byChar[code]! : this.outsideAscii;
      const second = i + 1 < limit ? text.charCodeAt(i + 1) : -1;
      let next = i + 1;
      for (let k = 0; k < candidates.length; k++) {
        const index = candidates[k]!;
        if (i < resume[index]!) continue;
        const follows = this.secondChars[index];
        if (follows !== undefined && (second < 0 || !inClass(follows, second))) continue;
        const found = this.detects[index]!(text, i, limit);
        if (typeof found === 'number') {
          resume[index] = found;
          continue;
        }
        hits.push(found);
        next = found.end;
        break;
      }
      i = next;
    }
    return hits;
  }
}
