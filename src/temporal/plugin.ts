import { SimplePlugin } from '@temporalio/plugin';
import type { BundleOptions } from '@temporalio/worker';
import { parsePrincipalKey, type PrincipalKey } from '../contract/principal-ref.js';
import { parseSecretKey } from '../contract/keyed-digest.js';
import type { ToolRegistry } from '../contract/tool-registry.js';
import type { DecisionAuthenticator } from '../decisions/authenticator.js';
import { isUnauthenticatedDecisions, type UnauthenticatedDecisions } from '../decisions/development.js';
import type { ModelClient } from '../model/model-turn.js';
import type { WorkerStore } from '../store/tool-store.js';
import { createPackageActivities } from '../../activities/package-activities.js';
import type { ToolRuntime } from '../../activities/runtime.js';
import type { DecisionVerification } from '../../activities/check-decision.js';
import type { ToolCallTelemetry } from '../../activities/call-telemetry.js';
import { createToolActivities, toolActivityTypes } from '../../activities/tool-activity.js';
import { RESERVED_ACTIVITY_PREFIX } from '../wire/names.js';
import { toolActivityInterceptors } from '../../activities/tool-activity-interceptor.js';
import type { ProviderRevision } from '../contract/provider-revisions.js';
import { PACKAGE_CALL_PROVIDERS } from '../wire/call-providers.js';

/** Options of {@link ToolContractPlugin}. */
export interface ToolContractPluginOptions {
  readonly tools: ToolRegistry;
  /** The worker's store: `PgToolStore` in production (see `WorkerStore` for what a store of your own implements). */
  readonly store: WorkerStore;
  /** Tools whose write may be dispatched once more (same key) after the authoritative system said "not committed". */
  readonly safeRetryTools?: readonly string[];
  /**
   * Model clients the agent loop may use by name (`{ kind: 'named', name }` in its input), built on the worker from
   * its own configuration so no API key ever travels in workflow input. The scripted model needs no entry.
   */
  readonly models?: Readonly<Record<string, ModelClient>>;
  /**
   * A secret of at least 32 bytes that keys every audit's `principal_ref` (HMAC-SHA256), so the reference cannot be
   * inverted by guessing subjects. It stays on the worker: never in history, the audit or a model result. Without
   * it the reference is a plain SHA-256 of tenant and subject, which short or guessable ids do not protect.
   */
  readonly principalKey?: PrincipalKey | undefined;
  /**
   * A secret of at least 32 bytes that seals the continuation cursors of tools with a `cursor` continuation
   * (HMAC-SHA256 over principal, tool, arguments and expiry), so a model can neither forge a cursor nor use another
   * caller's. Required when such a tool is registered. It stays on the worker; every worker of a task queue needs
   * the same key, and changing it invalidates the cursors given out so far (nothing else).
   */
  readonly cursorKey?: string | Uint8Array | undefined;
  /**
   * Authenticates approvals and resolutions (e.g. `signedDecisions({ keys })`): every decision must carry a valid
   * token for the exact call, and unsigned decisions are refused. `unauthenticatedForDevelopment()` takes decisions
   * as sent, recorded `unauthenticated` — for development only. Without it no decision counts (each is refused
   * `no_verifier`), and a worker with a tool that requires approval refuses to start.
   */
  readonly decisions?: DecisionAuthenticator | UnauthenticatedDecisions;
  /** Refuse an approval whose approver is the call's own principal (compared by subject). */
  readonly forbidSelfApproval?: boolean;
  /**
   * Modules that declare tools workflow code calls by declaration (absolute paths, as `workflowsPath` takes): loaded
   * once per workflow thread when the worker bundles its workflows, and shared by every workflow run, instead of being
   * evaluated again — schemas and all — by each run (Temporal's `bundlerOptions.preloadModules`). Such a module holds
   * declarations only: what it builds is frozen and shared, so it must keep no per-run state, and workflow code must
   * not parse with its schemas (the tool activity validates every call).
   */
  readonly declarationModules?: readonly string[];
  /**
   * Reports each tool call and reconciliation step as a span (e.g. `openTelemetryTracing()` from
   * `temporal-tool-contract/otel`). Metrics need none: they go through the Temporal runtime's meter.
   */
  readonly telemetry?: ToolCallTelemetry;
  /**
   * Provider bindings, besides the package's own (workflow code, the agent loop), that a call may be bound to — one per
   * adapter the host deploys: `{ apiFamily, adapterRevision }`. A call bound to any other is not run (`TOOL_ERROR`):
   * seed 001's "refuse an unregistered provider, API or adapter revision". Retire a revision by removing it.
   */
  readonly acceptedProviders?: readonly ProviderRevision[];
}

