// The tools the whole-stack security corpus calls. Each puts one fake secret of the corpus (chosen by index in its
// arguments) in the places a real tool puts text: data values, nested data, object keys, name/value pairs, a
// secret-named field, untrusted text, evidence quote and locator, the upstream cursor; thrown text (a plain Error's
// message, a ToolError's details); reconcile() reasons. Next to every secret sits its canary, a harmless marker that
// must be shown, so a check that finds no secret provably looked at the text that carried it.
import { z } from 'zod';
import { ToolError, type AnyToolImplementation, type ReconcileOutcome } from '../../../src/index.js';
import { BENIGN_LOOKALIKES, FAKE_SECRETS, type FakeSecret } from '../../../testkit/security/secret-corpus.js';
import { defineTool } from '../../../testkit/define-tool.js';

/** One fake secret of the corpus, with its index and canary. */
export interface PlacedSecret extends FakeSecret {
  readonly index: number;
  readonly canary: string;
}

export const PLACED: readonly PlacedSecret[] = FAKE_SECRETS.map((secret, index) => ({
  ...secret,
  index,
  canary: `canary-${String(index).padStart(3, '0')}`,
}));

export const SECRET_TOOLS = {
  fetch: 'secrets.fetch',
  throws: 'secrets.throw',
  settle: 'secrets.settle',
  submit: 'secrets.submit',
  benign: 'secrets.benign',
} as const;

/** Reasons one reconciliation gives (one per query, each with the next secret) before it says "not committed". */
export const REASONS_PER_RECONCILIATION = 20;

/** Reconciliations needed to give every secret as a reason. */
export const SETTLE_BATCHES = Math.ceil(PLACED.length / REASONS_PER_RECONCILIATION);

/** Shortest secret searched for as itself in a long text (a shorter one, a PIN, can occur by chance in ids and times). */
const SEARCHABLE = 12;

/**
 * What must not occur in a text that shows many results at once (a history, a CLI output, a preview): the secret, or
 * for a secret too short to search alone, the line that carries it (`pin=8841` stays hidden as `pin=[REDACTED]`).
 */
export function forbiddenTexts(secret: PlacedSecret): string[] {
  const value = secret.secret.length >= SEARCHABLE ? secret.secret : secret.carrier;
  return [value, JSON.stringify(value).slice(1, -1)];
}

const byIndex = z.looseObject({
  i: z
    .number()
    .int()
    .nonnegative()
    .max(PLACED.length - 1),
});
const anyData = z.record(z.string(), z.unknown());
const source = { label: 'corpus', type: 'http_api' } as const;

const placedAt = (i: number): PlacedSecret => PLACED[i]!;

/** Returns its secret in every place a result can carry text. Its arguments may carry more (the summary check). */
const fetchTool = defineTool({
  name: SECRET_TOOLS.fetch,
  description: 'Returns one corpus secret in every place a result can carry text.',
  input: byIndex,
  output: anyData,
  effect: 'read',
  source,
  handler: (args) => {
    const s = placedAt(args.i);
    const line = `${s.canary} ${s.carrier}`;
    return Promise.resolve({
      data: {
        note: line,
        orders: [{ id: 'ord_1', lines: [{ sku: 'book', memo: line }] }],
        keys: { [s.standalone ? s.secret : s.carrier]: 1, kept: s.canary },
        headers: [
          { name: s.fieldName, value: s.secret },
          { name: 'x-canary', value: s.canary },
        ],
        [s.fieldName]: s.secret,
      },
      untrusted: [{ text: `Customer wrote: ${line}`, source: 'ticket:4411' }],
      evidence: [{ kind: 'page', locator: `kb/${s.canary}/${s.carrier}`, supports: ['/note'], quote: line }],
      next: { type: 'cursor', value: `${s.canary}:${s.carrier}` },
    });
  },
});

