import type { TrailScope } from '../store/index.js';
import { optionalIsoTime, optionalString, type CommandArgs, type OptionSpec } from './command-args.js';

/** The options that choose the part of the audit `verify` and `export` look at. */
export const SCOPE_OPTIONS: OptionSpec = {
  since: { type: 'string' },
  until: { type: 'string' },
  workflow: { type: 'string' },
};

/** `--since`/`--until` (ISO times with an offset) and `--workflow`, as a trail scope. */
export function scopeOfArgs(values: CommandArgs['values']): TrailScope {
  const since = optionalIsoTime(values, 'since');
  const until = optionalIsoTime(values, 'until');
  const workflowId = optionalString(values, 'workflow');
  return {
    ...(since === undefined ? {} : { since }),
    ...(until === undefined ? {} : { until }),
    ...(workflowId === undefined ? {} : { workflowId }),
  };
}
