import { optionalString, parseCommandArgs, requiredString } from '../command-args.js';
import { EXIT_CODES } from '../cli-error.js';
import type { OperatorCommandSpec } from '../command.js';
import type { RegressReport } from '../regress.js';
import { regressText } from '../regress-text.js';

/** What `regress` replays, against which tools, and how it prints. */
export interface RegressInput {
  readonly casesFile: string;
  readonly toolsModule: string;
  readonly baselineModule?: string;
  readonly json: boolean;
}

/** `regress`: replays a golden set under the current rule versions and reports what changed. */
export const regressCommand: OperatorCommandSpec<RegressInput, RegressReport> = {
  name: 'regress',
  usage: {
    synopsis: 'regress <cases.jsonl> --tools <module> [--baseline <module>]',
    description: [
      'replays golden cases (arguments, recorded handler output, expected status/code/data)',
      "under the module's tools; reports the cases whose outcome changed against --baseline's",
      'tools (else the outcomes recorded in the cases) and those missing their expectation',
      '(exit 1). A table; --json: the report',
    ],
  },
  parse: (args) => {
    const { values, positionals, json } = parseCommandArgs(
      args,
      { tools: { type: 'string' }, baseline: { type: 'string' } },
      { min: 1, max: 1 },
    );
    const baselineModule = optionalString(values, 'baseline');
    return {
      casesFile: positionals[0] ?? '',
      toolsModule: requiredString(values, 'tools'),
      ...(baselineModule === undefined ? {} : { baselineModule }),
      json,
    };
  },
  run: async (input) => (await import('../regress.js')).regress({ ...input, cwd: process.cwd() }),
  present: (report, input) => (input.json ? report : regressText(report)),
  exitCode: (report) => (report.notMet > 0 ? EXIT_CODES.failure : EXIT_CODES.ok),
};
