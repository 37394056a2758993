import { ALNUM, boundedRunEnd, inClass, runEnd, startsRun } from './char-class.js';
import type { TokenFamily } from './catalog.js';
import type { Detector, Hit } from './detector.js';
import { hasRandomPart } from './random-part.js';

/** A node of the prefix trie: the families whose prefix ends here, and the longer prefixes by next character. */
interface PrefixNode {
  readonly families: TokenFamily[];
  readonly next: Map<number, PrefixNode>;
}

/**
 * Finds the credentials of {@link TokenFamily} form: a known prefix not glued to a preceding letter or digit, then a
 * body long enough to be a credential. The whole token is hidden, prefix included. Prefixes are matched by walking
 * a trie (at most the longest prefix's length), and a family decides from a bounded number of body characters; only
 * a hit reads on, to the end of the body run.
 */
export class PrefixedTokenDetector implements Detector {
  readonly startChars: string;
  private readonly root: PrefixNode = { families: [], next: new Map() };

  constructor(families: readonly TokenFamily[]) {
    for (const family of families) {
      for (const prefix of family.prefixes) {
        let node = this.root;
        for (let i = 0; i < prefix.length; i++) {
          const code = prefix.charCodeAt(i);
          const child = node.next.get(code) ?? { families: [], next: new Map<number, PrefixNode>() };
          node.next.set(code, child);
          node = child;
        }
        node.families.push(family);
      }
    }
    this.startChars = String.fromCharCode(...this.root.next.keys());
  }

  detect(text: string, at: number, limit: number): Hit | number {
    // `ord_sk-…` hides a key behind an underscore: only a letter or digit before the prefix means "not a token start".
    if (!startsRun(text, at, ALNUM)) return at + 1;
    return longestMatch(this.root, text, at, at, limit) ?? at + 1;
  }
}

/** Walks the trie from `node` at `i`; the longest prefix whose family accepts the body wins (`sk-ant-` over `sk-`). */
function longestMatch(node: PrefixNode, text: string, start: number, i: number, limit: number): Hit | null {
  const child = i < limit ? node.next.get(text.charCodeAt(i)) : undefined;
  if (child === undefined) return null;
  const longer = longestMatch(child, text, start, i + 1, limit);
  if (longer !== null) return longer;
  for (const family of child.families) {
    const end = credentialEnd(text, i + 1, limit, family);
    if (end !== null) return { start, end, rule: family.rule };
  }
  return null;
}

/** End of the credential whose body starts at `from`, or null when the body does not make one. */
function credentialEnd(text: string, from: number, limit: number, family: TokenFamily): number | null {
  if (family.exactBody !== undefined) {
    const end = boundedRunEnd(text, from, limit, family.body, family.exactBody + 1);
    const closed = end === limit || !inClass(ALNUM, text.charCodeAt(end));
    return end - from === family.exactBody && closed ? end : null;
  }
  if (family.randomBody === true && !hasRandomPart(text, from, limit)) return null;
  const seen = boundedRunEnd(text, from, limit, family.body, family.minBody);
  return seen - from < family.minBody ? null : runEnd(text, seen, limit, family.body);
}
