import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { canonicalJson } from '../../../src/contract/canonical-json.js';
import type { PgToolStore } from '../../../src/store/pg/pg-tool-store.js';
import type { StatePatchInput } from '../../../src/store/state-patch.js';
import { openTestDatabase, type TestDatabase } from '../../support/postgres.js';
import { rejectsWith } from './assert-store-error.js';
import { ordersGet, runCall } from '../../../testkit/store-tools.js';

let db: TestDatabase;
let store: PgToolStore;
let evidenceId: string;

before(async () => {
  db = await openTestDatabase('hostile');
  store = db.store();
  const execution = await runCall(ordersGet, { orderId: 'o-1' }, { workflowId: 'wf-hostile', callId: 'c1' });
  await store.recordExecution({ execution, workflowId: 'wf-hostile', runId: null });
  evidenceId = execution.modelResult.evidence[0]!.evidence_id;
});
after(async () => db?.close());

const ODD_TEXT = [
  'emoji 👩‍👩‍👧‍👦 🏳️‍🌈 and astral 𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
  'right-to-left \u202Eoverride\u202C and isolate \u2067عربى\u2069',
  'zero width \u200B\u200C\u200D\uFEFF joiners',
  'combining e\u0301\u0301\u0301 vs \u00E9',
  'line separators \u2028 \u2029 and \r\n\t controls \u0001\u001F\u007F',
  'NUL inside JSON \u0000 is fine when escaped',
  'quotes \' " ` and backslashes \\ \\\\ \\u0000',
  'noncharacters \uFFFE\uFFFF \u{10FFFF}',
];

const SQL_KEYS = [
  "'; DROP TABLE ttc_state; --",
  'Robert"); DELETE FROM ttc_audit; --',
  '$1',
  '$$ LANGUAGE plpgsql $$',
  '\\x00',
  "' OR '1'='1",
  '/* comment */ SELECT pg_sleep(10)',
  '',
];

const patch = (overrides: Partial<StatePatchInput>): StatePatchInput => ({
  patchId: 'p',
  workflowId: 'wf-hostile',
  key: 'k',
  value: null,
  evidenceIds: [evidenceId],
  source: 'orders-db',
  observedAt: null,
  retrievedAt: '2026-11-30T12:00:00Z',
  expectedVersion: 0,
  callId: 'c1',
  ...overrides,
});

/** Exact equality: same canonical bytes (types, key sets, string code units, number values). */
function assertExact(actual: unknown, expected: unknown): void {
  assert.equal(canonicalJson(actual), canonicalJson(expected));
  assert.deepStrictEqual(actual, expected);
}

