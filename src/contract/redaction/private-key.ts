import { boundedRunEnd, charClass, indexWithin, literalClass, runEnd } from './char-class.js';
import type { Detector, Hit } from './detector.js';

const BEGIN = '-----BEGIN ';
const END = '-----END ';
const DASHES = '-----';
const LABEL = charClass('A-Z0-9 ');
const DASH = literalClass('-');
const MAX_LABEL = 48;

/**
 * PEM private-key blocks (`-----BEGIN RSA PRIVATE KEY-----`, `OPENSSH`, `EC`, `ENCRYPTED`, PGP's `PRIVATE KEY
 * BLOCK`), hidden whole from the BEGIN line through the END line. A block with no END line is hidden to the end of
 * what is scanned. Certificates and public keys are not secret and stay.
 */
export const privateKeyDetector: Detector = {
  startChars: '-',
  secondChars: literalClass('-'),
  detect(text: string, at: number, limit: number): Hit | number {
    if (at + BEGIN.length > limit || !text.startsWith(BEGIN, at)) {
      // In a run of dashes only its last five can open a BEGIN line.
      const dashesEnd = runEnd(text, at, limit, DASH);
      return Math.max(at + 1, dashesEnd - DASHES.length);
    }
    const labelEnd = boundedRunEnd(text, at + BEGIN.length, limit, LABEL, MAX_LABEL + 1);
    const label = text.slice(at + BEGIN.length, labelEnd);
    if (!isPrivateKeyLabel(label) || labelEnd + DASHES.length > limit || !text.startsWith(DASHES, labelEnd))
      return at + 1;
    // One search from here to the END line: on a hit the scan continues after it, so no text is searched twice.
    const endLine = indexWithin(text, END, labelEnd + DASHES.length, limit);
    if (endLine === -1) return { start: at, end: limit, rule: 'private_key' };
    const endLabelEnd = boundedRunEnd(text, endLine + END.length, limit, LABEL, MAX_LABEL + 1);
    const closed = endLabelEnd + DASHES.length <= limit && text.startsWith(DASHES, endLabelEnd);
    const end = closed ? endLabelEnd + DASHES.length : endLabelEnd;
    return { start: at, end, rule: 'private_key' };
  },
};

function isPrivateKeyLabel(label: string): boolean {
  return label.length <= MAX_LABEL && (label.endsWith('PRIVATE KEY') || label.endsWith('PRIVATE KEY BLOCK'));
}
