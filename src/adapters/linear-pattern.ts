import type { Options } from 'ajv';
import { RE2JS } from 're2js';

/** Ajv's hook for compiling `pattern` and `patternProperties` regular expressions. */
export type RegExpEngine = NonNullable<NonNullable<Options['code']>['regExp']>;

/** A remote schema `pattern` that cannot be checked in linear time (or is not a valid ECMA-262 pattern). */
export class UnsafePatternError extends Error {
  override readonly name = 'UnsafePatternError';
}

const MAX_SHOWN = 80;

/**
 * A regular-expression engine for Ajv that matches in time linear in the input, whatever the pattern: remote MCP
 * servers write their own `pattern`s, and with a backtracking engine `^(a+)+$` against 28 a's and a `!` takes
 * seconds (doubling with each character). Patterns run on RE2JS, a pure-JavaScript port of RE2 (no native code,
 * no WebAssembly). A pattern that needs backtracking — a backreference or a lookahead — is refused with an
 * {@link UnsafePatternError} when the schema is compiled, so the tool is reported as unusable instead of stalling a
 * worker later. Patterns are compiled once per engine.
 *
 * Known differences from ECMA-262 (all at the edges of Unicode whitespace): RE2's `.` also matches `\r`, U+2028 and
 * U+2029, and its `\s` is ASCII whitespace only.
 */
export function linearRegExpEngine(): RegExpEngine {
  const compiled = new Map<string, { test: (input: string) => boolean }>();
  const engine = (pattern: string) => {
    let matcher = compiled.get(pattern);
    if (matcher === undefined) {
      matcher = compileLinearPattern(pattern);
      compiled.set(pattern, matcher);
    }
    return matcher;
  };
  return Object.assign(engine, { code: 'linearRegExp' });
}

/** Compiles one ECMA-262 `pattern` (as JSON Schema uses it: unanchored, Unicode) for linear-time matching. */
export function compileLinearPattern(pattern: string): { test: (input: string) => boolean; toString: () => string } {
  const shown = JSON.stringify(pattern.length > MAX_SHOWN ? `${pattern.slice(0, MAX_SHOWN)}…` : pattern);
  try {
    // Only checks the syntax (as Ajv itself would); a native RegExp is never run on data here.
    new RegExp(pattern, 'u');
  } catch {
    throw new UnsafePatternError(`pattern ${shown} is not a valid regular expression`);
  }
  // RE2JS's translation would read a named backreference as plain text, so it is refused before translating.
  if (pattern.includes('\\k<')) throw new UnsafePatternError(`pattern ${shown} uses a backreference, which cannot be matched in linear time`);
  let re2: RE2JS;
  try {
    re2 = RE2JS.compile(RE2JS.translateRegExp(pattern), RE2JS.LOOKBEHINDS);
  } catch (error) {
    const why = error instanceof Error ? error.message.slice(0, MAX_SHOWN) : 'unsupported syntax';
    throw new UnsafePatternError(`pattern ${shown} cannot be matched in linear time (no backreferences or lookaheads; repeats up to 1000): ${why}`);
  }
  return { test: (input) => re2.test(input), toString: () => `linear:${pattern}` };
}