/**
 * The worker plugin: one activity per tool (activity type = tool name), the tool activity interceptor that runs
 * the contract funnel and writes the ledger/audit/evidence/artifacts, and the package's activities (describe tools,
 * request approvals, verify decisions, settle, reconcile, state patches). Workflows are not injected — a TypeScript plugin cannot add to the user's
 * bundle — so the user's workflows module re-exports them: `export * from 'temporal-tool-contract/workflows'`.
 */
export class ToolContractPlugin extends SimplePlugin {
  private readonly declarationModules: readonly string[];

  constructor(options: ToolContractPluginOptions) {
    const tools = options.tools.list();
    const reserved = tools.flatMap(toolActivityTypes).filter((name) => name.startsWith(RESERVED_ACTIVITY_PREFIX));
    if (reserved.length > 0)
      throw new Error(`tool names may not start with '${RESERVED_ACTIVITY_PREFIX}': ${reserved.join(', ')}`);
    const unknownSafeRetry = (options.safeRetryTools ?? []).filter((name) => !options.tools.has(name));
    if (unknownSafeRetry.length > 0)
      throw new Error(`safeRetryTools names unregistered tools: ${unknownSafeRetry.join(', ')}`);
    const approvalTools = tools.filter((tool) => tool.requiresApproval);
    if (approvalTools.length > 0 && options.decisions === undefined) {
      throw new Error(
        `tools that require approval need decisions: signedDecisions({ keys }) (or unauthenticatedForDevelopment() in development): ${approvalTools.map((t) => t.name).join(', ')}`,
      );
    }
    const cursorTools = tools.filter((tool) => tool.continuation?.kind === 'cursor');
    if (cursorTools.length > 0 && options.cursorKey === undefined)
      throw new Error(
        `a cursorKey is required by the cursor continuations of: ${cursorTools.map((t) => t.name).join(', ')}`,
      );
    const runtime: ToolRuntime = {
      registry: options.tools,
      store: options.store,
      // A safe-retry tool is safe to retry under its earlier names too.
      safeRetryTools: new Set(
        tools.filter((tool) => options.safeRetryTools?.includes(tool.name) === true).flatMap(toolActivityTypes),
      ),
      ...(options.principalKey === undefined ? {} : { principalKey: parsePrincipalKey(options.principalKey) }),
      ...(options.cursorKey === undefined ? {} : { cursorKey: parseSecretKey(options.cursorKey, 'cursorKey') }),
      decisions: {
        verification: verificationOf(options.decisions),
        forbidSelfApproval: options.forbidSelfApproval ?? false,
      },
      ...(options.telemetry === undefined ? {} : { telemetry: options.telemetry }),
      acceptedProviders: Object.freeze([...PACKAGE_CALL_PROVIDERS, ...(options.acceptedProviders ?? [])]),
    };
    super({
      // Temporal's plugin naming convention, `organization.PluginName`; the package name is the organization.
      name: 'temporal-tool-contract.ToolContractPlugin',
      activities: { ...createToolActivities(tools), ...createPackageActivities(runtime, options.models ?? {}) },
      workerInterceptors: { activity: [toolActivityInterceptors(runtime)] },
    });
    this.declarationModules = [...(options.declarationModules ?? [])];
  }

  override configureBundler(options: BundleOptions): BundleOptions {
    const configured = super.configureBundler(options);
    if (this.declarationModules.length === 0) return configured;
    return {
      ...configured,
      preloadModules: [...new Set([...(configured.preloadModules ?? []), ...this.declarationModules])],
    };
  }
}

function verificationOf(decisions: ToolContractPluginOptions['decisions']): DecisionVerification {
  if (decisions === undefined) return { kind: 'none' };
  return isUnauthenticatedDecisions(decisions)
    ? { kind: 'unauthenticated' }
    : { kind: 'signed', authenticator: decisions };
}