/** Throws its secret: in a plain Error's message, or in a ToolError's details (a catalog code the model may see). */
const throwTool = defineTool({
  name: SECRET_TOOLS.throws,
  description: 'Fails with one corpus secret in the exception.',
  input: z.strictObject({ i: byIndex.shape.i, kind: z.enum(['error', 'tool_error']) }),
  output: anyData,
  effect: 'read',
  source,
  handler: (args) => {
    const s = placedAt(args.i);
    if (args.kind === 'error') return Promise.reject(new Error(`upstream failed for ${s.canary}: ${s.carrier}`));
    return Promise.reject(
      new ToolError('NOT_FOUND', { canary: s.canary, upstream: s.carrier, [s.fieldName]: s.secret }),
    );
  },
});

/**
 * A write that never learns its outcome (it throws after sending), so a reconciliation asks `reconcile` about it:
 * query n of batch b answers "unknown" with secret b × 20 + n − 1 in its reason, until the batch is done.
 */
const settleTool = defineTool({
  name: SECRET_TOOLS.settle,
  description: 'A write whose outcome only its reconcile can tell.',
  input: z.strictObject({
    batch: z
      .number()
      .int()
      .nonnegative()
      .max(SETTLE_BATCHES - 1),
  }),
  output: anyData,
  effect: 'write',
  source,
  businessKey: ['batch'],
  handler: () => Promise.reject(new Error('connection reset after the request was sent')),
  reconcile: (key, ctx) => {
    const batch = Number(key.slice(key.lastIndexOf(':') + 1));
    // The query number: the audit attempt of reconcile query n is 200 + n.
    const query = ctx.attempt - 200;
    const i = batch * REASONS_PER_RECONCILIATION + query - 1;
    if (query > REASONS_PER_RECONCILIATION || i >= PLACED.length)
      return Promise.resolve({ state: 'not_committed' } satisfies ReconcileOutcome<never>);
    const s = placedAt(i);
    return Promise.resolve({
      state: 'unknown',
      reason: `${s.canary} provider said: ${s.carrier}`,
    } satisfies ReconcileOutcome<never>);
  },
});

/**
 * Needs approval; its arguments carry every secret, so the approval preview must hide them all. They are ~290 KB,
 * over the default argument bound, so the tool declares a larger one.
 */
const submitTool = defineTool({
  name: SECRET_TOOLS.submit,
  description: 'Submits a form that needs approval.',
  input: z.looseObject({}),
  output: anyData,
  effect: 'write',
  requiresApproval: true,
  maxArgumentBytes: 1024 * 1024,
  source,
  handler: () => Promise.reject(new Error('an approval test never runs the handler')),
});

/** Returns every benign look-alike, as data and as untrusted text: all must come back unchanged. */
const benignTool = defineTool({
  name: SECRET_TOOLS.benign,
  description: 'Returns text that looks like secrets but is not.',
  input: z.strictObject({}),
  output: z.strictObject({ items: z.array(z.string()) }),
  effect: 'read',
  source,
  handler: () =>
    Promise.resolve({
      data: { items: BENIGN_LOOKALIKES.map((lookalike) => lookalike.text) },
      untrusted: BENIGN_LOOKALIKES.map((lookalike) => ({ text: lookalike.text, source: `corpus:${lookalike.kind}` })),
    }),
});

/** The corpus tools, registered on the stack's worker. */
export function secretTools(): AnyToolImplementation[] {
  return [fetchTool, throwTool, settleTool, submitTool, benignTool];
}

/** Arguments that carry a secret (the activity summary must not): a short canary first, so the summary shows it. */
export function secretArguments(s: PlacedSecret): Record<string, unknown> {
  return { i: s.index, c: s.canary, note: s.carrier, [s.fieldName]: s.secret };
}

/** Arguments of the approval call: every secret as text, as a name/value pair and as a secret-named field. */
export function approvalArguments(): Record<string, unknown> {
  return {
    notes: PLACED.map((s) => `${s.canary} ${s.carrier}`),
    pairs: PLACED.map((s) => ({ name: s.fieldName, value: s.secret })),
    fields: PLACED.map((s) => ({ [s.fieldName]: s.secret, canary: s.canary })),
    long: `${'lorem ipsum '.repeat(20_000)}`,
  };
}
