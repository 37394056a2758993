// Secret names in other widths, scripts and languages (`ｐａｓｓｗｏｒｄ`, `contraseña`, `пароль`, `密码`), as field
// names and as names in text, through a whole call; and a key that is both a secret name and a secret never reaches
// the audit's redaction log.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { executeTool } from '../../../src/contract/execute-tool.js';
import { nfkc } from '../../../src/contract/redaction/folded-name.js';
import { testContext } from '../../../testkit/context.js';
import { FAKE_SECRETS } from '../../../testkit/security/secret-corpus.js';
import { defineTool } from '../../../testkit/define-tool.js';

const GITHUB = FAKE_SECRETS.find((secret) => secret.family === 'github_token')!;

function recordTool(data: Record<string, string>) {
  return defineTool({
    name: 'crm.profile',
    description: 'A customer profile.',
    input: z.strictObject({}),
    output: z.record(z.string(), z.string()),
    effect: 'read',
    source: { label: 'crm', type: 'http_api' },
    handler: () => Promise.resolve({ data }),
  });
}

describe('secret names outside ASCII', () => {
  it('removes fields named in full width, other scripts and languages, and keeps look-alikes', async () => {
    const secretNames = [
      'ｐａｓｓｗｏｒｄ',
      'ＡＰＩ＿ＫＥＹ',
      'contraseña',
      'Passwort',
      'mot_de_passe',
      'пароль',
      'мойПароль',
      '用户密码',
      'パスワード',
      '비밀번호',
      'şifre',
    ];
    const benign = {
      café: 'latte',
      señal: 'fuerte',
      東京: '晴れ',
      ｔｏｋｅｎ＿ｃｏｕｎｔ: '12',
      has_contraseña: 'yes',
    };
    const data = { ...Object.fromEntries(secretNames.map((name) => [name, `hunter2-${name}`])), ...benign };
    const { modelResult, audit } = await executeTool(recordTool(data), {}, testContext());
    assert.deepEqual(modelResult.data, benign);
    const logged = audit.redactions.filter((entry) => entry.reason === 'sensitive_field').map((entry) => entry.path);
    assert.deepEqual(logged.sort(), secretNames.map((name) => `/data/${name}`).sort());
  });

  it('hides values named in other widths and scripts inside text', async () => {
    const note =
      'contraseña: hunter2-a, ｐａｓｓｗｏｒｄ＝hunter2-b, пароль=hunter2-c, 密码：hunter2-d, Passwort=hunter2-e; café: latte';
    const { modelResult } = await executeTool(recordTool({ note }), {}, testContext());
    const shown = (modelResult.data as { note: string }).note;
    assert.doesNotMatch(shown, /hunter2/);
    assert.match(shown, /café: latte$/, 'an ordinary name keeps its value');
  });

  it('logs a key that is both a secret name and a secret with the secret hidden (the audit is no place for it)', async () => {
    const key = `password ${GITHUB.secret}`;
    const { modelResult, audit } = await executeTool(recordTool({ [key]: 'x', plain: 'y' }), {}, testContext());
    assert.deepEqual(modelResult.data, { plain: 'y' });
    assert.ok(!JSON.stringify(audit).includes(GITHUB.secret), 'the secret is nowhere in the audit');
    assert.deepEqual(
      audit.redactions.find((entry) => entry.reason === 'sensitive_field'),
      { path: '/data/password [REDACTED]', reason: 'sensitive_field' },
    );
  });

  it('reads a name in its NFKC form exactly as String.prototype.normalize does (property, 200,000 random names)', () => {
    let seed = 25;
    const next = (n: number) => ((seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff), seed % n);
    // ASCII, Latin-1 and Latin extensions, combining marks, jamo, full-width forms, and anything in the BMP.
    const ranges = [
      [0, 0x80],
      [0x80, 0x250],
      [0x300, 0x370],
      [0x1100, 0x1200],
      [0xff00, 0xfff0],
      [0, 0x10000],
    ] as const;
    for (let i = 0; i < 200_000; i++) {
      let name = '';
      for (let length = 1 + next(8); name.length < length;) {
        const [from, to] = ranges[next(ranges.length)]!;
        name += String.fromCharCode(from + next(to - from));
      }
      assert.equal(nfkc(name), name.normalize('NFKC'), JSON.stringify(name));
    }
  });
});
