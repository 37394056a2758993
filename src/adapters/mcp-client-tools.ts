import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { canonicalJson } from '../contract/canonical-json.js';
import { type HandlerContext, type ToolOutput } from '../contract/tool-handler.js';
import {
  TOOL_NAME_PATTERN,
  type AnyToolImplementation,
  type ToolBudget,
  type ToolEffect,
} from '../contract/tool-spec.js';
import { declareTool } from '../contract/declare-tool.js';
import { implementTool } from '../contract/implement-tool.js';
import { defangUntrustedText } from '../contract/fence-untrusted.js';
import { resolvePointer } from '../contract/json-pointer.js';
import { sha256Hex } from '../contract/sha256.js';
import { ToolError } from '../contract/tool-error.js';
import { compileSchemaCheck, type SchemaCheck } from './json-schema-check.js';
import { mcpCallFailureCode } from './mcp-call-failure.js';
import { checkProse } from './mcp-prose-check.js';
import { omitKeywords, type JsonSchemaObject } from './tool-definitions/schema-walk.js';

/** Local policy for one remote tool. It is the only authority: the server's annotations never loosen it. */
export interface McpToolPolicy {
  readonly effect: ToolEffect;
  /** Default `false` for tools with a policy entry. */
  readonly requiresApproval?: boolean;
  /** Replaces the server's description (which is untrusted text shown to the model). */
  readonly description?: string;
  /** Local contract name; default `<namePrefix>.<remote name>`. */
  readonly name?: string;
  /** JSON Pointer into `structuredContent` to the write's id at the remote system, used as the receipt id. */
  readonly receiptPointer?: string;
}

/** Options of {@link wrapMcpTools}. */
export interface WrapMcpToolsOptions {
  /** A connected SDK client. */
  readonly client: Client;
  /** Source label of every wrapped tool's results (`provenance.source_label`), e.g. `mcp:github`. */
  readonly sourceLabel: string;
  /** Prefix of local names: `<prefix>.<remote name>`. */
  readonly namePrefix?: string;
  /** Local policy by remote tool name. */
  readonly policy?: Readonly<Record<string, McpToolPolicy>>;
  /** Policy of remote tools without an entry; default: a write that requires approval (the safest reading). */
  readonly defaults?: { readonly effect: ToolEffect; readonly requiresApproval: boolean };
  /** Reject keys a remote schema does not declare, in arguments and in results (default `true`). */
  readonly exact?: boolean;
  readonly budget?: Partial<ToolBudget>;
  /** Per-call request timeout in milliseconds (the SDK's default otherwise). */
  readonly timeoutMs?: number;
}

/** The wrapped tools, and the remote tools that could not be wrapped (with the reason). */
export interface WrappedMcpTools {
  readonly tools: AnyToolImplementation[];
  readonly skipped: { readonly name: string; readonly reason: string }[];
}

const MAX_PAGES = 100;
const MAX_DESCRIPTION = 1024;

/**
 * Turns a remote MCP server's tools into contract tools. Arguments and `structuredContent` are validated against
 * the server's own schemas (closed, see `compileSchemaCheck`); `structuredContent` becomes `data` and a JSON text
 * block that disagrees with it fails the output schema (`OUTPUT_CONTRACT_VIOLATION`), never a silent pick; prose
 * is untrusted content, checked against the structured values where it restates them (see `checkedProse`). `isError` results are `TOOL_ERROR` (an unknown outcome for writes). A write's receipt is the server's
 * successful answer (its id from `receiptPointer`, else the answer's digest).
 */
export async function wrapMcpTools(options: WrapMcpToolsOptions): Promise<WrappedMcpTools> {
  const remoteTools: Tool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const listed = await options.client.listTools(cursor === undefined ? {} : { cursor });
    remoteTools.push(...listed.tools);
    cursor = listed.nextCursor;
    if (cursor === undefined) break;
  }
  const tools: AnyToolImplementation[] = [];
  const skipped: { name: string; reason: string }[] = [];
  const names = new Set<string>();
  for (const remote of remoteTools) {
    const policy = Object.hasOwn(options.policy ?? {}, remote.name) ? options.policy?.[remote.name] : undefined;
    const name =
      policy?.name ?? (options.namePrefix === undefined ? remote.name : `${options.namePrefix}.${remote.name}`);
    if (!TOOL_NAME_PATTERN.test(name)) {
      skipped.push({ name: remote.name, reason: 'name is not a valid contract tool name' });
      continue;
    }
    if (names.has(name)) {
      skipped.push({ name: remote.name, reason: `duplicate local name '${name}'` });
      continue;
    }
    try {
      tools.push(wrapOne(remote, name, policy, options));
      names.add(name);
    } catch (error) {
      skipped.push({
        name: remote.name,
        reason: `schema not usable: ${error instanceof Error ? error.message.slice(0, 200) : 'unknown'}`,
      });
    }
  }
  return { tools, skipped };
}

