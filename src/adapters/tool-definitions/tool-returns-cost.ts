import { z } from 'zod';
import type { AnyToolDeclaration } from '../../contract/tool-spec.js';

/** Fields named in a derived "Returns" line before the rest are counted. */
const MAX_NAMED_FIELDS = 12;

/**
 * What a call returns, for the description (seed 003: "返回值"): the tool's own words, else the fields of its output
 * schema — and always that the result is a `tool-result.model.v1` whose `status` and `completeness` say how to read it.
 */
export function returnsLine(tool: Pick<AnyToolDeclaration, 'returns' | 'output'>): string {
  if (tool.returns !== undefined) return `Returns: ${tool.returns.trim()}`;
  const schema = z.toJSONSchema(tool.output as z.ZodType, { unrepresentable: 'any', io: 'output' }) as {
    properties?: Record<string, unknown>;
    type?: unknown;
  };
  const fields = Object.keys(schema.properties ?? {});
  const shown =
    fields.length <= MAX_NAMED_FIELDS
      ? fields.join(', ')
      : `${fields.slice(0, MAX_NAMED_FIELDS).join(', ')} and ${fields.length - MAX_NAMED_FIELDS} more`;
  const data = fields.length > 0 ? `data with ${shown}` : schema.type === 'array' ? 'data as a list' : 'data';
  return `Returns: a tool result (${data}); status and completeness say whether it is complete, partial or failed.`;
}

/**
 * What a call costs or risks, for the description (seed 003: "执行代价"): the tool's own words, else what its contract
 * says — whether it changes anything, whether a person approves it first, how long one call may take, how many a
 * workflow may make.
 */
export function costLine(
  tool: Pick<AnyToolDeclaration, 'cost' | 'effect' | 'requiresApproval' | 'callDefaults' | 'callLimit'>,
): string {
  if (tool.cost !== undefined) return `Cost: ${tool.cost.trim()}`;
  const effect =
    tool.effect === 'read'
      ? 'read-only'
      : tool.effect === 'destructive'
        ? 'changes state and cannot be undone'
        : 'changes state';
  const parts = [
    effect,
    ...(tool.requiresApproval ? ['a person approves each call first'] : []),
    ...(tool.effect === 'read' ? [] : ['a call whose outcome is unknown is checked, never repeated']),
    ...(tool.callDefaults?.timeoutMs === undefined
      ? []
      : [`one call may take up to ${Math.ceil(tool.callDefaults.timeoutMs / 1000)} s`]),
    ...(tool.callLimit === undefined ? [] : [`at most ${tool.callLimit} calls per workflow`]),
  ];
  return `Cost: ${parts.join('; ')}.`;
}
