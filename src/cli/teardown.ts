/** How long one shutdown step may take before the CLI goes on without it (a worker drains within 20 s). */
const STEP_DEADLINE_MS = 30_000;

/**
 * What a long-running command must release on the way out, undone in reverse order of acquisition. Each step is
 * bounded and its failure reported, so one hung or failing step never keeps the others (or the process) alive.
 */
export class Teardown {
  private readonly steps: { readonly what: string; readonly run: () => Promise<void> }[] = [];

  private readonly report: (line: string) => void;

  constructor(report: (line: string) => void) {
    this.report = report;
  }

  add(what: string, run: () => Promise<void>): void {
    this.steps.push({ what, run });
  }

  async run(): Promise<void> {
    for (const step of this.steps.splice(0).reverse()) {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), STEP_DEADLINE_MS);
      });
      try {
        const outcome = await Promise.race([step.run().then(() => 'done' as const), deadline]);
        if (outcome === 'timeout') this.report(`gave up waiting for: ${step.what}`);
      } catch (error) {
        this.report(`${step.what} failed: ${error instanceof Error ? error.message : String(error)}`);
      } finally {
        clearTimeout(timer);
      }
    }
  }
}

/** Resolves when `signal` aborts (at once if it already has). */
export function stopRequested(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}
