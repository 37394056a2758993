import { performance } from 'node:perf_hooks';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import type { ToolStore } from '../../src/store/tool-store.js';

/** Durations (ms) by label, collected while the benchmark runs; `reset` between phases. */
export class Timings {
  private readonly samples = new Map<string, number[]>();

  add(label: string, ms: number): void {
    const list = this.samples.get(label);
    if (list) list.push(ms);
    else this.samples.set(label, [ms]);
  }

  get(label: string): readonly number[] {
    return this.samples.get(label) ?? [];
  }

  reset(): void {
    this.samples.clear();
  }
}

/**
 * The store with every method timed under `store.<method>`: what the plugin waits for in Postgres, pool waits
 * included. Behaviour is unchanged (same calls, same results, same errors).
 */
export function timedStore(store: ToolStore, timings: Timings): ToolStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => Promise<unknown>;
      return async (...args: unknown[]) => {
        const start = performance.now();
        try {
          return await method.apply(target, args);
        } finally {
          timings.add(`store.${String(property)}`, performance.now() - start);
        }
      };
    },
  });
}

/**
 * An activity interceptor that times each activity's execution on the worker under `activity.<type>` (local
 * activities under `local.<type>`). Listed before the plugin, it is the outermost interceptor, so a tool activity's
 * time includes the whole contract funnel and its store writes.
 */
export function activityTimings(timings: Timings): ActivityInterceptorsFactory {
  return (ctx) => ({
    inbound: {
      async execute(input, next) {
        const start = performance.now();
        try {
          return await next(input);
        } finally {
          timings.add(`${ctx.info.isLocal ? 'local' : 'activity'}.${ctx.info.activityType}`, performance.now() - start);
        }
      },
    },
  });
}
