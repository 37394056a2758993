/**
 * The `schema_version` of a model result (SPEC §2), stored in history and read by clients. Defined apart from the
 * result's zod schema so that workflow code can check it without building that schema: a workflow's sandbox
 * evaluates every module it imports once per workflow run.
 */
export const MODEL_RESULT_SCHEMA_VERSION = 'tool-result.model.v1';
