/**
 * Signs that a text addresses an agent rather than informs a reader ("ignore previous instructions", a forged
 * `system:` line, a `<system>` tag, hidden Unicode tag characters). Used to mark untrusted content `instructional`:
 * a signal for the model and for review, not a filter.
 *
 * The text comes from outside (web pages, tickets, remote tools), so the checks are not regular expressions over it.
 * One pass finds the words of a small vocabulary (a walk of a trie in flat arrays, nothing allocated per word), and each
 * rule looks at a bounded window of words or characters from a trigger word. Every character is read a bounded
 * number of times, so the cost is linear in the length of the text.
 */

/** The words the rules are made of. Words are maximal runs of `[A-Za-z0-9_]` (what `\w` matches), any case. */
const VOCABULARY = [
  'ignore',
  'disregard',
  'forget',
  'override',
  'previous',
  'prior',
  'above',
  'earlier',
  'all',
  'system',
  'your',
  'instruction',
  'instructions',
  'prompt',
  'prompts',
  'rule',
  'rules',
  'message',
  'messages',
  'context',
  'you',
  'are',
  'now',
  'must',
  'should',
  'will',
  'assistant',
  'developer',
  'tool',
  'im_start',
  'im_end',
  'call',
  'invoke',
  'use',
  'run',
  'the',
  'new',
  'updated',
  'real',
  'do',
  'not',
  'user',
  'human',
  'operator',
] as const;

type Vocable = (typeof VOCABULARY)[number];

/** A word that is not in the vocabulary (or too long to be). */
const OTHER = 0;
/** Words starting with these count as the verb of "do not tell …" (`tells`, `informing`). */
const SECRECY_VERB = VOCABULARY.length + 1;
const SECRECY_PREFIXES = ['tell', 'inform', 'mention'];

const ID = Object.fromEntries(VOCABULARY.map((word, i) => [word, i + 1])) as Record<Vocable, number>;

/** What a word can be in the rules (bit flags, by word id). */
const OVERRIDE_VERB = 1;
const OVERRIDE_TARGET = 2;
const OVERRIDE_OBJECT = 4;
const ROLE_NAME = 8;
const TAG_NAME = 16;
const TOOL_VERB = 32;
const NEW_ADJECTIVE = 64;
const NEW_OBJECT = 128;
const SECRECY_TARGET = 256;

const ROLES = new Uint16Array(SECRECY_VERB + 1);
const give = (role: number, words: readonly Vocable[]) => words.forEach((word) => (ROLES[ID[word]]! |= role));
give(OVERRIDE_VERB, ['ignore', 'disregard', 'forget', 'override']);
give(OVERRIDE_TARGET, ['previous', 'prior', 'above', 'earlier', 'all', 'system', 'your']);
give(OVERRIDE_OBJECT, [
  'instruction',
  'instructions',
  'prompt',
  'prompts',
  'rule',
  'rules',
  'message',
  'messages',
  'context',
]);
give(ROLE_NAME, ['system', 'assistant', 'developer']);
give(TAG_NAME, ['system', 'assistant', 'tool', 'instruction', 'instructions', 'im_start', 'im_end']);
give(TOOL_VERB, ['call', 'invoke', 'use', 'run']);
give(NEW_ADJECTIVE, ['new', 'updated', 'real']);
give(NEW_OBJECT, ['instruction', 'instructions']);
give(SECRECY_TARGET, ['user', 'human', 'operator']);

const YOU_COMMANDS: readonly (readonly number[])[] = [
  [ID.are, ID.now],
  [ID.must],
  [ID.should, ID.now],
  [ID.will, ID.now],
];

/** Most characters between an override verb and its target, and between the target and its object. */
const OVERRIDE_GAP = 40;
const OBJECT_GAP = 20;
/** Most characters between "do not tell" and whom it keeps in the dark. */
const SECRECY_GAP = 30;

/** The vocabulary words of a text, in order, as parallel typed arrays (no object per word). */
interface Words {
  readonly count: number;
  readonly id: Uint8Array;
  readonly start: Int32Array;
  readonly end: Int32Array;
  /** Sentence breaks (`.` or a newline) before the word: two words are in one sentence when equal. */
  readonly breaks: Int32Array;
  /** 1 when only whitespace precedes the word on its line. */
  readonly firstOnLine: Uint8Array;
}