function wrapOne(
  remote: Tool,
  name: string,
  policy: McpToolPolicy | undefined,
  options: WrapMcpToolsOptions,
): AnyToolImplementation {
  const exact = options.exact ?? true;
  const inputSchema = remote.inputSchema as JsonSchemaObject;
  const outputSchema = remote.outputSchema as JsonSchemaObject | undefined;
  const inputCheck = compileSchemaCheck(inputSchema, { exact });
  const outputCheck = outputSchema === undefined ? undefined : compileSchemaCheck(outputSchema, { exact });
  const effect = policy?.effect ?? escalate(options.defaults?.effect ?? 'write', remote);
  const violations = new WeakMap<object, string>();
  const description = policy?.description ?? remoteDescription(remote, options.sourceLabel);
  const declaration = declareTool({
    name,
    description,
    input: checked(inputSchema, inputCheck),
    output:
      outputSchema === undefined || outputCheck === undefined
        ? z.null()
        : checked(outputSchema, outputCheck, violations),
    effect,
    requiresApproval: policy ? (policy.requiresApproval ?? false) : (options.defaults?.requiresApproval ?? true),
    source: { label: options.sourceLabel, type: 'mcp_server' },
    revisions: {
      input: schemaRevision(inputSchema, exact),
      output: outputSchema === undefined ? 'none' : schemaRevision(outputSchema, exact),
      handler: `mcp:${remote.name}`,
    },
    ...(options.budget ? { budget: options.budget } : {}),
  });
  return implementTool(declaration, {
    handler: (args: unknown, ctx: HandlerContext) =>
      callRemote(remote.name, args, ctx, {
        effect,
        hasOutputSchema: outputSchema !== undefined,
        policy,
        options,
        violations,
      }),
  });
}

/**
 * The server's description (untrusted text, defanged), or its title; a tool with neither says so instead of being
 * shown with an empty description (which `declareTool` refuses).
 */
function remoteDescription(remote: Tool, sourceLabel: string): string {
  const given =
    remote.description?.trim() ||
    remote.title?.trim() ||
    `Tool '${remote.name}' of the MCP server ${sourceLabel}; the server gave no description.`;
  return defangUntrustedText(given.slice(0, MAX_DESCRIPTION));
}

/**
 * Server hints may only make a tool stricter; `readOnlyHint` never downgrades. A write is destructive unless the
 * server says `destructiveHint: false`: MCP's default is `true`, and a re-served wrapped tool must not announce
 * `destructiveHint: false` for a remote that never claimed it.
 */
function escalate(base: ToolEffect, remote: Tool): ToolEffect {
  return base === 'write' && remote.annotations?.destructiveHint !== false ? 'destructive' : base;
}

/**
 * A zod schema that checks a value against a remote JSON Schema and exports that schema (via metadata). Values the
 * handler marked in `violations` fail too: that is how a result whose text disagrees with its structured content
 * fails the *schema* layer, so a committed write keeps its receipt instead of turning into an unknown outcome.
 */
function checked(
  schema: JsonSchemaObject,
  check: SchemaCheck,
  violations?: WeakMap<object, string>,
): z.ZodType<unknown> {
  const exported = exportedSchema(schema);
  return z
    .unknown()
    .superRefine((value, ctx) => {
      const violation = value !== null && typeof value === 'object' ? violations?.get(value) : undefined;
      if (violation !== undefined) ctx.addIssue({ code: 'custom', path: [], message: violation });
      else for (const issue of check(value)) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
    })
    .meta(exported);
}

/**
 * The remote schema as re-exported (e.g. nested as `data` in an MCP `outputSchema`). A schema with local references
 * (`#/$defs/…`) gets its own `$id`, so they resolve inside it wherever it is embedded; `id` (a zod registry key) and
 * `$schema` (only valid at a document root) are dropped.
 */
function exportedSchema(schema: JsonSchemaObject): JsonSchemaObject {
  const exported = omitKeywords(schema, ['id', '$schema']);
  if (exported['$id'] === undefined && canonicalJson(schema).includes('"$ref":"#')) {
    exported['$id'] = `urn:temporal-tool-contract:mcp-schema:${sha256Hex(canonicalJson(schema)).slice(0, 16)}`;
  }
  return exported;
}

function schemaRevision(schema: JsonSchemaObject, exact: boolean): string {
  return `sha256:${sha256Hex(canonicalJson({ schema, exact })).slice(0, 16)}`;
}

interface CallSettings {
  readonly effect: ToolEffect;
  readonly hasOutputSchema: boolean;
  readonly policy: McpToolPolicy | undefined;
  readonly options: WrapMcpToolsOptions;
  readonly violations: WeakMap<object, string>;
}

