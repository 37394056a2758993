/**
 * Signs that a text addresses an agent rather than informs a reader ("ignore previous instructions", a forged
 * `system:` line, a `<system>` tag, hidden Unicode tag characters). Used to mark untrusted content `instructional`:
 * a signal for the model and for review, not a filter.
 *
 * The text comes from outside (web pages, tickets, remote tools), so the checks are not regular expressions over it.
 * One pass finds the words of a small vocabulary (a trie walk per word, nothing allocated for other words), and each
 * rule looks at a bounded window of words or characters from a trigger word. Every character is read a bounded
 * number of times, so the cost is linear in the length of the text.
 */

/** The words the rules are made of. Words are maximal runs of `[A-Za-z0-9_]` (what `\w` matches), any case. */
const VOCABULARY = [
  'ignore', 'disregard', 'forget', 'override', 'previous', 'prior', 'above', 'earlier', 'all', 'system', 'your',
  'instruction', 'instructions', 'prompt', 'prompts', 'rule', 'rules', 'message', 'messages', 'context', 'you', 'are',
  'now', 'must', 'should', 'will', 'assistant', 'developer', 'tool', 'im_start', 'im_end', 'call', 'invoke', 'use', 'run',
  'the', 'new', 'updated', 'real', 'do', 'not', 'user', 'human', 'operator',
] as const;

type Vocable = (typeof VOCABULARY)[number];

/** A word that is not in the vocabulary (or too long to be). */
const OTHER = 0;
/** Words starting with these count as the verb of "do not tell …" (`tells`, `informing`). */
const SECRECY_VERB = VOCABULARY.length + 1;
const SECRECY_PREFIXES = ['tell', 'inform', 'mention'];

const ID = Object.fromEntries(VOCABULARY.map((word, i) => [word, i + 1])) as Record<Vocable, number>;
const ids = (words: readonly Vocable[]) => new Set(words.map((word) => ID[word]));

const OVERRIDE_VERBS = ids(['ignore', 'disregard', 'forget', 'override']);
const OVERRIDE_TARGETS = ids(['previous', 'prior', 'above', 'earlier', 'all', 'system', 'your']);
const OVERRIDE_OBJECTS = ids(['instruction', 'instructions', 'prompt', 'prompts', 'rule', 'rules', 'message', 'messages', 'context']);
const ROLE_NAMES = ids(['system', 'assistant', 'developer']);
const TAG_NAMES = ids(['system', 'assistant', 'tool', 'instruction', 'instructions', 'im_start', 'im_end']);
const TOOL_VERBS = ids(['call', 'invoke', 'use', 'run']);
const NEW_ADJECTIVES = ids(['new', 'updated', 'real']);
const NEW_OBJECTS = ids(['instruction', 'instructions']);
const SECRECY_TARGETS = ids(['user', 'human', 'operator']);
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
/** Longest vocabulary word: longer words are skipped without a lookup. */
const LONGEST = Math.max(...VOCABULARY.map((word) => word.length), ...SECRECY_PREFIXES.map((word) => word.length));

/** The vocabulary words of a text, in order, as parallel arrays (no object per word). */
interface Words {
  readonly id: number[];
  readonly start: number[];
  readonly end: number[];
  /** Sentence breaks (`.` or a newline) before the word: two words are in one sentence when equal. */
  readonly breaks: number[];
  /** Only whitespace precedes the word on its line. */
  readonly firstOnLine: boolean[];
}

