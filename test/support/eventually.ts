/** Polls `probe` until it returns a value other than `undefined`, or fails after `timeoutMs` with `what`. */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 20_000,
  intervalMs = 200,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown = null;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out waiting for ${what}${lastError === null ? '' : `: ${lastError instanceof Error ? lastError.message : JSON.stringify(lastError)}`}`,
      );
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
