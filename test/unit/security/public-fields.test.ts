// A tool's public field names: names that sound secret but are not in its data. They stop the name rule only.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { ToolDefinitionError } from '../../../src/index.js';
import { executeTool } from '../../../src/contract/execute-tool.js';
import { testContext } from '../../../testkit/context.js';
import { assertHidden } from './hidden.js';
import { FAKE_SECRETS } from '../../../testkit/security/secret-corpus.js';
import { defineTool } from '../../../testkit/define-tool.js';

const ctx = testContext();
const GITHUB = FAKE_SECRETS.find((secret) => secret.family === 'github_token')!;

function talksTool(data: Record<string, unknown>, publicFields?: string[]) {
  return defineTool({
    name: 'conference.talks',
    description: 'List the talks of a conference.',
    input: z.strictObject({}),
    output: z.record(z.string(), z.unknown()),
    effect: 'read',
    source: { label: 'conference', type: 'http_api' },
    ...(publicFields === undefined ? {} : { publicFields }),
    handler: () => Promise.resolve({ data }),
  });
}

describe('publicFields: names that sound secret but are not', () => {
  const talk = { session: 'Keynote: agents that keep their promises', room: 'A', speaker_token_count: 3 };

  it('keeps a public field that the name rule would remove, as a field and as a name/value pair', async () => {
    const data = { ...talk, tags: [{ name: 'session', value: 'Workshop B' }] };
    const removed = (await executeTool(talksTool(data), {}, ctx)).modelResult.data as Record<string, unknown>;
    assert.equal(removed['session'], undefined, 'without the declaration, `session` is a secret name');
    const kept = await executeTool(talksTool(data, ['session']), {}, ctx);
    assert.deepEqual(kept.modelResult.data, data);
    assert.deepEqual(kept.audit.redactions, []);
  });

  it('are part of the policy revision when declared (the call binding commits to them), and absent ones change nothing', () => {
    const without = talksTool({}).revisions.policy;
    assert.equal(talksTool({}, []).revisions.policy, without);
    assert.notEqual(talksTool({}, ['session']).revisions.policy, without);
    assert.equal(
      talksTool({}, ['session', 'track']).revisions.policy,
      talksTool({}, ['track', 'session']).revisions.policy,
      'order means nothing',
    );
  });

  it('never un-redacts a secret-shaped value: only the name rule stops', async () => {
    const { modelResult, audit } = await executeTool(
      talksTool({ session: `notes at ${GITHUB.carrier}` }, ['Session']),
      {},
      ctx,
    );
    const shown = (modelResult.data as { session: string }).session;
    assert.ok(shown.startsWith('notes at '), 'the field stays');
    assertHidden(shown, GITHUB, 'a public field');
    assert.deepEqual(
      audit.redactions.map((entry) => entry.reason),
      ['secret_pattern:github_token'],
    );
  });

  it('cannot list a built-in credential or control field, or one of the tool’s sensitive fields', () => {
    for (const name of ['password', 'API-Key', 'idempotency_key', 'principalRef']) {
      assert.throws(() => talksTool({}, [name]), ToolDefinitionError, name);
    }
    assert.throws(
      () => defineTool({ ...talksTool({}), sensitiveFields: ['room'], publicFields: ['Room'] }),
      ToolDefinitionError,
    );
    assert.throws(() => talksTool({}, ['--']), ToolDefinitionError, 'a name with no letters or digits');
  });
});
