import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readHttpJson, ToolError } from '../../src/index.js';
import { sha256Hex } from '../../src/contract/sha256.js';

const codeOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (error) {
    if (error instanceof ToolError) return error.code;
    throw error;
  }
  return 'none';
};

describe('readHttpJson (protocol layer)', () => {
  it('accepts a complete UTF-8 JSON body and keeps the raw bytes for the audit digest', () => {
    const body = new TextEncoder().encode('{"id":"ord_1","name":"Zoë"}');
    const result = readHttpJson({
      status: 200,
      headers: new Headers({
        'Content-Type': 'application/problem+json; charset=UTF-8',
        'Content-Length': String(body.byteLength),
      }),
      body,
    });
    assert.deepEqual(result.json, { id: 'ord_1', name: 'Zoë' });
    assert.equal(sha256Hex(result.rawResponse.body), sha256Hex(body));
    assert.equal(result.rawResponse.contentType, 'application/problem+json');
  });

  it('maps statuses to catalog codes', () => {
    const at = (status: number) =>
      codeOf(() => readHttpJson({ status, headers: { 'content-type': 'application/json' }, body: '{}' }));
    assert.deepEqual([400, 401, 403, 404, 409, 422, 429, 500, 502, 503, 504, 302].map(at), [
      'INVALID_ARGUMENTS',
      'PERMISSION_DENIED',
      'PERMISSION_DENIED',
      'NOT_FOUND',
      'STATUS_CONFLICT',
      'INVALID_ARGUMENTS',
      'RATE_LIMITED',
      'PROTOCOL_ERROR',
      'PROTOCOL_ERROR',
      'UPSTREAM_UNAVAILABLE',
      'PROTOCOL_ERROR',
      'PROTOCOL_ERROR',
    ]);
  });

  it('refuses bodies over the size limit before parsing', () => {
    assert.equal(
      codeOf(() =>
        readHttpJson(
          { status: 200, headers: { 'content-type': 'application/json' }, body: '[' + '1,'.repeat(100) + '1]' },
          { maxBodyBytes: 64 },
        ),
      ),
      'PROTOCOL_ERROR',
    );
  });

  it('refuses a malformed status or body type', () => {
    assert.equal(
      codeOf(() => readHttpJson({ status: 20, headers: {}, body: '{}' })),
      'PROTOCOL_ERROR',
    );
    assert.equal(
      codeOf(() =>
        readHttpJson({ status: 200, headers: { 'content-type': 'application/json' }, body: { id: 1 } as never }),
      ),
      'PROTOCOL_ERROR',
    );
  });
});
