import type { ZodType } from 'zod';
import { canonicalJson } from './canonical-json.js';
import { guardedParse } from './guarded-parse.js';
import { inspectJson } from './json-shape.js';

/**
 * What a tool tells the model besides its schema (seed 003: a description that says what the tool is for, real
 * call examples, and the normalization rules its arguments go through). Every provider export renders it into the
 * tool's description, so no dialect drops it.
 */

/** One example call: arguments the input schema accepts, and optionally what the example shows. */
export interface ToolExample<Args = unknown> {
  readonly arguments: Args;
  readonly description?: string;
}

/** Limits that keep a description readable; a definition over them is refused. */
export const GUIDANCE_LIMITS = Object.freeze({
  examples: 8,
  exampleChars: 1000,
  normalizations: 16,
  normalizationChars: 300,
});

/** Guidance as a definition holds it. */
export interface ToolGuidance {
  readonly description: string;
  readonly examples?: readonly ToolExample[];
  readonly normalizations?: readonly string[];
  /** What a call returns, in words (default: derived from the output schema). */
  readonly returns?: string;
  /** What a call costs or risks — time, money, irreversibility (default: derived from its effect and limits). */
  readonly cost?: string;
}

/**
 * Words that say neither what a tool does nor to what (seed 003: "像 process、handle 这类宽泛的名称会让模型难以判断它适合什么任务").
 * A name made only of these is refused; a name should be a verb and its object (`search_web`, `orders.get`).
 */
const VAGUE_NAME_WORDS = new Set([
  'process',
  'handle',
  'handler',
  'do',
  'run',
  'execute',
  'exec',
  'perform',
  'manage',
  'tool',
  'tools',
  'action',
  'act',
  'helper',
  'util',
  'utils',
  'misc',
  'general',
  'stuff',
  'thing',
  'things',
  'data',
  'main',
  'func',
  'function',
  'call',
  'invoke',
  'task',
]);

/** The words of a tool name: split at dots, underscores, hyphens and lower-to-upper case changes, lower-cased. */
export function toolNameWords(name: string): string[] {
  return name
    .split(/[._-]|(?<=[a-z0-9])(?=[A-Z])/)
    .map((word) => word.toLowerCase())
    .filter((word) => word !== '');
}

/**
 * Why this guidance cannot be given to a model, one reason per problem (empty when it can). A description must say
 * something beyond the tool's name; a length threshold would refuse short precise ones ("Refund part or all of an
 * order.") and pass long vague ones, so only emptiness and a restated name are refused. Every example must pass
 * the input schema: a wrong example teaches wrong calls.
 */
export function guidanceProblems(name: string, input: ZodType, guidance: ToolGuidance): string[] {
  const problems: string[] = [];
  if (toolNameWords(name).every((word) => VAGUE_NAME_WORDS.has(word))) {
    problems.push(
      `name '${name}' says neither what the tool does nor to what: name it by a verb and its object (search_web, orders.get)`,
    );
  }
  const description: unknown = guidance.description;
  if (typeof description !== 'string' || description.trim() === '')
    problems.push('description must say what the tool does (it is empty)');
  else if (letters(description) === letters(name)) problems.push('description only restates the tool name');
  const examples = guidance.examples ?? [];
  if (examples.length > GUIDANCE_LIMITS.examples) problems.push(`at most ${GUIDANCE_LIMITS.examples} examples`);
  examples.forEach((example, i) => {
    if (
      !inspectJson(example.arguments, 64).ok ||
      canonicalJson(example.arguments).length > GUIDANCE_LIMITS.exampleChars
    ) {
      problems.push(
        `examples[${i}].arguments must be plain JSON of at most ${GUIDANCE_LIMITS.exampleChars} characters`,
      );
    } else if (!guardedParse(input, example.arguments).success) {
      problems.push(`examples[${i}].arguments do not pass the input schema`);
    }
    const label: unknown = example.description;
    if (label !== undefined && (typeof label !== 'string' || label.length > GUIDANCE_LIMITS.normalizationChars)) {
      problems.push(
        `examples[${i}].description must be a text of at most ${GUIDANCE_LIMITS.normalizationChars} characters`,
      );
    }
  });
  const normalizations = guidance.normalizations ?? [];
  if (normalizations.length > GUIDANCE_LIMITS.normalizations)
    problems.push(`at most ${GUIDANCE_LIMITS.normalizations} normalizations`);
  normalizations.forEach((rule, i) => {
    if (typeof rule !== 'string' || rule.trim() === '' || rule.length > GUIDANCE_LIMITS.normalizationChars) {
      problems.push(
        `normalizations[${i}] must be a non-empty text of at most ${GUIDANCE_LIMITS.normalizationChars} characters`,
      );
    }
  });
  for (const key of ['returns', 'cost'] as const) {
    const text: unknown = guidance[key];
    if (
      text !== undefined &&
      (typeof text !== 'string' || text.trim() === '' || text.length > GUIDANCE_LIMITS.normalizationChars)
    ) {
      problems.push(`${key} must be a non-empty text of at most ${GUIDANCE_LIMITS.normalizationChars} characters`);
    }
  }
  return problems;
}

function letters(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
}
