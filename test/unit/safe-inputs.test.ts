import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { publicUrl, safePath, shellFreeString, sqlIdentifier } from '../../src/index.js';
import { executeTool } from '../../src/contract/execute-tool.js';
import { isPublicAddress } from '../../src/contract/safe-inputs/ip-address.js';
import { codeOf } from '../support/assertions.js';
import { testContext } from '../../testkit/context.js';
import { defineTool } from '../../testkit/define-tool.js';

const accepts = (schema: z.ZodType, value: string) => schema.safeParse(value).success;

describe('safePath', () => {
  const path = safePath({ root: '/srv/files/' });
  it('normalizes a relative path into the root', () => {
    assert.equal(path.parse('reports/2026/q3.csv'), '/srv/files/reports/2026/q3.csv');
    assert.equal(path.parse('./a//b/./c.txt'), '/srv/files/a/b/c.txt');
  });
  it('refuses every way out of the root', () => {
    const hostile = [
      '../etc/passwd',
      'a/../../etc/passwd',
      'a/..',
      '..',
      '/etc/passwd',
      '~/.ssh/id_rsa',
      'C:/Windows/win.ini',
      'C:\\Windows',
      'a\\..\\..\\b',
      'a\u0000.txt',
      'a\nb',
      '%2e%2e/%2e%2e/etc/passwd',
      '..%2fetc',
      '\uff0e\uff0e/etc',
      '\u2024\u2024/etc',
      '',
      '.',
      './.',
    ];
    for (const value of hostile) assert.equal(accepts(path, value), false, JSON.stringify(value));
  });
  it('a root must be absolute and clean', () => {
    assert.throws(() => safePath({ root: 'relative/dir' }), TypeError);
    assert.throws(() => safePath({ root: '/srv/../etc' }), TypeError);
  });
});

describe('safePath with the real file system: a symbolic link that leads out of the root is refused', () => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'ttc-safe-path-')));
  const root = join(base, 'root');
  mkdirSync(join(root, 'inside'), { recursive: true });
  writeFileSync(join(base, 'secret.txt'), 'outside the root');
  writeFileSync(join(root, 'inside', 'ok.txt'), 'fine');
  symlinkSync(join(base, 'secret.txt'), join(root, 'leak.txt'));
  symlinkSync(base, join(root, 'up'));
  symlinkSync(join(root, 'inside'), join(root, 'alias'));
  const checked = safePath({ root, realpath: (path) => realpathSync.native(path) });
  const textOnly = safePath({ root });

  it('refuses a link to a file outside, and a link to a directory outside (also for a file not created yet)', () => {
    for (const value of ['leak.txt', 'up/secret.txt', 'up/new-file.txt']) {
      assert.equal(accepts(textOnly, value), true, `${value} passes the string check alone`);
      assert.equal(accepts(checked, value), false, value);
    }
  });

  it('accepts real files, new files and links that stay inside', () => {
    for (const value of ['inside/ok.txt', 'inside/new.txt', 'new-dir/new.txt', 'alias/ok.txt'])
      assert.equal(accepts(checked, value), true, value);
  });

  it('cleans up', () => {
    rmSync(base, { recursive: true, force: true });
  });
});

