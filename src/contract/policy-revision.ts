import type { BusinessErrorDeclaration, DataScope, FreshnessPolicy, ToolBudget, ToolSource } from './tool-spec.js';
import { declaredRecovery } from './catalog-rule.js';
import type { ReceiptVisibility } from './receipt-visibility.js';
import { digestJson } from './sha256.js';

/** The settings of a tool that decide how its results are judged and shown, besides its schemas and invariants. */
export interface PolicySettings {
  readonly source: ToolSource;
  readonly scope?: DataScope | undefined;
  readonly freshness?: FreshnessPolicy | undefined;
  readonly sensitiveFields?: readonly string[] | undefined;
  readonly publicFields?: readonly string[] | undefined;
  readonly aggregations?: Readonly<Record<string, string>> | undefined;
  /** With the defaults filled in, so declaring a default explicitly is the same policy. */
  readonly budget: ToolBudget;
  readonly businessErrors?: Readonly<Record<string, BusinessErrorDeclaration>> | undefined;
  readonly receiptVisibility?: ReceiptVisibility | undefined;
  readonly untrustedTextFields?: readonly string[] | undefined;
  readonly validForMs?: number | undefined;
  readonly allowedUrlDomains?: readonly string[] | undefined;
  readonly authoritativeSources?: Readonly<Record<string, string>> | undefined;
  readonly invariants?: readonly { readonly id: string; readonly visibleReason?: boolean | undefined }[] | undefined;
}

/**
 * The default policy revision: a digest of every policy setting (declared source labels, trust, data scope,
 * freshness, sensitive and public fields, aggregation rules, budget, declared business errors). A changed policy is
 * a changed contract — the call binding commits to it and the audit's rule versions name it — even when nobody
 * bumps a number. Lists whose order means nothing are sorted, so reordering them is not a change.
 */
export function policyRevision(settings: PolicySettings): string {
  const businessErrors = Object.fromEntries(
    Object.entries(settings.businessErrors ?? {}).map(([code, declared]) => [
      code,
      { message: declared.message, recovery: declaredRecovery(declared), status: declared.status ?? 'failed' },
    ]),
  );
  const policy = {
    // The evidence layer accepts the tool's own label and its allowlist: both decide SOURCE_NOT_ALLOWED.
    label: settings.source.label,
    allowlist: settings.source.allowlist === undefined ? null : [...settings.source.allowlist].sort(),
    trust: settings.source.trust ?? 'untrusted_data',
    scope: {
      tenantPointer: settings.scope?.tenantPointer ?? null,
      subjectPointer: settings.scope?.subjectPointer ?? null,
    },
    freshness:
      settings.freshness === undefined
        ? null
        : { maxAgeMs: settings.freshness.maxAgeMs, onStale: settings.freshness.onStale },
    sensitiveFields: [...(settings.sensitiveFields ?? [])].sort(),
    // Only when declared, so that the revision of a tool without any stays what it was before they existed.
    ...(settings.publicFields === undefined || settings.publicFields.length === 0
      ? {}
      : { publicFields: [...settings.publicFields].sort() }),
    aggregations: settings.aggregations ?? {},
    budget: settings.budget,
    businessErrors,
    // Settings added later (issue 27) enter only when declared, so an existing tool's revision stays what it was.
    ...(settings.receiptVisibility === undefined ? {} : { receiptVisibility: settings.receiptVisibility }),
    ...(settings.untrustedTextFields === undefined || settings.untrustedTextFields.length === 0
      ? {}
      : { untrustedTextFields: [...settings.untrustedTextFields].sort() }),
    ...visibleInvariantReasons(settings.invariants),
    ...(settings.validForMs === undefined ? {} : { validForMs: settings.validForMs }),
    ...(settings.allowedUrlDomains === undefined
      ? {}
      : { allowedUrlDomains: [...settings.allowedUrlDomains].map((domain) => domain.toLowerCase()).sort() }),
    ...(settings.authoritativeSources === undefined ? {} : { authoritativeSources: settings.authoritativeSources }),
  };
  return `sha256:${digestJson(policy).slice(0, 16)}`;
}

/** Which invariants show their reason to the model (a change in what the model sees), when any does. */
function visibleInvariantReasons(invariants: PolicySettings['invariants']): { visibleInvariantReasons?: string[] } {
  const ids = (invariants ?? [])
    .filter((invariant) => invariant.visibleReason === true)
    .map((invariant) => invariant.id)
    .sort();
  return ids.length === 0 ? {} : { visibleInvariantReasons: ids };
}
