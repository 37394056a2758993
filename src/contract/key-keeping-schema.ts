import type { z } from 'zod';

type Schema = z.core.$ZodType;

/**
 * Checks a container may carry and still be proven: they only bound its length or describe it (a custom check, or an
 * overwrite, sees the parsed value and could change it).
 */
const LENGTH_OR_NOTE_CHECKS = new Set(['min_length', 'max_length', 'length_equals', 'describe', 'meta']);

/** Schemas whose output is never an object: whatever they accept, no key of their input can go missing under them. */
const SCALAR_TYPES = new Set([
  'string',
  'number',
  'boolean',
  'bigint',
  'null',
  'undefined',
  'void',
  'nan',
  'literal',
  'enum',
  'template_literal',
  'never',
]);

const verdicts = new WeakMap<Schema, boolean>();

/**
 * True when every successful parse with `schema` provably keeps each key of its input, at every depth: then the
 * exact-keys check (`findUndeclaredKeys`) could find nothing after a successful parse, and need not walk the value.
 * Proven for strict objects (an unknown key is an issue, never dropped) and loose ones, and for arrays, tuples,
 * optional, nullable and readonly wrappers, unions and string-keyed records built only from such schemas and from
 * scalars. Anything else — a stripping object, a transform, a default, a catch, a lazy or recursive schema, a custom
 * check on a container — is not proven, and the check walks the value as before. Decided once per schema.
 */
export function keepsEveryKey(schema: Schema): boolean {
  let verdict = verdicts.get(schema);
  if (verdict === undefined) {
    verdict = provenKeyKeeping(schema, new Set());
    verdicts.set(schema, verdict);
  }
  return verdict;
}

function provenKeyKeeping(schema: Schema, visiting: Set<Schema>): boolean {
  // A schema met again inside itself (a getter in a shape) is recursive: not proven, rather than reasoned about.
  if (visiting.has(schema)) return false;
  visiting.add(schema);
  const def = schema._zod.def;
  const proven = (child: Schema) => provenKeyKeeping(child, visiting);
  const checksKeepKeys = (def.checks ?? []).every((check) => LENGTH_OR_NOTE_CHECKS.has(check._zod.def.check));
  let verdict: boolean;
  switch (def.type) {
    case 'object': {
      const { shape, catchall } = def as z.core.$ZodObjectDef;
      // No catchall: the object strips unknown keys. A `never` catchall (strict) refuses them; any other keeps them.
      verdict = checksKeepKeys && catchall !== undefined && proven(catchall) && Object.values(shape).every(proven);
      break;
    }
    case 'array':
      verdict = checksKeepKeys && proven((def as z.core.$ZodArrayDef).element);
      break;
    case 'tuple': {
      const { items, rest } = def as z.core.$ZodTupleDef;
      verdict = checksKeepKeys && items.every(proven) && (rest === null || proven(rest));
      break;
    }
    case 'record': {
      const { keyType, valueType } = def as z.core.$ZodRecordDef;
      verdict = checksKeepKeys && keepsKeyText(keyType) && proven(valueType);
      break;
    }
    case 'union':
      verdict = checksKeepKeys && (def as z.core.$ZodUnionDef).options.every(proven);
      break;
    case 'optional':
    case 'nullable':
    case 'readonly':
      verdict =
        checksKeepKeys &&
        proven((def as z.core.$ZodOptionalDef | z.core.$ZodNullableDef | z.core.$ZodReadonlyDef).innerType);
      break;
    case 'any':
    case 'unknown':
      // The input itself is the output.
      verdict = checksKeepKeys;
      break;
    default:
      verdict = SCALAR_TYPES.has(def.type);
  }
  visiting.delete(schema);
  return verdict;
}

/** A record key schema that gives back the key's own text: a string (no overwrite), an enum or a literal. */
function keepsKeyText(keyType: Schema): boolean {
  const { type, checks = [] } = keyType._zod.def;
  if (type === 'enum' || type === 'literal') return checks.length === 0;
  return type === 'string' && checks.every((check) => check._zod.def.check !== 'overwrite');
}