describe('sqlIdentifier (seed 003: SQL arguments are filtered; values are bound, identifiers checked)', () => {
  it('accepts a plain name, or only the allowed ones', () => {
    assert.equal(accepts(sqlIdentifier(), 'created_at'), true);
    const sortable = sqlIdentifier({ allowed: ['created_at', 'total_cents'] });
    assert.equal(accepts(sortable, 'total_cents'), true);
    assert.equal(accepts(sortable, 'password_hash'), false);
  });

  it('refuses anything that could change the statement', () => {
    for (const value of [
      'name; DROP TABLE users',
      'name--',
      '"name"',
      'a b',
      'users.name',
      '1col',
      'name/*x*/',
      "o'brien",
      'ｎａｍｅ',
      '',
    ]) {
      assert.equal(accepts(sqlIdentifier(), value), false, JSON.stringify(value));
    }
  });

  it('refused through the funnel as INVALID_ARGUMENTS: the handler never runs', async () => {
    let ran = false;
    const tool = defineTool({
      name: 'orders.sorted',
      description: 'List orders sorted by a column.',
      input: z.strictObject({ sort: sqlIdentifier({ allowed: ['created_at'] }) }),
      output: z.strictObject({ count: z.number() }),
      effect: 'read',
      source: { label: 'db', type: 'database' },
      handler: () => {
        ran = true;
        return Promise.resolve({ data: { count: 0 } });
      },
    });
    assert.equal(
      codeOf(await executeTool(tool, { sort: 'created_at; DELETE FROM orders' }, testContext())),
      'INVALID_ARGUMENTS',
    );
    assert.equal(ran, false);
  });
});

describe('publicUrl', () => {
  const url = publicUrl();
  it('accepts public http(s) URLs and returns them normalized', () => {
    assert.equal(url.parse('HTTPS://Example.COM/a?b=1'), 'https://example.com/a?b=1');
    assert.equal(url.parse('http://8.8.8.8'), 'http://8.8.8.8/');
    assert.equal(url.parse('http://[2606:4700:4700::1111]/dns'), 'http://[2606:4700:4700::1111]/dns');
  });
  it('refuses private, loopback, link-local, unique-local and CGNAT addresses in every spelling the URL parser accepts', () => {
    const hostile = [
      'http://127.0.0.1/',
      'http://127.1/',
      'http://2130706433/',
      'http://0x7f.0.0.1/',
      'http://0x7f000001/',
      'http://017700000001/',
      'http://0177.0.0.1/',
      'http://0/',
      'http://0.0.0.0/',
      'http://10.1.2.3/',
      'http://172.16.0.1/',
      'http://192.168.1.1/',
      'http://100.64.0.1/',
      'http://169.254.169.254/latest/meta-data/',
      'http://[::1]/',
      'http://[::]/',
      'http://[::ffff:127.0.0.1]/',
      'http://[::ffff:7f00:1]/',
      'http://[::ffff:169.254.169.254]/',
      'http://[fd00::1]/',
      'http://[fe80::1]/',
      'http://[64:ff9b::a00:1]/',
      'http://[2002:a00:1::]/',
      'http://[2001:db8::1]/',
      'http://224.0.0.1/',
      'http://255.255.255.255/',
    ];
    for (const value of hostile) assert.equal(accepts(url, value), false, value);
  });
  it('refuses local and single-label names, other schemes and credentials', () => {
    const hostile = [
      'http://localhost/',
      'http://LOCALHOST./',
      'http://api.localhost/',
      'http://intranet/',
      'http://printer.local/',
      'http://metadata.google.internal/',
      'http://router.home.arpa/',
      'file:///etc/passwd',
      'gopher://example.com/',
      'javascript:alert(1)',
      'ftp://example.com/',
      'https://user:pass@example.com/',
      'https://example.com@127.0.0.1/',
      'not a url',
    ];
    for (const value of hostile) assert.equal(accepts(url, value), false, value);
  });
  it('refuses the host-local addresses of clouds and every non-global block of the IANA special-purpose registries', () => {
    const hostLocal = [
      '169.254.169.254',
      '169.254.170.2',
      '169.254.0.23',
      'fd00:ec2::254',
      'fd00:ec2::253', // AWS, GCP, Azure IMDS, ECS, Tencent; AWS IPv6
      '168.63.129.16',
      '::ffff:168.63.129.16',
      '64:ff9b::a83f:8110',
      '2002:a83f:8110::1', // Azure WireServer, in every IPv6 wrapping
      '100.100.100.200',
      '192.0.0.192',
      '161.26.0.10', // Alibaba, OCI (older), IBM Cloud service network
    ];
    const registries = [
      '0.0.0.0',
      '10.0.0.1',
      '100.64.0.1',
      '127.0.0.1',
      '172.16.0.1',
      '192.0.0.8',
      '192.0.2.1',
      '192.88.99.1',
      '192.168.0.1',
      '198.18.0.1',
      '198.51.100.1',
      '203.0.113.1',
      '240.0.0.1',
      '255.255.255.255',
      '224.0.0.251',
      '::',
      '::1',
      '::ffff:10.0.0.1',
      '64:ff9b:1::1',
      '100::1',
      '2001::1',
      '2001:2::1',
      '2001:10::1',
      '2001:db8::1',
      '3fff::1',
      '5f00::1',
      'fc00::1',
      'fe80::1',
      'fec0::1',
      'ff02::1',
    ];
    for (const address of [...hostLocal, ...registries]) {
      assert.equal(isPublicAddress(address), false, address);
      assert.equal(accepts(url, `http://${address.includes(':') ? `[${address}]` : address}/`), false, address);
    }
    // Control: their public neighbours pass.
    for (const address of ['168.63.129.17', '161.27.0.1', '100.128.0.1', '2600:1f18::1', '2606:4700::1'])
      assert.equal(isPublicAddress(address), true, address);
  });

  it('classifies resolved addresses the same way (for the fetch-time check)', () => {
    for (const address of ['8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808'])
      assert.equal(isPublicAddress(address), true, address);
    for (const address of [
      '127.0.0.1',
      '::1',
      '::ffff:10.0.0.1',
      'fe80::1%eth0',
      'fc00::1',
      '100.100.100.100',
      'not-an-ip',
    ])
      assert.equal(isPublicAddress(address), false, address);
  });
});

