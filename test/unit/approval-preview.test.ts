import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { argumentsPreview, HIDDEN_FIELD_MARKER } from '../../src/contract/approval-preview.js';
import { REDACTED_MARKER, Redactor } from '../../src/contract/redaction.js';
import { ToolDefinitionError } from '../../src/index.js';
import { defineTool } from '../../testkit/define-tool.js';

const redactor = new Redactor({
  sensitiveFields: [],
  protectedSubstrings: ['wf-1:call-1'],
  protectedExact: ['tenant-acme', 'user-42'],
});
const transfer = {
  to_account: 'acct_9',
  amount_cents: 999_999,
  credentials: { act_as: 'victim-account-owner', password: 'hunter2' },
  memo: 'ref wf-1:call-1',
};

describe('approval preview', () => {
  it('shows every field hidden by name as a marker at its place and lists the hidden paths', () => {
    const preview = argumentsPreview(transfer, redactor, []);
    assert.deepEqual(preview.arguments, {
      to_account: 'acct_9',
      amount_cents: 999_999,
      credentials: HIDDEN_FIELD_MARKER,
      memo: `ref ${REDACTED_MARKER}`,
    });
    assert.deepEqual(preview.hidden, [
      { path: '/credentials', reason: 'sensitive_field' },
      { path: '/memo', reason: 'protected_value' },
    ]);
  });

  it('shows a declared path although its name looks sensitive, and keeps hiding its sensitive siblings', () => {
    const preview = argumentsPreview(transfer, redactor, ['/credentials/act_as']);
    assert.deepEqual(preview.arguments, {
      to_account: 'acct_9',
      amount_cents: 999_999,
      credentials: { act_as: 'victim-account-owner', password: HIDDEN_FIELD_MARKER },
      memo: `ref ${REDACTED_MARKER}`,
    });
    assert.deepEqual(
      preview.hidden.map((h) => h.path),
      ['/credentials/password', '/memo'],
    );
  });

  it("never shows a secret-shaped value or the call's protected values, declared or not", () => {
    const preview = argumentsPreview(
      { credentials: { act_as: 'sk_live_abcdefghijklmnop1234' }, on_behalf_of: 'user-42' },
      redactor,
      ['/credentials/act_as'],
    );
    assert.deepEqual(preview.arguments, { credentials: { act_as: REDACTED_MARKER }, on_behalf_of: REDACTED_MARKER });
    assert.deepEqual(
      preview.hidden.map((h) => h.path),
      ['/credentials/act_as', '/on_behalf_of'],
    );
  });

  it('walks arrays on a declared path and marks sensitive fields inside array items', () => {
    const preview = argumentsPreview(
      {
        payees: [
          { token: 't1', name: 'a' },
          { token: 't2', name: 'b' },
        ],
      },
      redactor,
      ['/payees/1/token'],
    );
    assert.deepEqual(preview.arguments, {
      payees: [
        { token: HIDDEN_FIELD_MARKER, name: 'a' },
        { token: 't2', name: 'b' },
      ],
    });
    assert.deepEqual(preview.hidden, [{ path: '/payees/0/token', reason: 'sensitive_field' }]);
  });

  it('leaves ordinary arguments untouched', () => {
    const args = { order_id: 'ord_1', lines: [{ sku: 'a', qty: 2 }] };
    assert.deepEqual(argumentsPreview(args, redactor, []), { arguments: args, hidden: [] });
  });

  it('defineTool accepts JSON Pointers into the arguments only', () => {
    const base = {
      name: 'payments.transfer',
      description: 'Transfer.',
      input: z.strictObject({ credentials: z.strictObject({ act_as: z.string() }) }),
      output: z.strictObject({ ok: z.boolean() }),
      effect: 'write' as const,
      requiresApproval: true,
      source: { label: 'bank', type: 'http_api' },
      handler: () => Promise.resolve({ data: { ok: true } }),
    };
    assert.deepEqual(defineTool({ ...base, visibleToApprovers: ['/credentials/act_as'] }).visibleToApprovers, [
      '/credentials/act_as',
    ]);
    assert.deepEqual(defineTool(base).visibleToApprovers, []);
    for (const bad of ['', 'credentials/act_as', '/a~2b'])
      assert.throws(() => defineTool({ ...base, visibleToApprovers: [bad] }), ToolDefinitionError, bad);
  });
});
