import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readToolCalls, type RawToolCall } from '../../../src/model/index.js';
import { thrownToolError } from './rejections.js';

const call = (rawArguments: string, callId = 'c1'): RawToolCall => ({ callId, name: 'orders_get', rawArguments });
const reasonOf = (rawArguments: string) => {
  const [read] = readToolCalls([call(rawArguments)]);
  assert.ok(read !== undefined);
  return read.malformed ? read.reason : 'well_formed';
};

describe('readToolCalls', () => {
  it('parses a JSON object into arguments and keeps the raw text', () => {
    assert.deepEqual(readToolCalls([call('{"order_id":"ord_1","lines":[1,2],"note":null}')]), [
      {
        callId: 'c1',
        name: 'orders_get',
        malformed: false,
        arguments: { order_id: 'ord_1', lines: [1, 2], note: null },
        rawArguments: '{"order_id":"ord_1","lines":[1,2],"note":null}',
      },
    ]);
  });

  it('marks invalid JSON, non-objects and JSON the input gate would refuse as malformed', () => {
    assert.deepEqual(['', '{', '{"a":1}}', "{'a':1}", 'NaN', '{"a":1,}'].map(reasonOf), Array(6).fill('invalid_json'));
    assert.deepEqual(['[]', '"{}"', '42', 'true', 'null'].map(reasonOf), Array(5).fill('not_an_object'));
    const deep = '{"a":'.repeat(100) + '1' + '}'.repeat(100);
    assert.deepEqual(
      ['{"__proto__":{}}', '{"constructor":1}', '{"k":"\\udc00"}', deep].map(reasonOf),
      Array(4).fill('unsafe_json'),
    );
    assert.equal(reasonOf('{"a":'.repeat(20) + '1' + '}'.repeat(20)), 'well_formed');
  });

  it('never lets hostile nesting crash the reader', () => {
    const hostile = '['.repeat(200_000) + ']'.repeat(200_000);
    const [read] = readToolCalls([call(`{"a":${hostile}}`)]);
    assert.equal(read?.malformed, true);
  });

  it('refuses duplicate and empty call ids (PROTOCOL_ERROR)', () => {
    const duplicate = thrownToolError(() => readToolCalls([call('{}', 'x'), call('{}', 'y'), call('{}', 'x')]));
    assert.deepEqual(
      [duplicate.code, duplicate.details.reason, duplicate.details.index],
      ['PROTOCOL_ERROR', 'duplicate_call_id', 2],
    );
    assert.equal(thrownToolError(() => readToolCalls([call('{}', '')])).code, 'PROTOCOL_ERROR');
  });

  it('keeps the calls in the order the model gave them', () => {
    assert.deepEqual(
      readToolCalls([call('{}', 'b'), call('[', 'a'), call('{}', 'c')]).map((read) => read.callId),
      ['b', 'a', 'c'],
    );
  });
});
