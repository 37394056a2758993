/**
 * The validation layers of the funnel, in order (seed 004). The audit's layer log has one verdict for each.
 * `authorization` asks the tool's `authorize` before the handler runs; `precondition` reads again what a write rests
 * on, right before it runs (seed 000); `scope` checks that the data returned belongs to the caller's tenant (and
 * subject) before any later layer can say something about it.
 */
export const VALIDATION_LAYERS = [
  'input',
  'authorization',
  'precondition',
  'protocol',
  'scope',
  'schema',
  'semantics',
  'evidence',
  'side_effect',
  'redaction',
  'budget',
] as const;
export type ValidationLayer = (typeof VALIDATION_LAYERS)[number];

/**
 * Where a call's error was decided, as the model sees it (`error.layer`; seed 003's "at which stage"): a validation
 * layer, `approval` (a person's decision, or the lack of one) or `execution` (the tool or its upstream reported the
 * error while the call ran). Derived from {@link VALIDATION_LAYERS}, so a new layer is a new error layer too.
 */
export const ERROR_LAYERS = [...VALIDATION_LAYERS, 'approval', 'execution'] as const;
export type ErrorLayer = (typeof ERROR_LAYERS)[number];