/** True when `text` reads like instructions to an agent. */
export function hasInstructionSignals(text: string): boolean {
  if (hasUnicodeTags(text)) return true;
  const words = vocabularyWords(text);
  const lastGt = text.lastIndexOf('>');
  for (let k = 0; k < words.id.length; k++) {
    const id = words.id[k]!;
    if (id === ID.you && YOU_COMMANDS.some((phrase) => followedBy(text, words, k, phrase))) return true;
    if (id === ID.do && followedBy(text, words, k, [ID.not]) && followedBy(text, words, k + 1, [SECRECY_VERB]) && within(words, k + 2, SECRECY_GAP, SECRECY_TARGETS)) return true;
    if (OVERRIDE_VERBS.has(id) && overridesInstructions(words, k)) return true;
    if (ROLE_NAMES.has(id) && words.firstOnLine[k] === true && isFollowedByColon(text, words.end[k]!)) return true;
    if (TAG_NAMES.has(id) && lastGt >= words.end[k]! && isTagName(text, words.start[k]!)) return true;
    if (TOOL_VERBS.has(id) && followedBy(text, words, k, [ID.the]) && namesATool(text, words.end[k + 1]!)) return true;
    if (NEW_ADJECTIVES.has(id) && words.id[k + 1] !== undefined && NEW_OBJECTS.has(words.id[k + 1]!) && isBlankGap(text, words.end[k]!, words.start[k + 1]!, 1)) return true;
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
  const words: Words = { id: [], start: [], end: [], breaks: [], firstOnLine: [] };
  let breaks = 0;
  let blankLine = true;
  for (let i = 0; i < text.length; ) {
    const code = text.charCodeAt(i);
    if (!isWordChar(code)) {
      if (code === 0x2e || code === 0x0a) breaks++;
      if (isLineBreak(code)) blankLine = true;
      else if (!isSpace(code)) blankLine = false;
      i++;
      continue;
    }
    const start = i;
    while (i < text.length && isWordChar(text.charCodeAt(i))) i++;
    const id = i - start <= LONGEST ? wordId(text, start, i) : OTHER;
    if (id !== OTHER) {
      words.id.push(id);
      words.start.push(start);
      words.end.push(i);
      words.breaks.push(breaks);
      words.firstOnLine.push(blankLine);
    }
    blankLine = false;
  }
  return words;
}

interface TrieNode {
  id: number;
  readonly next: Map<number, TrieNode>;
}

const TRIE: TrieNode = { id: OTHER, next: new Map() };
for (const [word, id] of [...VOCABULARY.map((w) => [w, ID[w]] as const), ...SECRECY_PREFIXES.map((w) => [w, SECRECY_VERB] as const)]) {
  let node = TRIE;
  for (let i = 0; i < word.length; i++) {
    const code = word.charCodeAt(i);
    const child = node.next.get(code) ?? { id: OTHER, next: new Map<number, TrieNode>() };
    node.next.set(code, child);
    node = child;
  }
  node.id = id;
}

/** The vocabulary id of the word `text[start, end)`, case-insensitively; a secrecy prefix matches longer words. */
function wordId(text: string, start: number, end: number): number {
  let node: TrieNode | undefined = TRIE;
  for (let i = start; i < end; i++) {
    const code = text.charCodeAt(i);
    node = node.next.get(code >= 0x41 && code <= 0x5a ? code + 0x20 : code);
    if (node === undefined) return OTHER;
    if (node.id === SECRECY_VERB) return SECRECY_VERB;
  }
  return node.id;
}

/** True when the words after the `k`-th are `phrase`, each one to three blanks apart, as in "you must". */
function followedBy(text: string, words: Words, k: number, phrase: readonly number[]): boolean {
  return phrase.every((expected, p) => words.id[k + p + 1] === expected && isBlankGap(text, words.end[k + p]!, words.start[k + p + 1]!, 3));
}

/** "ignore … previous … instructions" within one sentence and the gaps above. */
function overridesInstructions(words: Words, verb: number): boolean {
  for (let j = verb + 1; j < words.id.length && inReach(words, verb, j, OVERRIDE_GAP); j++) {
    if (OVERRIDE_TARGETS.has(words.id[j]!) && within(words, j, OBJECT_GAP, OVERRIDE_OBJECTS)) return true;
  }
  return false;
}

/** True when a word of `wanted` follows the `k`-th within `gap` characters in the same sentence. */
function within(words: Words, k: number, gap: number, wanted: ReadonlySet<number>): boolean {
  for (let j = k + 1; j < words.id.length && inReach(words, k, j, gap); j++) if (wanted.has(words.id[j]!)) return true;
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
  return end + 5 <= text.length && text.slice(end, end + 5).toLowerCase() === ' tool' && !isWordChar(text.charCodeAt(end + 5));
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
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code === 0x5f;
}

function isNameChar(code: number): boolean {
  return isWordChar(code) || code === 0x2e || code === 0x2d;
}

/** What `\s` matches. */
function isSpace(code: number): boolean {
  return (
    code === 0x20 || (code >= 0x09 && code <= 0x0d) || code === 0xa0 || code === 0x1680 || (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 || code === 0x2029 || code === 0x202f || code === 0x205f || code === 0x3000 || code === 0xfeff
  );
}

/** Where a line starts after (as `^` sees it in multiline mode). */
function isLineBreak(code: number): boolean {
  return code === 0x0a || code === 0x0d || code === 0x2028 || code === 0x2029;
}
