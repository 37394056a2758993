/** A part of a test world being started, and how to release it once started (nothing to release when omitted). */
export type StartingPart<T> = readonly [start: Promise<T>, release?: (value: T) => Promise<unknown>];

/**
 * What a test world (or a benchmark's) has started, released last-started first. Each step runs once; a failing
 * step does not keep the others from running.
 */
export class CleanupStack {
  private readonly steps: (() => Promise<unknown>)[] = [];

  push(step: () => Promise<unknown>): void {
    this.steps.push(step);
  }

  async release(): Promise<void> {
    for (const step of this.steps.splice(0).reverse()) await step().catch(() => undefined);
  }

  /**
   * Waits for slow parts started together (a dev server, Postgres, a workflow bundle): every part that started is
   * pushed for release even when another failed, and then the first failure is thrown.
   */
  async startTogether<T extends readonly unknown[]>(
    ...parts: { readonly [K in keyof T]: StartingPart<T[K]> }
  ): Promise<T> {
    const list = parts as readonly StartingPart<unknown>[];
    const outcomes = await Promise.allSettled(list.map(([start]) => start));
    outcomes.forEach((outcome, index) => {
      const release = list[index]?.[1];
      if (outcome.status === 'fulfilled' && release !== undefined) this.push(() => release(outcome.value));
    });
    const failure = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    if (failure !== undefined) throw failure.reason;
    return outcomes.map((outcome) => (outcome as PromiseFulfilledResult<unknown>).value) as unknown as T;
  }
}
