import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CliError } from '../../src/cli/cli-error.js';
import {
  authenticatorFor,
  ensureDecisionKeys,
  readDecisionKeys,
  SIGNING_KEY_FILE,
  VERIFY_KEYS_FILE,
} from '../../src/cli/decision-keys.js';
import { formatDecisionKey, generateDecisionKey, signDecision, verifyingKey } from '../../src/decisions/index.js';

const statement = {
  kind: 'approval',
  workflowId: 'wf',
  runId: 'r',
  callId: 'call-1',
  requestSha256: 'a'.repeat(64),
  decision: 'approve',
  decidedBy: 'alice',
} as const;

describe('decision keys of the CLI', () => {
  it('first runs create one project key pair, even when they race; the private half is private, the worker gets the public half', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ttc-keys-'));
    assert.equal((await readDecisionKeys({}, root)).source, 'none', 'reading never creates');
    const [a, b, c] = await Promise.all([
      ensureDecisionKeys({}, root),
      ensureDecisionKeys({}, root),
      ensureDecisionKeys({}, root),
    ]);
    assert.ok(a.signing !== null && b.signing !== null && c.signing !== null);
    assert.equal(
      new Set([a, b, c].map((keys) => formatDecisionKey(keys.signing!, 'public'))).size,
      1,
      'one key for the project',
    );
    assert.equal(statSync(join(root, SIGNING_KEY_FILE)).mode & 0o777, 0o600);
    const workerKeys = readFileSync(join(root, VERIFY_KEYS_FILE), 'utf8');
    assert.ok(
      !workerKeys.includes(formatDecisionKey(a.signing, 'signing').split(':')[2]!),
      'the worker file holds no private key',
    );
    const read = await readDecisionKeys({}, root);
    assert.equal(read.source, 'project');
    const token = signDecision(statement, read.signing!);
    assert.ok(
      (authenticatorFor(read)?.authenticate(token) as { ok: boolean }).ok,
      'what the commands sign, the worker verifies',
    );
  });

  it('the environment wins over the project; a public key cannot be the signing key; bad key text names its source, not its material', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ttc-keys-'));
    const key = generateDecisionKey('ed25519', 'ops-1');
    const fromEnv = await ensureDecisionKeys({ TTC_DECISION_KEY: formatDecisionKey(key, 'signing') }, root);
    assert.equal(fromEnv.source, 'environment');
    assert.deepEqual(
      fromEnv.verifying.map((k) => formatDecisionKey(k, 'public')),
      [formatDecisionKey(verifyingKey(key), 'public')],
    );
    assert.equal((await readDecisionKeys({}, root)).source, 'none', 'nothing was written to the project');
    await assert.rejects(readDecisionKeys({ TTC_DECISION_KEY: formatDecisionKey(key, 'public') }, root), CliError);
    const material = formatDecisionKey(key, 'signing').split(':')[2]!;
    await assert.rejects(
      readDecisionKeys({ TTC_DECISION_VERIFY_KEYS: `ed25519:ops-1:${material.slice(0, 30)}` }, root),
      (error: unknown) =>
        error instanceof CliError &&
        error.message.startsWith('TTC_DECISION_VERIFY_KEYS:') &&
        !error.message.includes(material.slice(0, 16)),
    );
    await ensureDecisionKeys({}, root);
    writeFileSync(join(root, VERIFY_KEYS_FILE), 'not a key\n');
    await assert.rejects(
      readDecisionKeys({}, root),
      (error: unknown) => error instanceof CliError && error.message.includes(VERIFY_KEYS_FILE),
    );
  });
});