describe('shellFreeString', () => {
  const word = shellFreeString();
  it('accepts plain words, including non-ASCII letters', () => {
    for (const value of ['report-2026.csv', 'José_Ñúñez', 'key=value', 'path/to/file', 'user@example.com', '10%'])
      assert.equal(accepts(word, value), true, value);
  });
  it('refuses shell metacharacters, whitespace, control characters and option-like words', () => {
    const hostile = [
      'a b',
      'a;rm -rf /',
      'x && y',
      'a|b',
      '$(id)',
      '${HOME}',
      '`id`',
      "it's",
      '"q"',
      'a>b',
      'a<b',
      '*',
      'a?',
      '[a]',
      '{a,b}',
      '~root',
      '!1',
      '#c',
      'a\\b',
      'a\nb',
      'a\u0000',
      '-rf',
      '--output=/etc/x',
      '=ls',
      '',
    ];
    for (const value of hostile) assert.equal(accepts(word, value), false, JSON.stringify(value));
  });
});

describe("the helpers in a tool's input schema", () => {
  it('a hostile argument is INVALID_ARGUMENTS and the handler never runs', async () => {
    let runs = 0;
    const tool = defineTool({
      name: 'files.read',
      description: 'Read a file.',
      input: z.strictObject({
        path: safePath({ root: '/srv/files' }),
        mirror: publicUrl().optional(),
        tag: shellFreeString().optional(),
      }),
      output: z.strictObject({ path: z.string() }),
      effect: 'read',
      source: { label: 'files', type: 'filesystem' },
      handler: (args) => {
        runs += 1;
        return Promise.resolve({ data: { path: args.path } });
      },
    });
    const ctx = testContext();
    for (const args of [
      { path: '../../etc/shadow' },
      { path: 'a.txt', mirror: 'http://169.254.169.254/' },
      { path: 'a.txt', tag: '$(reboot)' },
    ]) {
      assert.equal(codeOf(await executeTool(tool, args, ctx)), 'INVALID_ARGUMENTS', JSON.stringify(args));
    }
    assert.equal(runs, 0);
    const ok = await executeTool(tool, { path: 'docs/a.txt' }, ctx);
    assert.deepEqual(ok.modelResult.data, { path: '/srv/files/docs/a.txt' });
  });
});
