import { z } from 'zod';

/** Options of {@link shellFreeString}. */
export interface ShellFreeStringOptions {
  /** Longest accepted string (default 256). */
  readonly maxLength?: number;
}

/** Letters, marks, digits and punctuation no shell gives a meaning (inside a word). */
const SHELL_FREE = /^[\p{L}\p{M}\p{N}._,:@%+=/-]+$/u;

/**
 * A string that stays one plain word wherever it ends up, even in a shell command line: letters, digits and
 * `. _ , : @ % + = / -` only. Refused: whitespace, quotes, `$`, backticks, `;`, `&`, `|`, `<`, `>`, parentheses,
 * braces, brackets, globs (`* ? [`), `~`, `!`, `#`, backslashes and control characters, and a leading `-` or `=`
 * (read as an option, or by zsh as a command path). Prefer passing arguments without a shell (`execFile`) anyway;
 * this is for values that cannot avoid one, and for defence in depth.
 */
export function shellFreeString(options: ShellFreeStringOptions = {}) {
  return z
    .string()
    .min(1)
    .max(options.maxLength ?? 256)
    .superRefine((text, ctx) => {
      const problem = !SHELL_FREE.test(text)
        ? 'shell metacharacter'
        : /^[-=]/.test(text)
          ? 'leading option character'
          : null;
      if (problem !== null)
        ctx.addIssue({
          code: 'custom',
          message: `not shell-free: ${problem}`,
          params: { rule: 'shell_free', problem },
        });
    });
}
