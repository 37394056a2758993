/** Activity type of a tool's bare activity (its handler alone, as a plain activity). Sandbox-safe. */
export function bareActivityName(tool: string): string {
  return `bare:${tool}`;
}
