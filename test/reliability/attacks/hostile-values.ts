// Arbitrary hostile handler behaviours for the fuzz tests: any JSON, weird objects, throwing getters and proxies,
// huge strings, deep nesting, cycles, non-JSON values — returned as the output, inside the output envelope, or thrown.
import fc from 'fast-check';
import { ToolError } from '../../../src/index.js';
import { BEARER, PASSWORD, SECRET } from '../../support/hostile-corpus.js';
import { goodOrderOutput, sampleOrder } from '../../support/tools.js';

/**
 * Markers that must never reach a model or Temporal history. Free text may carry only secret-shaped ones (an
 * `sk-live-…` key, a bearer token): the redactor scrubs those by pattern. The password travels only under a
 * credential key or in thrown text, where the contract knows it is one.
 */
export const FUZZ_MARKERS = [SECRET, BEARER, PASSWORD] as const;

/** What a handler does with a generated value. */
export type Behaviour =
  | { readonly kind: 'return'; readonly value: unknown }
  | { readonly kind: 'reject'; readonly value: unknown }
  | { readonly kind: 'throw'; readonly value: unknown };

const secretText = fc.constantFrom(SECRET, BEARER, `token ${SECRET}`, `${BEARER} and more`);

function deep(depth: number, leaf: unknown): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? { nested: value } : [value];
  return value;
}

function cyclic(): unknown {
  const node: Record<string, unknown> = { ...sampleOrder };
  node['self'] = node;
  return node;
}

/**
 * An object whose every access by name explodes, with the secret in the explosion. Symbol keys are answered, so
 * fast-check itself can hold the value (it probes for its clone symbol).
 */
function explodingProxy(): unknown {
  const boom = (_target: object, key?: string | symbol): undefined => {
    if (typeof key === 'symbol') return undefined;
    throw new Error(`proxy trap ${SECRET}`);
  };
  return new Proxy(
    {},
    {
      get: boom,
      getOwnPropertyDescriptor: boom,
      has: (target, key) => boom(target, key) ?? false,
      ownKeys: () => boom({}, 'ownKeys') ?? [],
    },
  );
}

function throwingGetter(key: string): unknown {
  return Object.defineProperty({ ...sampleOrder }, key, {
    enumerable: true,
    get: () => {
      throw new Error(`getter ${BEARER}`);
    },
  });
}

/** Leaves: any JSON, any JS value fast-check can make, secrets, and the weird objects above. */
const leaf: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  {
    weight: 3,
    arbitrary: fc.anything({
      maxDepth: 3,
      withBigInt: true,
      withDate: true,
      withMap: true,
      withSet: true,
      withTypedArray: true,
      withNullPrototype: true,
      withBoxedValues: true,
      withSparseArray: true,
      withObjectString: true,
    }),
  },
  { weight: 2, arbitrary: secretText },
  {
    weight: 1,
    arbitrary: fc.record({ token: secretText, password: fc.constant(PASSWORD), authorization: fc.constant(BEARER) }),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      Number.NaN,
      Number.POSITIVE_INFINITY,
      -0,
      10n ** 30n,
      Symbol('s'),
      () => SECRET,
      new Date(Number.NaN),
      new Error(SECRET),
    ),
  },
  { weight: 1, arbitrary: fc.integer({ min: 100_000, max: 400_000 }).map((n) => `${'x'.repeat(n)} ${SECRET}`) },
  { weight: 1, arbitrary: fc.integer({ min: 40, max: 2_000 }).map((n) => deep(n, SECRET)) },
  { weight: 1, arbitrary: fc.constantFrom('id', 'status', 'total_cents', 'lines').map(throwingGetter) },
  { weight: 1, arbitrary: fc.constant(null).map(cyclic) },
  { weight: 1, arbitrary: fc.constant(null).map(explodingProxy) },
);

/** Outputs: a bare leaf, or a well-formed envelope with one part replaced by a leaf. */
const output: fc.Arbitrary<unknown> = fc.oneof(
  leaf,
  leaf.map((value) => ({ ...goodOrderOutput(new Date().toISOString()), data: value })),
  fc
    .tuple(fc.constantFrom('id', 'status', 'total_cents', 'lines', 'extra'), leaf)
    .map(([key, value]) => ({ ...goodOrderOutput(new Date().toISOString()), data: { ...sampleOrder, [key]: value } })),
  fc
    .tuple(
      fc.constantFrom(
        'evidence',
        'untrusted',
        'conflicts',
        'observedAt',
        'receipt',
        'next',
        'sourceLabel',
        'warnings',
        'status',
      ),
      leaf,
    )
    .map(([key, value]) => ({ ...goodOrderOutput(new Date().toISOString()), [key]: value })),
);

/** Thrown values: leaves, and ToolErrors (declared, catalogued or made-up codes) whose details are leaves. */
const thrown: fc.Arbitrary<unknown> = fc.oneof(
  leaf,
  fc
    .tuple(
      fc.constantFrom(
        'NOT_FOUND',
        'RATE_LIMITED',
        'ORDER_ARCHIVED',
        'GIVE_ME_ADMIN',
        'OUTCOME_UNKNOWN',
        'PROTOCOL_ERROR',
      ),
      leaf,
    )
    .map(([code, details]) => new ToolError(code, { details, note: `password=${PASSWORD}` })),
);

/** Any behaviour of a hostile handler. */
export const behaviour: fc.Arbitrary<Behaviour> = fc.oneof(
  { weight: 3, arbitrary: output.map((value) => ({ kind: 'return' as const, value })) },
  { weight: 1, arbitrary: thrown.map((value) => ({ kind: 'reject' as const, value })) },
  { weight: 1, arbitrary: thrown.map((value) => ({ kind: 'throw' as const, value })) },
);

/** Plays a behaviour as a handler would. */
export function play(b: Behaviour): Promise<never> {
  if (b.kind === 'throw') throw b.value;
  // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- hostile handlers reject with anything.
  return b.kind === 'reject' ? Promise.reject(b.value) : Promise.resolve(b.value as never);
}
