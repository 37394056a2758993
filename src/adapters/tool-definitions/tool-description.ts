import { canonicalJson } from '../../contract/canonical-json.js';
import type { AnyToolDeclaration } from '../../contract/tool-spec.js';
import { costLine, returnsLine } from './tool-returns-cost.js';

/**
 * A tool's description as every provider export shows it: the author's text, what a call returns and what it costs
 * (seed 003), then the normalization rules its arguments go through, then its example calls. Not every dialect can
 * carry examples as a schema keyword (OpenAI strict mode and Gemini cannot), so they live in the text for all of them:
 * one rendering, nothing dropped silently. Deterministic (examples in canonical JSON), so a tool's exported definition
 * never changes by itself.
 */
export function toolDescription(tool: AnyToolDeclaration): string {
  const parts = [tool.description.trim(), `${returnsLine(tool)}\n${costLine(tool)}`];
  if (tool.normalizations.length > 0) {
    const rules = tool.normalizations.map((rule) => `- ${rule.trim()}`);
    parts.push(
      ["Arguments are normalized before use (the result's applied_arguments shows what ran):", ...rules].join('\n'),
    );
  }
  if (tool.examples.length > 0) {
    const examples = tool.examples.map(
      (example) =>
        `- ${example.description === undefined ? '' : `${example.description.trim()}: `}${canonicalJson(example.arguments)}`,
    );
    parts.push(['Example arguments:', ...examples].join('\n'));
  }
  return parts.join('\n\n');
}
