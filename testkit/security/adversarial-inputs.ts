// Worst inputs for every pattern that runs on text from outside: each one built to make its detector or rule do the
// most work per character (triggers everywhere, near-misses, runs that almost qualify). Shared by the linear-time
// test (test/unit/security/linear-time.test.ts) and the benchmark (bench/redaction.bench.ts).

/** One worst input: which pattern it attacks, and the text (built on demand, `size` characters). */
export interface AdversarialInput {
  readonly target: string;
  readonly name: string;
  readonly build: (size: number) => string;
}

/** `unit` repeated to exactly `size` characters, as a flat string (like one parsed from JSON). */
export function repeated(unit: string, size: number): string {
  const rope = unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
  return JSON.parse(JSON.stringify(rope)) as string;
}

const of = (target: string, units: readonly string[]): AdversarialInput[] =>
  units.map((unit) => ({
    target,
    name: JSON.stringify(unit.length > 40 ? `${unit.slice(0, 37)}...` : unit),
    build: (size: number) => repeated(unit, size),
  }));

/** Distinct names (`spell(i)` before a separator), so no verdict is remembered between them. */
function distinctNames(size: number, spell: (i: number) => string = (i) => `k${i.toString(36)}=`): string {
  const parts: string[] = [];
  for (let i = 0, length = 0; length < size; i++) {
    const part = spell(i);
    parts.push(part);
    length += part.length;
  }
  return parts.join('').slice(0, size);
}

/** `i` in CJK ideographs, a name that must be folded (NFKC, words of another script) before it is judged. */
const ideographs = (i: number) =>
  [...i.toString(36)].map((digit) => String.fromCharCode(0x4e00 + parseInt(digit, 36))).join('');

/** Inputs for `Redactor.text` (the secret catalog and protected values). */
export const REDACTION_INPUTS: readonly AdversarialInput[] = [
  ...of('prefixed tokens', [
    'sk-',
    'sk_',
    'sk-a1-',
    'sk-abcdefghijkl-',
    'ghp_',
    'github_pat_',
    'AIza-',
    'AKIA',
    'AKIAAAAAAAAAAAAAAAA ',
    'SK0123456789abcdef0123456789abcde ',
    'key-',
    '1//0',
    'hooks.slack.com/services/',
    'SG.',
    'xoxb-',
    'EAA',
    'dapi',
    'pul-',
    'dp.pt.',
    'A',
  ]),
  ...of('jwt', ['eyJ-', 'eyJ', 'eyJ_', 'eyJaaaaaaaaaa.x ', 'eyJaaaaaaaaaa.', 'eyJaaaaaaaaaa.eyJ', '.eyJ']),
  ...of('private key', ['-----BEGIN ', '-----BEGIN RSA PRIVATE KEY', '-', '-----END ', '-----BEGIN CERTIFICATE-----']),
  ...of('url credentials', ['://', 'a://a', 'a://a@', 'a://x:', 'a://:@', `a://${'a'.repeat(250)} `, 'a://ghp_@']),
  ...of('card numbers', [
    '4',
    '0',
    '4111 ',
    '1 ',
    '1-',
    '4111 1111 1111 1111 ',
    '3782 822463 ',
    '4111-1111-1111-111 ',
    '41111111111111112 ',
  ]),
  ...of('assignments', [
    'password=',
    'password ',
    'a:',
    'a=',
    'a = ',
    'bearer ',
    'Bearer x',
    'basic ',
    'basic dXNlcjpwYXNz ',
    'password:"',
    'password:\\"',
    'x-api-key: ',
    'a',
    'a.',
    '-',
    '?token=',
    '?',
    '&a=',
    'Authorization: Bearer ',
    'token: ',
    'cookie: ',
    '"password": {',
    `${'a'.repeat(64)}=`,
    `${'a'.repeat(65)}=`,
  ]),
  { target: 'assignments', name: 'distinct names', build: (size) => distinctNames(size) },
  ...of('assignments', ['ｐａｓｓｗｏｒｄ＝', 'contraseña: ', '密码：', 'é', '密', 'ñ=', 'ｐ']),
  {
    target: 'assignments',
    name: 'distinct ideograph names',
    build: (size) => distinctNames(size, (i) => `密${ideographs(i)}：`),
  },
  {
    target: 'assignments',
    name: 'distinct accented names',
    build: (size) => distinctNames(size, (i) => `ñ${i.toString(36)}=`),
  },
  ...of('protected values', [
    'idem-wf-42-call-000',
    'idem-wf-42-call-0001',
    'tenant-acme',
    'tenant-acm ',
    'x tenant-acme-',
  ]),
  ...of('mixed text', [
    'The quick brown fox jumps over the lazy dog. ',
    '{"id":"ord_1001","note":"ok","n":12},',
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJ',
  ]),
];

/** Inputs for `looksInstructional` (instruction signals in untrusted text). */
export const INSTRUCTION_INPUTS: readonly AdversarialInput[] = of('instruction signals', [
  '\n',
  ' \n',
  '<system ',
  '<',
  '</ ',
  'system\n',
  'system ',
  'ignore ',
  'ignore all your ',
  'ignore all all all all all all ',
  'use the a.',
  'use the ',
  'you ',
  'you are ',
  'do not tell ',
  'do not tell all all all all ',
  'new ',
  '\udb40',
  'The quick brown fox jumps over the lazy dog. ',
]);
