// A worker or an approval service reads its decision keys from the environment; an unset, empty or malformed
// variable stops it with an error that names the variable (never the key), not a riddle about the key format.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CliError } from '../../src/cli/cli-error.js';
import { readDecisionKeys } from '../../src/cli/decision-keys.js';
import {
  DecisionKeyError,
  formatDecisionKey,
  generateDecisionKey,
  signDecision,
  signedDecisions,
  signingKeyFromEnv,
  verifyingKey,
  verifyingKeysFromEnv,
} from '../../src/decisions/index.js';

const approver = generateDecisionKey('ed25519', 'approver-1');
const rotated = generateDecisionKey('ed25519', 'approver-2');
const material = formatDecisionKey(approver, 'signing').split(':')[2]!;

function rejectsNaming(read: () => unknown, variable: string, saying: RegExp): void {
  assert.throws(read, (error: unknown) => {
    assert.ok(error instanceof DecisionKeyError, String(error));
    assert.ok(error.message.startsWith(variable), error.message);
    assert.match(error.message, saying);
    assert.ok(!error.message.includes(material.slice(0, 16)), 'no key material in the message');
    return true;
  });
}

describe('decision keys from the environment', () => {
  it('TTC_DECISION_VERIFY_KEYS: one or several keys (commas or spaces) verify what the approval service signs', () => {
    const env = {
      TTC_DECISION_VERIFY_KEYS: `${formatDecisionKey(verifyingKey(approver), 'public')}, ${formatDecisionKey(verifyingKey(rotated), 'public')}`,
    };
    const keys = verifyingKeysFromEnv(env);
    assert.deepEqual(
      keys.map((key) => key.id),
      ['approver-1', 'approver-2'],
    );
    const signing = signingKeyFromEnv({ TTC_DECISION_KEY: formatDecisionKey(approver, 'signing') });
    const token = signDecision(
      {
        kind: 'approval',
        workflowId: 'wf',
        runId: 'r',
        callId: 'c',
        requestSha256: 'a'.repeat(64),
        decision: 'approve',
        decidedBy: 'alice',
      },
      signing,
    );
    assert.equal((signedDecisions({ keys }).authenticate(token) as { ok: boolean }).ok, true);
  });

  it('unset, empty or blank: an error that names the variable and says what to set', () => {
    for (const env of [{}, { TTC_DECISION_VERIFY_KEYS: '' }, { TTC_DECISION_VERIFY_KEYS: ' , ' }]) {
      rejectsNaming(() => verifyingKeysFromEnv(env), 'TTC_DECISION_VERIFY_KEYS', /not set|empty|holds no decision key/);
    }
    rejectsNaming(
      () => signingKeyFromEnv({}),
      'TTC_DECISION_KEY',
      /not set: set it to the key decisions are signed with/,
    );
    rejectsNaming(() => verifyingKeysFromEnv({ MY_KEYS: '' }, 'MY_KEYS'), 'MY_KEYS', /empty/);
  });

  it('malformed: an error that names the variable and the key at fault, never its material', () => {
    const good = formatDecisionKey(verifyingKey(approver), 'public');
    rejectsNaming(
      () => verifyingKeysFromEnv({ TTC_DECISION_VERIFY_KEYS: `${good},ed25519:x:${material.slice(0, 30)}` }),
      'TTC_DECISION_VERIFY_KEYS (key 2 of 2)',
      /not an Ed25519 key/,
    );
    rejectsNaming(
      () => verifyingKeysFromEnv({ TTC_DECISION_VERIFY_KEYS: 'secret-without-colons' }),
      'TTC_DECISION_VERIFY_KEYS',
      /is written <algorithm>:<key id>:<base64url key>/,
    );
    rejectsNaming(
      () => signingKeyFromEnv({ TTC_DECISION_KEY: good }),
      'TTC_DECISION_KEY',
      /public key: it cannot sign/,
    );
  });

  it("the README worker's old pattern — keys split from an unset variable — now says which key is empty", () => {
    const unset: Record<string, string | undefined> = {};
    assert.throws(
      () => signedDecisions({ keys: (unset['TTC_DECISION_VERIFY_KEYS'] ?? '').split(',') }),
      (error: unknown) =>
        error instanceof DecisionKeyError &&
        /^signedDecisions: keys\[0\]: the decision key is empty/.test(error.message),
    );
  });

  it('the CLI reads the same variables with the same errors, as usage errors', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ttc-key-vars-'));
    await assert.rejects(
      readDecisionKeys({ TTC_DECISION_VERIFY_KEYS: 'nonsense' }, root),
      (error: unknown) => error instanceof CliError && error.message.startsWith('TTC_DECISION_VERIFY_KEYS: '),
    );
    await assert.rejects(
      readDecisionKeys({ TTC_DECISION_KEY: 'ed25519:k:AAAA' }, root),
      (error: unknown) => error instanceof CliError && error.message.startsWith('TTC_DECISION_KEY: '),
    );
  });
});
