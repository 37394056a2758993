import type { ToolOutput } from '../tool-handler.js';
import type { FunnelState } from './funnel-state.js';
import type { Redaction } from '../redaction.js';
import { contractFailure } from './contract-failure.js';
import { readDownstream } from './downstream-refs.js';
import { isPresentationInput } from '../presentation.js';
import { readHandlerWarnings } from './handler-warnings.js';
import { handlerOutput } from './handler-steps.js';
import { failLayer, proceed, type StepResult } from './step.js';

/** Every key a handler's envelope may have. */
const ENVELOPE_KEYS = new Set([
  'data',
  'observedAt',
  'resourceRevision',
  'sourceLabel',
  'evidence',
  'untrusted',
  'conflicts',
  'next',
  'availableItems',
  'appliedArguments',
  'receipt',
  'rawResponse',
  'downstream',
  'warnings',
  'presentation',
]);

const RULE = 'envelope@1';

/** Protocol layer, part one: the handler returned an object with `data` and only the declared keys, its warnings well-formed. */
export function checkEnvelope(state: FunnelState): StepResult {
  const output = handlerOutput(state);
  if (output === null || typeof output !== 'object' || Array.isArray(output)) {
    return failLayer(
      state,
      'protocol',
      RULE,
      contractFailure('protocol', 'handler did not return an object'),
      'not an object',
    );
  }
  const unknownKeys = Object.keys(output).filter((key) => !ENVELOPE_KEYS.has(key));
  if (unknownKeys.length > 0 || !('data' in output)) {
    const why = unknownKeys.length > 0 ? `undeclared envelope keys: ${unknownKeys.join(', ')}` : 'missing data';
    return failLayer(state, 'protocol', RULE, contractFailure('protocol', why), why);
  }
  const envelope = output as ToolOutput<unknown>;
  if (envelope.presentation !== undefined && !isPresentationInput(envelope.presentation)) {
    const why = 'presentation must be { modelContent: non-empty text, userVisible: boolean }';
    return failLayer(state, 'protocol', RULE, contractFailure('protocol', why), why);
  }
  const log: Redaction[] = [];
  const noted = readHandlerWarnings(state, envelope.warnings, log);
  if (!noted.ok) return failLayer(state, 'protocol', RULE, contractFailure('protocol', noted.reason), noted.reason);
  const downstream = readDownstream(envelope.downstream, state.downstream);
  return proceed(state, {
    envelope,
    downstream,
    warnings: [...state.warnings, ...noted.warnings],
    redactions: [...state.redactions, ...log],
  });
}
