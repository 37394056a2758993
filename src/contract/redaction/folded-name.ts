import { FOREIGN_SECRET_WORDS } from './catalog.js';
import { isWordUnitOutsideAscii } from './char-class.js';

/**
 * Field names from outside are written in every script and width: `ｐａｓｓｗｏｒｄ` (full-width), `contraseña`,
 * `пароль`, `密码`. The name rules read ASCII words, so a name is judged in a folded form: NFKC-normalized (full-width
 * and other compatibility forms become their plain letters) and with the catalog's foreign secret words replaced by
 * their English word, set apart by `_` so it stands as a word of its own. Names are judged often (every key of a
 * result, every `name:` in text), so both steps read a name once, by UTF-16 unit, and allocate only when they change
 * it.
 */

/** Lower- and upper-case forms by UTF-16 unit (a unit whose form is longer than one unit keeps its own), filled as met. */
const LOWER = new Uint16Array(0x10000);
const UPPER = new Uint16Array(0x10000);
const KNOWN_CASE = new Uint8Array(0x10000);

function lowerUnit(code: number): number {
  if (code < 0x80) return code >= 0x41 && code <= 0x5a ? code + 0x20 : code;
  caseOf(code);
  return LOWER[code]!;
}

function upperUnit(code: number): number {
  if (code < 0x80) return code >= 0x61 && code <= 0x7a ? code - 0x20 : code;
  caseOf(code);
  return UPPER[code]!;
}

function caseOf(code: number): void {
  if (KNOWN_CASE[code] === 1) return;
  const char = String.fromCharCode(code);
  const lower = char.toLowerCase();
  const upper = char.toUpperCase();
  LOWER[code] = lower.length === 1 ? lower.charCodeAt(0) : code;
  UPPER[code] = upper.length === 1 ? upper.charCodeAt(0) : code;
  KNOWN_CASE[code] = 1;
}

/** A trie of the foreign secret words, by lower-case UTF-16 unit. */
interface ForeignNode {
  readonly next: Map<number, ForeignNode>;
  /** The English word, at the end of a foreign word. */
  english?: string;
  /** The word is of a script written without spaces (Chinese, Japanese, Korean): it counts anywhere inside a word. */
  unspaced?: boolean;
}

const FOREIGN: ForeignNode = { next: new Map() };
for (const [word, english] of Object.entries(FOREIGN_SECRET_WORDS)) {
  let node = FOREIGN;
  for (let i = 0; i < word.length; i++) {
    const unit = lowerUnit(word.charCodeAt(i));
    let child = node.next.get(unit);
    if (child === undefined) node.next.set(unit, (child = { next: new Map() }));
    node = child;
  }
  node.english = english;
  node.unspaced = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u.test(word);
}

/**
 * The NFKC form of `text`. A text whose every unit is stable under NFKC — alone, and in any neighbourhood — is its own,
 * and is returned without normalizing (ASCII, and most letters of most scripts): see {@link isStableUnit}.
 */
export function nfkc(text: string): string {
  for (let i = 0; i < text.length; i++) if (!isStableUnit(text.charCodeAt(i))) return text.normalize('NFKC');
  return text;
}

/**
 * The form a field name is judged in (see the module comment). A word ends at a character that is not a letter or
 * digit, or where a capital follows a lower-case letter (`мойПароль` is `мой` and `Пароль`); an ASCII name is returned
 * as it is.
 */
export function foldedFieldName(name: string): string {
  if (isAscii(name)) return name;
  const normalized = nfkc(name);
  let out: string | undefined;
  let copied = 0;
  let start = -1;
  for (let i = 0; i <= normalized.length; i++) {
    const code = i < normalized.length ? normalized.charCodeAt(i) : -1;
    const inWord = code >= 0x80 ? isWordUnitOutsideAscii(code) : code >= 0 && isAsciiAlnum(code);
    if (inWord && start >= 0 && !capitalAfterLower(normalized, i)) continue;
    if (start >= 0) {
      const translated = translatedWord(normalized, start, i);
      if (translated !== undefined) {
        out = `${out ?? ''}${normalized.slice(copied, start)}${translated}`;
        copied = i;
      }
    }
    start = inWord ? i : -1;
  }
  return out === undefined ? normalized : out + normalized.slice(copied);
}

/**
 * The word `text[start, end)` with its foreign secret words in English (`_password_`), or `undefined` when it has none:
 * a whole word of a spaced script, or a word of an unspaced script anywhere inside it.
 */
function translatedWord(text: string, start: number, end: number): string | undefined {
  let out: string | undefined;
  let copied = start;
  for (let at = start; at < end; at++) {
    const found = foreignWordAt(text, at, end);
    if (found === undefined || (!found.node.unspaced && (at !== start || found.end !== end))) continue;
    out = `${out ?? ''}${text.slice(copied, at)}_${found.node.english!}_`;
    copied = found.end;
    at = found.end - 1;
  }
  return out === undefined ? undefined : out + text.slice(copied, end);
}

/** The longest foreign secret word starting at `at` and ending by `end`. */
function foreignWordAt(
  text: string,
  at: number,
  end: number,
): { readonly node: ForeignNode; readonly end: number } | undefined {
  let found: { node: ForeignNode; end: number } | undefined;
  let node: ForeignNode | undefined = FOREIGN;
  for (let i = at; i < end && node !== undefined; i++) {
    node = node.next.get(lowerUnit(text.charCodeAt(i)));
    if (node?.english !== undefined) found = { node, end: i + 1 };
  }
  return found;
}

/** A capital after a lower-case letter (scripts without case never start a word this way). */
function capitalAfterLower(text: string, i: number): boolean {
  const code = text.charCodeAt(i);
  const previous = text.charCodeAt(i - 1);
  return lowerUnit(code) !== code && upperUnit(previous) !== previous;
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) >= 0x80) return false;
  return true;
}

function isAsciiAlnum(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}

/** Per UTF-16 unit: 0 not judged yet, 1 stable, 2 may change under NFKC. Filled as units are met. */
const STABILITY = new Uint8Array(0x10000);
const COMBINING = /\p{M}/u;

/**
 * Whether a unit is left as it is by NFKC whatever surrounds it: it normalizes to itself alone, is no combining mark
 * (which composes with what precedes it), no Hangul jamo (which compose with each other) and no surrogate (whose pair
 * may be a compatibility character, such as the mathematical letters). A conservative test: a text it calls stable
 * is its own NFKC form; one it does not is simply normalized.
 */
function isStableUnit(code: number): boolean {
  if (code < 0x80) return true;
  let known = STABILITY[code]!;
  if (known === 0) {
    const char = String.fromCharCode(code);
    const jamo =
      (code >= 0x1100 && code <= 0x11ff) || (code >= 0xa960 && code <= 0xa97f) || (code >= 0xd7b0 && code <= 0xd7ff);
    const surrogate = code >= 0xd800 && code <= 0xdfff;
    known = !jamo && !surrogate && !COMBINING.test(char) && char.normalize('NFKC') === char ? 1 : 2;
    STABILITY[code] = known;
  }
  return known === 1;
}