/** True when `text` reads like instructions to an agent. */
export function hasInstructionSignals(text: string): boolean {
  if (hasUnicodeTags(text)) return true;
  const words = vocabularyWords(text);
  const lastGt = text.lastIndexOf('>');
  for (let k = 0; k < words.count; k++) {
    const id = words.id[k]!;
    const roles = ROLES[id]!;
    if (id === ID.you && YOU_COMMANDS.some((phrase) => followedBy(text, words, k, phrase))) return true;
    if (
      id === ID.do &&
      followedBy(text, words, k, [ID.not]) &&
      followedBy(text, words, k + 1, [SECRECY_VERB]) &&
      within(words, k + 2, SECRECY_GAP, SECRECY_TARGET)
    )
      return true;
    if (roles === 0) continue;
    if ((roles & OVERRIDE_VERB) !== 0 && overridesInstructions(words, k)) return true;
    if ((roles & ROLE_NAME) !== 0 && words.firstOnLine[k] === 1 && isFollowedByColon(text, words.end[k]!)) return true;
    if ((roles & TAG_NAME) !== 0 && lastGt >= words.end[k]! && isTagName(text, words.start[k]!)) return true;
    if ((roles & TOOL_VERB) !== 0 && followedBy(text, words, k, [ID.the]) && namesATool(text, words.end[k + 1]!))
      return true;
    if (
      (roles & NEW_ADJECTIVE) !== 0 &&
      k + 1 < words.count &&
      (ROLES[words.id[k + 1]!]! & NEW_OBJECT) !== 0 &&
      isBlankGap(text, words.end[k]!, words.start[k + 1]!, 1)
    )
      return true;
  }
  return false;
}

/** ASCII smuggling: characters of the Unicode tag block (U+E0000–E007F) are invisible but read by models. */
function hasUnicodeTags(text: string): boolean {
  for (let i = text.indexOf('\udb40'); i !== -1; i = text.indexOf('\udb40', i + 1)) {
    const low = text.charCodeAt(i + 1);
    if (low >= 0xdc00 && low <= 0xdc7f) return true;
  }
  return false;
}

function vocabularyWords(text: string): Words {
  // A word takes at least one character and a separator: this many slots always suffice.
  const capacity = (text.length >> 1) + 1;
  const id = new Uint8Array(capacity);
  const start = new Int32Array(capacity);
  const end = new Int32Array(capacity);
  const breaksAt = new Int32Array(capacity);
  const firstOnLine = new Uint8Array(capacity);
  let count = 0;
  let breaks = 0;
  let blankLine = true;
  for (let i = 0; i < text.length;) {
    const code = text.charCodeAt(i);
    if (!isWordChar(code)) {
      if (code === 0x2e || code === 0x0a) breaks++;
      if (isLineBreak(code)) blankLine = true;
      else if (!isSpace(code)) blankLine = false;
      i++;
      continue;
    }
    const wordStart = i;
    let node = 0;
    for (; i < text.length && isWordChar(text.charCodeAt(i)); i++) {
      // Past a secrecy prefix every longer word counts as the verb (`telling`).
      if (node >= 0 && TRIE.word[node] !== SECRECY_VERB)
        node = TRIE.next[node * TRIE_WIDTH + trieIndex(text.charCodeAt(i))]!;
    }
    const word = node >= 0 ? TRIE.word[node]! : OTHER;
    if (word !== OTHER) {
      id[count] = word;
      start[count] = wordStart;
      end[count] = i;
      breaksAt[count] = breaks;
      firstOnLine[count] = blankLine ? 1 : 0;
      count++;
    }
    blankLine = false;
  }
  return { count, id, start, end, breaks: breaksAt, firstOnLine };
}

/**
 * The vocabulary (and the secrecy prefixes) as a trie in flat arrays: `next[node * TRIE_WIDTH + char]` is the child
 * (-1 for none), `word[node]` the id of the word ending there. Characters are case-folded letters, digits and `_`.
 */
