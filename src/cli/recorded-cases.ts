import { goldenCaseFromRecording, type GoldenCase } from '../contract/golden-case.js';
import type { ToolStore } from '../store/index.js';
import { CliError, EXIT_CODES } from './cli-error.js';

/**
 * The golden cases of a workflow's recorded calls (tools with `recordRawOutput`), one per audited attempt, oldest
 * first, each expecting what it did then: edit `expect` where that was wrong, then replay the file with `regress`.
 * A workflow (or call) without a recorded call is reported as not found.
 */
export async function recordedCases(
  store: ToolStore,
  filter: { readonly workflowId: string; readonly callId?: string },
): Promise<GoldenCase[]> {
  const cases: GoldenCase[] = [];
  for (const { audit } of await store.listAudits(filter)) {
    if (audit.recorded_output === undefined) continue;
    const artifact = await store.getArtifact(audit.recorded_output.artifact_id.slice('art_'.length));
    cases.push(goldenCaseFromRecording(audit, artifact.body));
  }
  if (cases.length === 0) {
    const what =
      filter.callId === undefined
        ? `workflow '${filter.workflowId}'`
        : `call '${filter.callId}' of workflow '${filter.workflowId}'`;
    throw new CliError(
      `no recorded call for ${what} (tools record their calls with recordRawOutput: true)`,
      EXIT_CODES.notFound,
    );
  }
  return cases;
}