describe('hostile values (real Postgres)', () => {
  it('stores and reads back odd Unicode exactly, in keys and values', async () => {
    for (const [i, text] of ODD_TEXT.entries()) {
      const key = text.replaceAll('\u0000', '');
      const value = { [text]: text, nested: [text, { deeper: text }], n: i };
      await store.applyStatePatch(patch({ patchId: `p-uni-${i}`, key, value }));
      const state = await store.getState('wf-hostile', key);
      assert.equal(state?.key, key);
      assertExact(state?.value, value);
    }
  });

  it('treats keys that look like SQL as plain data', async () => {
    for (const [i, key] of SQL_KEYS.entries()) {
      await store.applyStatePatch(patch({ patchId: `p-sql-${i}-${key}`, key, value: { key, sql: key } }));
      assertExact((await store.getState('wf-hostile', key))?.value, { key, sql: key });
    }
    const { rows } = await db.pool.query<{ n: string }>('SELECT count(*) AS n FROM ttc_state WHERE workflow_id = $1', [
      'wf-hostile',
    ]);
    assert.ok(Number(rows[0]!.n) >= SQL_KEYS.length);
    // The tables the keys "attack" are still there and intact.
    assert.equal((await store.listAudits({ workflowId: 'wf-hostile' })).length, 1);
  });

  it('stores huge JSON (several MB, 100k items, deep nesting) and reads it back exactly', async () => {
    const big = {
      items: Array.from({ length: 100_000 }, (_, i) => ({
        i,
        s: `item-${i}`,
        f: i / 7,
        neg: -i,
        e: i % 2 === 0 ? 1e21 * i : 5e-324,
      })),
      text: 'x'.repeat(2 * 1024 * 1024),
      deep: Array.from({ length: 400 }).reduce<unknown>((inner) => ({ d: [inner] }), 'bottom'),
      numbers: [
        0,
        -0,
        1.5,
        Number.MAX_SAFE_INTEGER,
        Number.MIN_SAFE_INTEGER,
        Number.MAX_VALUE,
        Number.EPSILON,
        0.1 + 0.2,
      ],
    };
    const expected = canonicalJson(big);
    assert.ok(expected.length > 5_000_000);
    await store.applyStatePatch(patch({ patchId: 'p-huge', key: 'huge', value: big }));
    const state = await store.getState('wf-hostile', 'huge');
    assert.equal(canonicalJson(state?.value), expected);
  });

  it('keeps a tool result with hostile text exactly, NUL included, in audit, ledger and evidence', async () => {
    const note = ODD_TEXT.join(' | ');
    const execution = await runCall(
      ordersGet,
      { orderId: "o'); DROP TABLE ttc_ledger; --", note },
      { workflowId: 'wf-hostile', callId: 'c-hostile' },
    );
    assert.equal(execution.modelResult.status, 'succeeded');
    await store.recordExecution({ execution, workflowId: 'wf-hostile', runId: null });
    const stored = await store.getAudit(execution.audit.audit_id);
    assertExact(stored?.modelResult, execution.modelResult);
    assertExact(stored?.audit, execution.audit);
    const evidence = await store.listEvidence({ workflowId: 'wf-hostile', callId: 'c-hostile' });
    const quoted = evidence.find((e) => e.quote !== null);
    assert.equal(quoted?.quote, execution.modelResult.evidence.find((e) => e.quote !== undefined)?.quote);
    const entry = await store.getLedgerEntry(execution.audit.idempotency_key);
    assertExact(entry?.modelResult, execution.modelResult);
  });

  it('refuses values that cannot be stored exactly with INVALID_ARGUMENTS, and stores nothing', async () => {
    await rejectsWith(
      store.applyStatePatch(patch({ patchId: 'p-nul-key', key: 'a\u0000b', value: 1 })),
      'INVALID_ARGUMENTS',
      'invalid_input',
    );
    await rejectsWith(
      store.applyStatePatch(patch({ patchId: 'p-lone', key: 'lone', value: 'half \uD800 a pair' })),
      'INVALID_ARGUMENTS',
      'invalid_input',
    );
    await rejectsWith(
      store.applyStatePatch(patch({ patchId: 'p-lone-key', key: 'half \uDC00', value: 1 })),
      'INVALID_ARGUMENTS',
      'invalid_input',
    );
    await rejectsWith(
      store.applyStatePatch(patch({ patchId: 'p-inf', key: 'inf', value: { x: Infinity } })),
      'INVALID_ARGUMENTS',
      'invalid_input',
    );
    await rejectsWith(
      store.applyStatePatch(patch({ patchId: 'p-date', key: 'date', value: { when: new Date() } })),
      'INVALID_ARGUMENTS',
      'invalid_input',
    );
    await rejectsWith(
      store.applyStatePatch(patch({ patchId: 'p-big', key: 'bigint', value: { n: 10n } })),
      'INVALID_ARGUMENTS',
      'invalid_input',
    );
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    await rejectsWith(
      store.applyStatePatch(patch({ patchId: 'p-cycle', key: 'cycle', value: cyclic })),
      'INVALID_ARGUMENTS',
      'invalid_input',
    );
    const { rows } = await db.pool.query<{ n: string }>(
      "SELECT count(*) AS n FROM ttc_state_patches WHERE patch_id IN ('p-nul-key', 'p-lone', 'p-lone-key', 'p-inf', 'p-date', 'p-big', 'p-cycle')",
    );
    assert.equal(Number(rows[0]!.n), 0);
  });
});
