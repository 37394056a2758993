import {
  FOREIGN_SECRET_WORDS,
  NAME_FLAG_HEADS,
  NAME_METADATA_TAILS,
  SECRET_NAME_PAIRS,
  SECRET_NAME_SUFFIXES,
  SECRET_NAME_TAIL_ONLY,
  SECRET_NAME_WORDS,
  URL_SECRET_PARAMS,
} from './catalog.js';
import { lowerCode, normalizeFieldName, tokenEnd, tokenStart } from './field-name-tokens.js';
import { foldedFieldName } from './folded-name.js';

/** Longest name judged; longer ones are prose or data, not field names. */
export const MAX_FIELD_NAME = 64;

/** What a vocabulary word does in a name (bit flags: a word can do several things). */
const SECRET_WORD = 1;
const METADATA_TAIL = 2;
const FLAG_HEAD = 4;
const TAIL_ONLY = 8;

/** A trie over lower-case character codes: words are looked up in place, without cutting out a substring. */
interface WordNode {
  id: number;
  roles: number;
  readonly next: Map<number, WordNode>;
}

function emptyNode(): WordNode {
  return { id: 0, roles: 0, next: new Map() };
}

function insert(root: WordNode, word: string, id: number): WordNode {
  let node = root;
  for (let i = 0; i < word.length; i++) {
    const code = word.charCodeAt(i);
    const child = node.next.get(code) ?? emptyNode();
    node.next.set(code, child);
    node = child;
  }
  if (node.id === 0) node.id = id;
  return node;
}

/** The catalog's vocabulary of name words. */
const VOCABULARY = emptyNode();
const wordIds = new Map<string, number>();

function addWord(word: string, roles: number): void {
  const node = insert(VOCABULARY, word, wordIds.size + 1);
  wordIds.set(word, node.id);
  node.roles |= roles;
}

for (const word of SECRET_NAME_WORDS) addWord(word, SECRET_WORD);
for (const word of NAME_METADATA_TAILS) addWord(word, METADATA_TAIL);
for (const word of NAME_FLAG_HEADS) addWord(word, FLAG_HEAD);
for (const word of SECRET_NAME_TAIL_ONLY) addWord(word, TAIL_ONLY);
for (const pair of SECRET_NAME_PAIRS) for (const word of pair) addWord(word, 0);

/** Adjacent word ids that name a secret together, as `first * PAIR_BASE + second`. */
const PAIR_BASE = 1 << 16;
const PAIRS = new Set(
  SECRET_NAME_PAIRS.map(([first, second]) => wordIds.get(first)! * PAIR_BASE + wordIds.get(second)!),
);
const SHORTEST_SUFFIX = Math.min(...SECRET_NAME_SUFFIXES.map((suffix) => suffix.length));
const URL_PARAMS = new Set(URL_SECRET_PARAMS);

/** Slots of the verdict memory (a power of two). */
const REMEMBERED_NAMES = 1024;

/**
 * Decides which field names are secret, in any script or width (a name is judged in its folded form, see
 * `folded-name.ts`). Two kinds of rule:
 * - exact names (the package's control fields and a tool's own `sensitiveFields`), compared normalized, always win;
 * - the catalog's vocabulary, matched by word, with an allowlist of metadata tails and flag heads
 *   (`token_count`, `password_updated_at`, `has_password` are not secrets).
 * A name is judged in one pass over its characters, with nothing allocated unless it could be an exact name.
 */
export class SecretNames {
  /** The exact names, normalized, as a trie walked along a name's letters and digits across its word breaks. */
  private readonly exact = emptyNode();
  /**
   * Verdicts of recent names, direct-mapped by a hash of the name (a new name evicts the one in its slot): the same
   * names recur throughout a result (every row has the same keys), and the memory stays fixed whatever the input.
   */
  private readonly rememberedNames: (string | undefined)[] = new Array<string | undefined>(REMEMBERED_NAMES);
  private readonly rememberedVerdicts = new Uint8Array(REMEMBERED_NAMES);

  /** No ASCII name shorter than this is secret (the shortest secret word, URL parameter or exact name). */
  readonly shortest: number;
  /** No name at all shorter than this is secret (a foreign secret word may be shorter: `密码`). */
  readonly shortestAnyScript: number;

