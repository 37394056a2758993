/**
 * Task queue names an MCP server accepts: its name is written into a visibility query (`tasks/list`), so it is held
 * to characters that cannot end or escape the query's string literal, rather than escaped.
 */
const SAFE_TASK_QUEUE_NAME = /^[A-Za-z0-9._:/@-]{1,200}$/;

/** Whether `name` may be the task queue of an MCP server (see `SAFE_TASK_QUEUE_NAME`). */
export function isSafeMcpTaskQueueName(name: string): boolean {
  return SAFE_TASK_QUEUE_NAME.test(name);
}