async function callRemote(
  remoteName: string,
  args: unknown,
  ctx: HandlerContext,
  settings: CallSettings,
): Promise<ToolOutput<unknown>> {
  const { options, effect } = settings;
  // A remote side effect is fenced like any other write: the request is not sent once its claim was revoked.
  if (effect !== 'read') await ctx.beforeDispatch();
  let result: CallToolResult;
  try {
    result = await options.client.request(
      { method: 'tools/call', params: { name: remoteName, arguments: args as Record<string, unknown> } },
      CallToolResultSchema,
      {
        ...(ctx.signal ? { signal: ctx.signal } : {}),
        ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
      },
    );
  } catch (error) {
    throw new ToolError(mcpCallFailureCode(error, effect), { remote_tool: remoteName, failure: describe(error) });
  }
  const texts = result.content.flatMap((block) => (block.type === 'text' ? [block.text] : []));
  if (result.isError === true)
    throw new ToolError('TOOL_ERROR', { remote_tool: remoteName, remote_error: texts.join('\n').slice(0, 2000) });

  const structured = result.structuredContent;
  const prose: string[] = [];
  let disagreement = false;
  for (const text of texts) {
    const parsed = structuredText(text);
    if (parsed.isStructured && settings.hasOutputSchema) {
      disagreement ||= structured === undefined || canonicalJson(parsed.value) !== canonicalJson(structured);
    } else prose.push(text);
  }
  // Without an output schema nothing is a verified fact: structured output, if any, is shown as untrusted text.
  const unschematized = !settings.hasOutputSchema && structured !== undefined ? [canonicalJson(structured)] : [];
  const checked =
    settings.hasOutputSchema && structured !== undefined
      ? checkedProse(prose, structured)
      : uncheckedProse([...prose, ...unschematized]);
  let data: unknown = null;
  if (settings.hasOutputSchema) {
    data = structured ?? {};
    if (structured === undefined)
      settings.violations.set(data as object, 'outputSchema declared but no structuredContent');
    else if (disagreement) settings.violations.set(structured, 'a JSON text block disagrees with structuredContent');
  }

  const source = `${options.sourceLabel}:${remoteName}`;
  const output: ToolOutput<unknown> = {
    data,
    // No facts without an output schema: zero items (so completeness stays consistent for `data: null`).
    ...(settings.hasOutputSchema ? {} : { availableItems: 0 }),
    untrusted: checked.untrusted.map((text) => ({ text, source })),
    ...(checked.warnings.length > 0 ? { warnings: checked.warnings } : {}),
    rawResponse: { body: canonicalJson(result), contentType: 'application/json' },
    ...(effect === 'read' ? {} : receiptOf(remoteName, result, settings.policy)),
  };
  return output;
}

/** Prose blocks as the model will see them, and what it should know about them. */
interface ShownProse {
  readonly untrusted: readonly string[];
  readonly warnings: readonly { readonly code: string; readonly message: string }[];
}

const UNVERIFIED_TEXT = {
  code: 'UNVERIFIED_TEXT',
  message: 'Text from the remote server could not be checked against structured data; treat it as unverified.',
};

/**
 * Prose next to validated `structuredContent`: text whose dates and numbers restate the structured values is shown
 * (as untrusted text, like all remote text); text that contradicts them is withheld with the warning
 * `TEXT_CONTRADICTS_DATA` — seed 000: the model must not be left to guess which number is right, and the validated
 * structured value is what it gets; text with nothing to compare is shown with `UNVERIFIED_TEXT`.
 */
function checkedProse(prose: readonly string[], structured: unknown): ShownProse {
  const untrusted: string[] = [];
  const warnings: ShownProse['warnings'][number][] = [];
  let withheld = 0;
  let unverified = false;
  for (const text of prose) {
    const check = checkProse(text, structured);
    if (check.kind === 'contradicts') withheld += 1;
    else untrusted.push(text);
    unverified ||= check.kind === 'unverifiable';
  }
  if (withheld > 0)
    warnings.push({
      code: 'TEXT_CONTRADICTS_DATA',
      message: `${withheld} text block(s) from the remote server contradicted its structured data and were withheld; the data is what the server's schema validated.`,
    });
  if (unverified) warnings.push(UNVERIFIED_TEXT);
  return { untrusted, warnings };
}

/** Text with no validated structured result to check it against: shown, and marked unverified. */
function uncheckedProse(texts: readonly string[]): ShownProse {
  return { untrusted: texts, warnings: texts.length > 0 ? [UNVERIFIED_TEXT] : [] };
}

/** JSON objects and arrays in a text block are claims about the structured result; anything else is prose. */
function structuredText(text: string): { isStructured: true; value: unknown } | { isStructured: false } {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return { isStructured: false };
  try {
    return { isStructured: true, value: JSON.parse(trimmed) as unknown };
  } catch {
    return { isStructured: false };
  }
}

function receiptOf(
  remoteName: string,
  result: CallToolResult,
  policy: McpToolPolicy | undefined,
): Pick<ToolOutput<unknown>, 'receipt'> {
  if (policy?.receiptPointer !== undefined) {
    const found = resolvePointer(result.structuredContent, policy.receiptPointer);
    return found.found && typeof found.value === 'string' && found.value.length > 0
      ? { receipt: { externalId: found.value } }
      : {};
  }
  return { receipt: { externalId: `mcp:${remoteName}:${sha256Hex(canonicalJson(result)).slice(0, 32)}` } };
}

function describe(error: unknown): Record<string, unknown> {
  const code = (error as { code?: unknown } | null)?.code;
  return { type: error instanceof Error ? error.name : typeof error, ...(typeof code === 'number' ? { code } : {}) };
}