  constructor(exactNames: readonly string[]) {
    const normalized = exactNames.map(normalizeFieldName).filter((name) => name.length > 0);
    for (const name of normalized) insert(this.exact, name, 1);
    this.shortest = Math.min(
      ...[...SECRET_NAME_WORDS, ...SECRET_NAME_TAIL_ONLY, ...URL_SECRET_PARAMS, ...normalized].map(
        (name) => name.length,
      ),
    );
    this.shortestAnyScript = Math.min(this.shortest, ...Object.keys(FOREIGN_SECRET_WORDS).map((word) => word.length));
  }

  /** True when a field (or header, or assignment) of this name holds a secret. */
  isSecret(name: string): boolean {
    if (name.length > MAX_FIELD_NAME) return wordAt(this.exact, normalizeFieldName(name), 0, Infinity) !== undefined;
    const slot = slotOf(name);
    if (this.rememberedNames[slot] === name) return this.rememberedVerdicts[slot] === 1;
    const verdict = this.judge(foldedFieldName(name));
    this.rememberedNames[slot] = name;
    this.rememberedVerdicts[slot] = verdict ? 1 : 0;
    return verdict;
  }

  /** Like {@link isSecret}, for a URL query parameter, where a few more names carry credentials (`?key=`). */
  isSecretParam(name: string): boolean {
    return this.isSecret(name) || URL_PARAMS.has(name.toLowerCase());
  }

  private judge(name: string): boolean {
    let firstRoles = 0;
    let lastRoles = 0;
    let lastId = 0;
    let words = 0;
    let secretWord = false;
    let exact: WordNode | undefined = this.exact;
    for (let start = tokenStart(name, 0); start < name.length; start = tokenStart(name, start)) {
      const end = tokenEnd(name, start);
      for (let i = start; i < end && exact !== undefined; i++) exact = exact.next.get(lowerCode(name.charCodeAt(i)));
      const word = wordAt(VOCABULARY, name, start, end);
      const roles = word?.roles ?? 0;
      const id = word?.id ?? 0;
      if (words === 0) firstRoles = roles;
      const pair = lastId !== 0 && id !== 0 && PAIRS.has(lastId * PAIR_BASE + id);
      if ((roles & SECRET_WORD) !== 0 || pair || hasSecretSuffix(name, start, end)) secretWord = true;
      lastId = id;
      lastRoles = roles;
      words++;
      start = end;
    }
    if (exact !== undefined && exact.id !== 0) return true;
    if (words === 0 || (lastRoles & METADATA_TAIL) !== 0 || (firstRoles & FLAG_HEAD) !== 0) return false;
    return secretWord || (words > 1 && (lastRoles & TAIL_ONLY) !== 0);
  }
}

/** The word of `root` that `name[start, end)` is (case-insensitively), or undefined. */
function wordAt(root: WordNode, name: string, start: number, end: number): WordNode | undefined {
  let node: WordNode | undefined = root;
  for (let i = start; i < Math.min(end, name.length) && node !== undefined; i++)
    node = node.next.get(lowerCode(name.charCodeAt(i)));
  return node !== undefined && node.id !== 0 ? node : undefined;
}

/** `name[start, end)` is a single unsplit word ending in a secret word (`accesstoken`, `dbpassword`, `setcookie`). */
function hasSecretSuffix(name: string, start: number, end: number): boolean {
  if (end - start <= SHORTEST_SUFFIX) return false;
  return SECRET_NAME_SUFFIXES.some((suffix) => {
    if (end - start <= suffix.length) return false;
    for (let k = 1; k <= suffix.length; k++)
      if (lowerCode(name.charCodeAt(end - k)) !== suffix.charCodeAt(suffix.length - k)) return false;
    return true;
  });
}

/** FNV-1a of the name's UTF-16 units, folded to a slot of the verdict memory. */
function slotOf(name: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) hash = Math.imul(hash ^ name.charCodeAt(i), 0x01000193);
  return (hash >>> 0) & (REMEMBERED_NAMES - 1);
}
