import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkProse } from '../../../src/adapters/mcp-prose-check.js';

// Seed 000 §4: the structured result of a weather tool, and prose beside it.
const weather = { location: '杭州', temperature_c: 27.4, condition: 'clear', observed_at: '2026-09-01T02:00:00Z' };

describe('checkProse', () => {
  it('the seed example: 30 °C beside temperature_c 27.4 contradicts, 27.4 °C restates', () => {
    assert.deepEqual(checkProse('杭州当前温度 30°C。', { temperature_c: 27.4 }), {
      kind: 'contradicts',
      claims: ['30'],
    });
    assert.deepEqual(checkProse('杭州当前温度 27.4°C，天气晴。', weather), { kind: 'consistent' });
  });

  it('a number may be rounded to the decimals the text shows, never changed', () => {
    assert.equal(checkProse('about 27 °C', weather).kind, 'consistent');
    assert.equal(checkProse('about 27.5 °C', weather).kind, 'contradicts');
    assert.equal(checkProse('1,234 orders', { orders: 1234 }).kind, 'consistent');
    assert.equal(checkProse('-3 °C', { temperature_c: -3 }).kind, 'consistent');
  });

  it('dates: an instant with an offset must be the same instant; a wall-clock time or a day may be in any zone', () => {
    assert.equal(checkProse('observed 2026-09-01T02:00:00Z', weather).kind, 'consistent');
    assert.equal(checkProse('observed 2026-09-01T10:00:00+08:00', weather).kind, 'consistent');
    assert.equal(checkProse('observed 2026-09-01T10:00:00Z', weather).kind, 'contradicts');
    assert.equal(checkProse('observed 2026-09-01 10:00 China Standard Time', weather).kind, 'consistent');
    assert.equal(checkProse('observed 2026-09-01 10:07', weather).kind, 'contradicts');
    assert.equal(
      checkProse('observed on 2026-08-31', weather).kind,
      'consistent',
      'already Sept 1 in Asia, still Aug 31 in the Americas',
    );
    assert.equal(checkProse('observed on 2026-08-29', weather).kind, 'contradicts');
  });

  it('digits inside identifiers are not claims; prose without numbers or dates cannot be verified', () => {
    assert.equal(checkProse('order ord_1001 is shipped', { status: 'shipped' }).kind, 'unverifiable');
    assert.equal(checkProse('Sunny and pleasant.', weather).kind, 'unverifiable');
  });
  // Linear time on hostile text: test/unit/security/linear-time.test.ts.
});
