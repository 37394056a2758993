import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  noopMetricMeter,
  type Logger,
  type LogLevel,
  type LogMetadata,
  type MetricGauge,
  type MetricMeter,
  type MetricTags,
} from '@temporalio/common';
import {
  PENDING_APPROVALS_METRIC,
  startContractGauges,
  UNSETTLED_CALLS_METRIC,
} from '../../src/temporal/contract-gauges.js';

/** Every value set on a gauge, with its tags (the meter's and the call's). */
interface GaugeSet {
  readonly name: string;
  readonly value: number;
  readonly tags: MetricTags;
}

function recordingMeter(sets: GaugeSet[], meterTags: MetricTags = {}): MetricMeter {
  return {
    createCounter: noopMetricMeter.createCounter.bind(noopMetricMeter),
    createHistogram: noopMetricMeter.createHistogram.bind(noopMetricMeter),
    createGauge: (name: string): MetricGauge => gauge(name, meterTags),
    withTags: (tags: MetricTags) => recordingMeter(sets, { ...meterTags, ...tags }),
  };
  function gauge(name: string, gaugeTags: MetricTags): MetricGauge {
    return {
      name,
      kind: 'gauge',
      valueType: 'int',
      set: (value: number, extraTags: MetricTags = {}) =>
        sets.push({ name, value, tags: { ...gaugeTags, ...extraTags } }),
      withTags: (tags: MetricTags) => gauge(name, { ...gaugeTags, ...tags }),
    };
  }
}

function recordingLogger(warnings: LogMetadata[]): Logger {
  const ignore = () => undefined;
  return {
    log: (_level: LogLevel) => undefined,
    trace: ignore,
    debug: ignore,
    info: ignore,
    warn: (_message, meta) => warnings.push(meta ?? {}),
    error: ignore,
  };
}

/** A source that answers each sample from the next entry of `answers` (an Error = that sample fails). */
function scripted<T>(answers: readonly (T | Error)[]): () => Promise<T> {
  let next = 0;
  return async () => {
    const answer = answers[Math.min(next++, answers.length - 1)];
    if (answer instanceof Error) throw answer;
    if (answer === undefined) throw new Error('no answers scripted');
    return answer;
  };
}

const until = async (done: () => boolean) => {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.ok(done(), 'timed out waiting for samples');
};

test('the gauges are sampled at start and every interval; a failed sample logs and keeps the previous value; a tool that settled goes to 0', async () => {
  const sets: GaugeSet[] = [];
  const warnings: LogMetadata[] = [];
  const pending = scripted([3, new Error('visibility unavailable'), 1]);
  const unsettled = scripted<Readonly<Record<string, number>>>([
    { 'mail.send': 2, 'payments.charge': 1 },
    { 'mail.send': 1 },
    new Error('database down'),
  ]);
  const gauges = startContractGauges({
    client: {
      options: { namespace: 'ns-1' },
      workflow: { count: async () => ({ count: await pending(), groups: [] }) },
    },
    store: { countUnsettledByTool: unsettled },
    intervalMs: 10,
    meter: recordingMeter(sets),
    logger: recordingLogger(warnings),
  });
  const of = (name: string) => sets.filter((set) => set.name === name);
  await until(() => of(PENDING_APPROVALS_METRIC).length >= 2 && warnings.length >= 2);
  await gauges.stop();

  const pendingValues = of(PENDING_APPROVALS_METRIC);
  assert.deepEqual(
    pendingValues.slice(0, 2).map((set) => set.value),
    [3, 1],
    'the failed sample set nothing in between',
  );
  assert.ok(pendingValues.every((set) => set.tags['namespace'] === 'ns-1'));
  const unsettledSets = of(UNSETTLED_CALLS_METRIC).map((set) => [set.tags['tool'], set.value, set.tags['namespace']]);
  // Every sample after the second fails: the last values stay.
  assert.deepEqual(unsettledSets, [
    ['mail.send', 2, 'ns-1'],
    ['payments.charge', 1, 'ns-1'],
    ['payments.charge', 0, 'ns-1'],
    ['mail.send', 1, 'ns-1'],
  ]);
  assert.deepEqual(
    warnings
      .slice(0, 2)
      .map((meta) => String(meta['gauge']))
      .sort(),
    [PENDING_APPROVALS_METRIC, UNSETTLED_CALLS_METRIC].sort(),
  );

  const afterStop = sets.length;
  await new Promise((resolve) => setTimeout(resolve, 40));
  assert.equal(sets.length, afterStop, 'no sample after stop()');
});

test('an interval that is not a positive integer is refused before anything is sampled', () => {
  const sets: GaugeSet[] = [];
  for (const intervalMs of [0, -5, 1.5, Number.NaN]) {
    assert.throws(
      () =>
        startContractGauges({
          client: { options: { namespace: 'ns' }, workflow: { count: async () => ({ count: 0, groups: [] }) } },
          store: { countUnsettledByTool: async () => ({}) },
          intervalMs,
          meter: recordingMeter(sets),
        }),
      RangeError,
    );
  }
  assert.deepEqual(sets, []);
});
