import { z } from 'zod';
import { escapePointerToken } from './canonical-json.js';
import { Redactor } from './redaction.js';

/** The field policy of a tool: what redaction removes by name, and what it keeps although the name sounds secret. */
export interface FieldPolicy {
  readonly sensitiveFields?: readonly string[] | undefined;
  readonly publicFields?: readonly string[] | undefined;
}

/** Most declared properties looked at; a schema with more is judged on these (a generated schema, not a hand one). */
const MAX_PROPERTIES = 10_000;

/**
 * The properties an output schema declares that redaction would remove by name wherever they occur — the built-in
 * credential and control names, any name made of the catalog's secret words, the tool's `sensitiveFields` — as paths
 * into the schema (`/credentials`, `/items/*\/session_token`). Such a field can never reach a model: the result would
 * lose a field the tool's own schema lists (required there, the MCP client refuses the result as not matching the
 * `outputSchema` the server published). `declareTool` refuses these schemas (docs/contract.md, *Redaction and the
 * output schema*): the output schema is the tool's field allowlist (seed 001), and a field on it that no model may
 * see is a contradiction to fix where it is written — leave it out, or list in `publicFields` a name that only
 * sounds secret.
 */
export function redactedOutputFields(output: z.ZodType, policy: FieldPolicy): string[] {
  const redactor = new Redactor({
    sensitiveFields: policy.sensitiveFields ?? [],
    publicFields: policy.publicFields ?? [],
    protectedSubstrings: [],
    protectedExact: [],
  });
  const schema: unknown = z.toJSONSchema(output, { unrepresentable: 'any', io: 'output' });
  const found = new Set<string>();
  let visited = 0;
  const walk = (node: unknown, path: string, depth: number): void => {
    if (node === null || typeof node !== 'object' || depth > 64 || visited > MAX_PROPERTIES) return;
    const keywords = node as Record<string, unknown>;
    const properties = keywords['properties'];
    if (properties !== null && typeof properties === 'object') {
      for (const [name, child] of Object.entries(properties)) {
        visited += 1;
        const at = `${path}/${escapePointerToken(name)}`;
        if (redactor.isSensitiveName(name)) found.add(at);
        walk(child, at, depth + 1);
      }
    }
    for (const key of ['items', 'additionalProperties', 'not'])
      walk(keywords[key], key === 'items' ? `${path}/*` : path, depth + 1);
    for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems']) {
      const members = keywords[key];
      if (Array.isArray(members))
        for (const member of members) walk(member, key === 'prefixItems' ? `${path}/*` : path, depth + 1);
    }
    // Definitions are reached by reference; walking each once finds what any reference would.
    for (const key of ['$defs', 'definitions']) {
      const definitions = keywords[key];
      if (definitions !== null && typeof definitions === 'object')
        for (const [name, child] of Object.entries(definitions)) walk(child, `#${key}/${name}`, depth + 1);
    }
  };
  walk(schema, '', 0);
  return [...found];
}
