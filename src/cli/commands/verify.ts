import type { TrailScope } from '../../store/index.js';
import { trailReportText } from '../audit-report-text.js';
import { scopeOfArgs, SCOPE_OPTIONS } from '../audit-scope-args.js';
import type { VerifyOutput } from '../audit-verify.js';
import { EXIT_CODES } from '../cli-error.js';
import { optionalString, parseCommandArgs, usageError } from '../command-args.js';
import type { OperatorCommandSpec } from '../command.js';

/** What `verify` checks, against what, and how strictly. */
export interface VerifyInput extends TrailScope {
  /** An export to check offline (no database, no Temporal). */
  readonly file?: string;
  /** Anchors published outside the database (`seal --publish`, or an earlier export). */
  readonly anchors?: string;
  /** Ed25519 public keys every anchor must be signed with. */
  readonly verifyKeys?: string;
  /** Compare each run's rows with the audit references in its Temporal history (the default for the database). */
  readonly history: boolean;
  /** Fail (exit 1) on unsealed rows and on rows or runs history cannot confirm, too. */
  readonly strict: boolean;
  readonly json: boolean;
}

/** `verify`: recomputes the audit trail and reports what is missing, altered or unanchored. */
export const verifyCommand: OperatorCommandSpec<VerifyInput, VerifyOutput> = {
  name: 'verify',
  usage: {
    synopsis:
      'verify [--since <ISO time>] [--until <ISO time>] [--workflow <id>] [--file <export>] [--anchors <file>] [--verify-keys <file>] [--no-history] [--strict]',
    description: [
      "recomputes every row's digests and call binding, each sealed segment's leaves and root, the chain of anchors",
      '(their signatures with --verify-keys; the anchors published in --anchors), and compares each run with the audit',
      'references in its Temporal history (--no-history: not); names each row missing, altered or unanchored. --file:',
      'an export, offline. Exit 1 on any finding (--strict: also on unsealed rows and what history cannot confirm)',
    ],
  },
  parse: (args) => {
    const { values, json } = parseCommandArgs(args, {
      ...SCOPE_OPTIONS,
      file: { type: 'string' },
      anchors: { type: 'string' },
      'verify-keys': { type: 'string' },
      'no-history': { type: 'boolean' },
      strict: { type: 'boolean' },
    });
    const scope = scopeOfArgs(values);
    const file = optionalString(values, 'file');
    const anchors = optionalString(values, 'anchors');
    const verifyKeys = optionalString(values, 'verify-keys');
    if (file !== undefined && (Object.keys(scope).length > 0 || values['no-history'] === true)) {
      throw usageError(
        '--file verifies an export as it is: --since, --until, --workflow and --no-history apply to the database',
      );
    }
    return {
      ...scope,
      ...(file === undefined ? {} : { file }),
      ...(anchors === undefined ? {} : { anchors }),
      ...(verifyKeys === undefined ? {} : { verifyKeys }),
      history: file === undefined && values['no-history'] !== true,
      strict: values['strict'] === true,
      json,
    };
  },
  run: async (input, deps) => (await import('../audit-verify.js')).verifyAudit(input, deps),
  present: (output, input) => (input.json ? output : trailReportText(output)),
  exitCode: (output) => (output.passed ? EXIT_CODES.ok : EXIT_CODES.failure),
};
