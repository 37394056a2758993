import type { Options } from 'ajv';
import { RE2JS } from 're2js';

/** Ajv's hook for compiling `pattern` and `patternProperties` regular expressions. */
export type RegExpEngine = NonNullable<NonNullable<Options['code']>['regExp']>;

/** A remote schema `pattern` that cannot be checked in linear time (or is not a valid ECMA-262 pattern). */
export class UnsafePatternError extends Error {
  override readonly name = 'UnsafePatternError';
}

/**
 * Bounds on remote patterns. Matching is linear in the input, but its factor is the compiled program: the NFA keeps
 * up to one thread per instruction, so `[\s\S]{1000}` ten times (130 characters, 10,003 instructions) took 9 s on
 * 50 KB. Instructions are RE2's program size (a repeat `{n}` expands to n copies of its operand).
 */
export const PATTERN_LIMITS = Object.freeze({
  /** Longest pattern compiled at all: compiling costs about 0.5 µs per instruction, up to 1,000 per character. */
  maxPatternChars: 1_024,
  /** Largest program one pattern may compile to: two of RE2's largest repeats (`{1000}`) of one character class. */
  maxInstructions: 2_000,
  /** Largest sum of the distinct patterns' programs in one schema (compiling is work too). */
  maxSchemaInstructions: 20_000,
  /**
   * Work one check of one value may do: the sum, over every pattern it applies, of program size × (characters + 1).
   * 2^24 units is about 0.2 s on the worst pattern the other bounds allow, and leaves room for ordinary schemas: a
   * 1 MB string under a 10-instruction pattern, or 10,000 ids of 37 characters under a 40-instruction one.
   */
  maxWorkPerCheck: 2 ** 24,
});

/**
 * The pattern work of one check, shared by every pattern of a schema: a check starts it, each match spends from it,
 * and a match that would exceed it does not run.
 */
export interface PatternWork {
  /** Charges `units`; `false` (nothing charged) when they do not fit in what is left. */
  spend(units: number): boolean;
}

const MAX_SHOWN = 80;

/**
 * A regular-expression engine for Ajv that matches in time linear in the input, whatever the pattern: remote MCP
 * servers write their own `pattern`s, and with a backtracking engine `^(a+)+$` against 28 a's and a `!` takes
 * seconds (doubling with each character). Patterns run on RE2JS, a pure-JavaScript port of RE2 (no native code,
 * no WebAssembly). A pattern that needs backtracking — a backreference or a lookahead — or whose program exceeds
 * {@link PATTERN_LIMITS} is refused with an {@link UnsafePatternError} when the schema is compiled, so the tool is
 * reported as unusable instead of stalling a worker later. Each match is charged to `work` before it runs; one that
 * does not fit does not run and reads as no match (the caller fails the check). Patterns are compiled once per
 * engine.
 *
 * Known differences from ECMA-262 (all at the edges of Unicode whitespace): RE2's `.` also matches `\r`, U+2028 and
 * U+2029, and its `\s` is ASCII whitespace only.
 */
export function linearRegExpEngine(work: PatternWork): RegExpEngine {
  // Ajv keys compiled patterns by `toString()`, so every matcher names its pattern.
  const compiled = new Map<string, { test: (input: string) => boolean; toString: () => string }>();
  let instructions = 0;
  const engine = (pattern: string) => {
    let matcher = compiled.get(pattern);
    if (matcher === undefined) {
      const linear = compileLinearPattern(pattern);
      instructions += linear.instructions;
      if (instructions > PATTERN_LIMITS.maxSchemaInstructions) {
        throw new UnsafePatternError(
          `the schema's patterns compile to more than ${PATTERN_LIMITS.maxSchemaInstructions} instructions`,
        );
      }
      matcher = {
        test: (input: string) => work.spend(linear.instructions * (input.length + 1)) && linear.test(input),
        toString: linear.toString,
      };
      compiled.set(pattern, matcher);
    }
    return matcher;
  };
  return Object.assign(engine, { code: 'linearRegExp' });
}

/** One compiled pattern: its linear-time test and its program size. */
export interface LinearPattern {
  readonly test: (input: string) => boolean;
  readonly instructions: number;
  readonly toString: () => string;
}

/** Compiles one ECMA-262 `pattern` (as JSON Schema uses it: unanchored, Unicode) for linear-time matching. */
export function compileLinearPattern(pattern: string): LinearPattern {
  const shown = JSON.stringify(pattern.length > MAX_SHOWN ? `${pattern.slice(0, MAX_SHOWN)}…` : pattern);
  if (pattern.length > PATTERN_LIMITS.maxPatternChars)
    throw new UnsafePatternError(`pattern ${shown} is longer than ${PATTERN_LIMITS.maxPatternChars} characters`);
  try {
    // Only checks the syntax (as Ajv itself would); a native RegExp is never run on data here.
    new RegExp(pattern, 'u');
  } catch {
    throw new UnsafePatternError(`pattern ${shown} is not a valid regular expression`);
  }
  // RE2JS's translation would read a named backreference as plain text, so it is refused before translating.
  if (pattern.includes('\\k<'))
    throw new UnsafePatternError(`pattern ${shown} uses a backreference, which cannot be matched in linear time`);
  let re2: RE2JS;
  try {
    re2 = RE2JS.compile(RE2JS.translateRegExp(pattern), RE2JS.LOOKBEHINDS);
  } catch (error) {
    const why = error instanceof Error ? error.message.slice(0, MAX_SHOWN) : 'unsupported syntax';
    throw new UnsafePatternError(
      `pattern ${shown} cannot be matched in linear time (no backreferences or lookaheads; repeats up to 1000): ${why}`,
    );
  }
  const instructions = re2.programSize();
  if (instructions > PATTERN_LIMITS.maxInstructions) {
    throw new UnsafePatternError(
      `pattern ${shown} compiles to ${instructions} instructions, over ${PATTERN_LIMITS.maxInstructions}`,
    );
  }
  return { test: (input) => re2.test(input), instructions, toString: () => `linear:${pattern}` };
}
