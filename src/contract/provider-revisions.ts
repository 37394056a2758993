/**
 * The provider bindings a host accepts (seed 001: "拒绝未登记的 provider/API/adapter revision"). A call binding
 * commits to the API family and adapter revision of the provider call a result answers; a value nobody registered —
 * from a forged workflow input, an adapter that is not deployed, a revision since retired — must neither run a tool
 * nor verify an audit. The package's own bindings are in `src/wire/call-providers.ts`; a host adds the adapters it
 * uses (`ToolContractPlugin({ acceptedProviders })`).
 */
export interface ProviderRevision {
  /** The provider API family (`openai.responses`, `ttc.model-turn`, `tools/call`). */
  readonly apiFamily: string;
  /** The adapter revision that rendered the provider call (`ttc-agent-loop@1`). */
  readonly adapterRevision: string;
}

/** The rule version of the check, recorded on the input layer when it refuses. */
export const PROVIDER_REVISION_RULE = 'provider-revision@1';

/** True when the binding's API family and adapter revision are on the list. */
export function isAcceptedProvider(
  provider: { readonly apiFamily: string; readonly adapterRevision: string },
  accepted: readonly ProviderRevision[],
): boolean {
  return accepted.some(
    (entry) => entry.apiFamily === provider.apiFamily && entry.adapterRevision === provider.adapterRevision,
  );
}
