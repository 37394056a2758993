import type { RecordExecutionInput } from './ledger.js';
import { StoreError } from './store-error.js';

/**
 * Refuses to file an execution under a workflow its audit does not name. An audit recorded inside Temporal names its
 * workflow (`temporal.workflow_id`), and reading it back checks the row's workflow against that (a row moved to
 * another workflow is tampering, `digest_mismatch`); so a record whose workflow disagrees — another workflow, or one
 * the audit could only record cut (a 10 KB id, kept as 2,048 characters and a digest) — would be written, then never
 * read. Refused before anything is written (`invalid_input`, INVALID_ARGUMENTS). Both stores apply it.
 */
export function checkRecordedWorkflow(input: Pick<RecordExecutionInput, 'execution' | 'workflowId'>): void {
  const { audit } = input.execution;
  const named = audit.temporal?.workflow_id;
  if (named !== undefined && named !== input.workflowId) {
    throw new StoreError('invalid_input', {
      field: 'workflowId',
      problem: 'not_the_workflow_the_audit_names',
      auditId: audit.audit_id,
    });
  }
}
