import {
  afterRun,
  ALNUM,
  boundedRunEnd,
  inClass,
  literalClass,
  runEnd,
  startsRun,
  type CharClass,
} from './char-class.js';
import type { TokenFamily } from './catalog.js';
import type { Detector, Hit } from './detector.js';
import { hasRandomPart } from './random-part.js';

/**
 * The prefixes as a trie in flat arrays over ASCII: `next[node * 128 + code]` is the child (-1 for none) and
 * `families[node]` the families whose prefix ends at the node.
 */
interface PrefixTrie {
  readonly next: Int16Array;
  readonly families: readonly (readonly TokenFamily[])[];
}

function prefixTrie(families: readonly TokenFamily[]): PrefixTrie {
  const prefixes = families.flatMap((family) => family.prefixes.map((prefix) => ({ prefix, family })));
  const size = 1 + prefixes.reduce((sum, { prefix }) => sum + prefix.length, 0);
  const next = new Int16Array(size * 128).fill(-1);
  const ending: TokenFamily[][] = Array.from({ length: size }, () => []);
  let used = 1;
  for (const { prefix, family } of prefixes) {
    let node = 0;
    for (let i = 0; i < prefix.length; i++) {
      const slot = node * 128 + prefix.charCodeAt(i);
      if (next[slot] === -1) next[slot] = used++;
      node = next[slot]!;
    }
    ending[node]!.push(family);
  }
  return { next, families: ending };
}

/**
 * Finds the credentials of {@link TokenFamily} form: a known prefix not glued to a preceding letter or digit, then a
 * body long enough to be a credential. The whole token is hidden, prefix included. Prefixes are matched by walking
 * a trie (at most the longest prefix's length), and a family decides from a bounded number of body characters; only
 * a hit reads on, to the end of the body run.
 */
export class PrefixedTokenDetector implements Detector {
  readonly startChars: string;
  readonly secondChars: CharClass;
  private readonly trie: PrefixTrie;

  constructor(families: readonly TokenFamily[]) {
    this.trie = prefixTrie(families);
    const prefixes = families.flatMap((family) => family.prefixes);
    this.startChars = [...new Set(prefixes.map((prefix) => prefix[0]!))].join('');
    this.secondChars = literalClass(prefixes.map((prefix) => prefix[1]!).join(''));
  }

  detect(text: string, at: number, limit: number): Hit | number {
    // `ord_sk-…` hides a key behind an underscore: only a letter or digit before the prefix means "not a token start".
    if (!startsRun(text, at, ALNUM)) return afterRun(text, at, limit, ALNUM);
    return longestMatch(this.trie, 0, text, at, at, limit) ?? at + 1;
  }
}

/** Walks the trie from `node` at `i`; the longest prefix whose family accepts the body wins (`sk-ant-` over `sk-`). */
function longestMatch(
  trie: PrefixTrie,
  node: number,
  text: string,
  start: number,
  i: number,
  limit: number,
): Hit | null {
  const code = i < limit ? text.charCodeAt(i) : 128;
  const child = code < 128 ? trie.next[node * 128 + code]! : -1;
  if (child === -1) return null;
  const longer = longestMatch(trie, child, text, start, i + 1, limit);
  if (longer !== null) return longer;
  for (const family of trie.families[child]!) {
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