const TRIE_WIDTH = 37;
const TRIE = ((): { next: Int16Array; word: Uint8Array } => {
  const entries = [
    ...VOCABULARY.map((word) => [word, ID[word]] as const),
    ...SECRECY_PREFIXES.map((word) => [word, SECRECY_VERB] as const),
  ];
  const nodes = 1 + entries.reduce((sum, [word]) => sum + word.length, 0);
  const next = new Int16Array(nodes * TRIE_WIDTH).fill(-1);
  const word = new Uint8Array(nodes);
  let used = 1;
  for (const [text, id] of entries) {
    let node = 0;
    for (let i = 0; i < text.length; i++) {
      const slot = node * TRIE_WIDTH + trieIndex(text.charCodeAt(i));
      if (next[slot] === -1) next[slot] = used++;
      node = next[slot]!;
    }
    word[node] = id;
  }
  return { next, word };
})();

/** Position of a word character in a trie node: `a`–`z` (either case), then `0`–`9`, then `_`. */
function trieIndex(code: number): number {
  if (code >= 0x61) return code - 0x61;
  if (code >= 0x41 && code <= 0x5a) return code - 0x41;
  return code === 0x5f ? 36 : code - 0x30 + 26;
}

/** True when the words after the `k`-th are `phrase`, each one to three blanks apart, as in "you must". */
function followedBy(text: string, words: Words, k: number, phrase: readonly number[]): boolean {
  return phrase.every(
    (expected, p) =>
      k + p + 1 < words.count &&
      words.id[k + p + 1] === expected &&
      isBlankGap(text, words.end[k + p]!, words.start[k + p + 1]!, 3),
  );
}

/** "ignore … previous … instructions" within one sentence and the gaps above. */
function overridesInstructions(words: Words, verb: number): boolean {
  for (let j = verb + 1; j < words.count && inReach(words, verb, j, OVERRIDE_GAP); j++) {
    if ((ROLES[words.id[j]!]! & OVERRIDE_TARGET) !== 0 && within(words, j, OBJECT_GAP, OVERRIDE_OBJECT)) return true;
  }
  return false;
}

/** True when a word with the `role` follows the `k`-th within `gap` characters in the same sentence. */
function within(words: Words, k: number, gap: number, role: number): boolean {
  for (let j = k + 1; j < words.count && inReach(words, k, j, gap); j++)
    if ((ROLES[words.id[j]!]! & role) !== 0) return true;
  return false;
}

function inReach(words: Words, from: number, to: number, gap: number): boolean {
  return words.breaks[to] === words.breaks[from] && words.start[to]! - words.end[from]! <= gap;
}

/** After "use the": one space, a name of word characters, dots and dashes, one space, and the word `tool`. */
function namesATool(text: string, theEnd: number): boolean {
  let end = theEnd + 1;
  if (text.charCodeAt(theEnd) !== 0x20 || !isNameChar(text.charCodeAt(end))) return false;
  while (end < text.length && isNameChar(text.charCodeAt(end))) end++;
  return (
    end + 5 <= text.length &&
    text.slice(end, end + 5).toLowerCase() === ' tool' &&
    !isWordChar(text.charCodeAt(end + 5))
  );
}

/** A tag starts just before: `<` (or `<|`, as in `<|im_start|>`), an optional `/`, optional whitespace. */
function isTagName(text: string, start: number): boolean {
  let i = start - 1;
  while (i >= 0 && isSpace(text.charCodeAt(i))) i--;
  if (text[i] === '/') i--;
  if (text[i] === '|') i--;
  return text[i] === '<';
}

/** A role label: optional whitespace, then `:`. */
function isFollowedByColon(text: string, end: number): boolean {
  let i = end;
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return text[i] === ':';
}

function isBlankGap(text: string, from: number, to: number, most: number): boolean {
  if (to - from < 1 || to - from > most) return false;
  for (let i = from; i < to; i++) if (text[i] !== ' ' && text[i] !== '\t') return false;
  return true;
}

function isWordChar(code: number): boolean {
  return (
    (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code === 0x5f
  );
}

function isNameChar(code: number): boolean {
  return isWordChar(code) || code === 0x2e || code === 0x2d;
}

/** What `\s` matches. */
function isSpace(code: number): boolean {
  return (
    code === 0x20 ||
    (code >= 0x09 && code <= 0x0d) ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/** Where a line starts after (as `^` sees it in multiline mode). */
function isLineBreak(code: number): boolean {
  return code === 0x0a || code === 0x0d || code === 0x2028 || code === 0x2029;
}
