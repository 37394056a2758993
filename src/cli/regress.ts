import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { AnyToolImplementation } from '../contract/tool-spec.js';
import { goldenCaseSchema, type GoldenCase } from '../contract/golden-case.js';
import { runGoldenSet, type GoldenSetReport } from '../contract/golden-set.js';
import type { ToolRegistry } from '../contract/tool-registry.js';
import { CliError, EXIT_CODES } from './cli-error.js';
import { loadToolModule } from './tool-module.js';

/** What `regress` runs: a cases file, the tools as they are now, and optionally the tools as they were. */
export interface RegressOptions {
  readonly casesFile: string;
  readonly toolsModule: string;
  readonly baselineModule?: string;
  readonly cwd: string;
}

/** What `regress` found: one golden-set report per tool, and how many cases changed or missed their expectation. */
export interface RegressReport {
  readonly casesFile: string;
  /** What each case was compared with: the baseline module's tools, or the outcomes recorded in the cases. */
  readonly baseline: 'module' | 'recorded';
  readonly tools: readonly GoldenSetReport[];
  readonly changed: number;
  readonly notMet: number;
}

/**
 * Replays a golden set (`cases.jsonl`, one case per line) against the tools of `toolsModule` and reports, per tool,
 * the cases whose outcome changed against the baseline (`baselineModule`'s tools, else each case's recorded
 * outcome) and the cases that miss their expectation. A malformed line, a duplicate id or a tool the module does
 * not export is a usage error naming the line.
 */
export async function regress(options: RegressOptions): Promise<RegressReport> {
  const cases = await readCases(resolve(options.cwd, options.casesFile));
  const current = (await loadToolModule(options.toolsModule, options.cwd)).tools;
  const baseline =
    options.baselineModule === undefined
      ? undefined
      : (await loadToolModule(options.baselineModule, options.cwd)).tools;
  const byTool = new Map<string, GoldenCase[]>();
  for (const { goldenCase } of cases) byTool.set(goldenCase.tool, [...(byTool.get(goldenCase.tool) ?? []), goldenCase]);
  const tools: GoldenSetReport[] = [];
  for (const [name, toolCases] of byTool) {
    const tool = toolNamed(current, name, options.toolsModule, cases);
    const before = baseline === undefined ? undefined : toolNamed(baseline, name, options.baselineModule ?? '', cases);
    tools.push(await runGoldenSet(tool, toolCases, before === undefined ? {} : { baseline: before }));
  }
  return {
    casesFile: options.casesFile,
    baseline: baseline === undefined ? 'recorded' : 'module',
    tools,
    changed: tools.reduce((sum, report) => sum + report.changed.length, 0),
    notMet: tools.reduce((sum, report) => sum + report.notMet.length, 0),
  };
}

interface NumberedCase {
  readonly line: number;
  readonly goldenCase: GoldenCase;
}

async function readCases(file: string): Promise<NumberedCase[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new CliError(
      `cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`,
      EXIT_CODES.usage,
      { cause: error },
    );
  }
  const cases: NumberedCase[] = [];
  const ids = new Map<string, number>();
  for (const [index, raw] of text.split('\n').entries()) {
    const line = index + 1;
    if (raw.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      throw new CliError(`${file}:${line}: not a JSON line`, EXIT_CODES.usage);
    }
    const parsed = goldenCaseSchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new CliError(
        `${file}:${line}: not a golden case (${issue === undefined ? 'invalid' : `${issue.path.join('.') || 'case'}: ${issue.message}`})`,
        EXIT_CODES.usage,
      );
    }
    const seen = ids.get(parsed.data.id);
    if (seen !== undefined)
      throw new CliError(
        `${file}:${line}: case id '${parsed.data.id}' is already used on line ${seen}`,
        EXIT_CODES.usage,
      );
    ids.set(parsed.data.id, line);
    cases.push({ line, goldenCase: parsed.data });
  }
  if (cases.length === 0) throw new CliError(`${file}: no cases`, EXIT_CODES.usage);
  return cases;
}

function toolNamed(
  registry: ToolRegistry,
  name: string,
  module: string,
  cases: readonly NumberedCase[],
): AnyToolImplementation {
  if (registry.has(name)) return registry.get(name);
  const line = cases.find((entry) => entry.goldenCase.tool === name)?.line ?? 0;
  throw new CliError(`line ${line}: tool '${name}' is not exported by ${module}`, EXIT_CODES.usage);
}
