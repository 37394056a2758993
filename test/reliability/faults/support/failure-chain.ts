/** One line per link of an error's `cause` chain (class, failure type, message), for a workflow failure's story. */
export function failureChain(error: unknown): string {
  const links: string[] = [];
  for (
    let current: unknown = error, depth = 0;
    current instanceof Error && depth < 10;
    current = current.cause, depth++
  ) {
    const type = (current as { type?: unknown }).type;
    links.push(`${current.name}${typeof type === 'string' ? ` [${type}]` : ''}: ${current.message}`);
  }
  return links.join(' <- ');
}
