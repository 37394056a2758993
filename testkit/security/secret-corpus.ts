// The security corpus: fake secrets that must never reach a model, and benign look-alikes that must survive.
// A data module shared by the tests that use it — the redactor (test/unit/security/redaction-corpus.test.ts), the
// contract funnel with every placement (test/unit/security/placements.test.ts) — and the redaction benchmark.
//
// Every secret is fake: generated from a fixed seed in the vendor's published shape, most bodies starting with
// FAKE / fake / deadbeef so no reader mistakes one for a leak; card numbers are the networks' public test numbers.

/** One fake secret: what must be absent from model-visible output, and a realistic text that carries it. */
export interface FakeSecret {
  /** Catalog family it belongs to (the rule that should find it, or the context that gives it away). */
  readonly family: string;
  /** The secret itself; no part of it that identifies it may be shown. */
  readonly secret: string;
  /** A line of text in which it appears, as a tool result, page, log or error would carry it. */
  readonly carrier: string;
  /** Recognised on its own, by its format (else only its context — a name, a URL, a header — gives it away). */
  readonly standalone: boolean;
  /**
   * Field name a structured result would give it (`{ name, value }` placements). For a secret known only by its
   * context, a name the rules must recognise as secret.
   */
  readonly fieldName: string;
}

/** A string that looks like a secret but is not, and must come out unchanged. */
export interface BenignLookalike {
  readonly kind: string;
  readonly text: string;
}

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';
const ALNUM = UPPER + LOWER + DIGITS;
const HEX = '0123456789abcdef';
const B64URL = `${ALNUM}_-`;
const BASE32 = `${UPPER}234567`;

/** mulberry32: a tiny deterministic generator, so the corpus is identical on every run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const random = seeded(0x5ec2e75);

/** `length` characters from `alphabet`, starting with `marker` (cut to fit) and holding at least one digit. */
function body(alphabet: string, length: number, marker = ''): string {
  let out = marker.slice(0, length);
  while (out.length < length) out += alphabet[Math.floor(random() * alphabet.length)];
  return /\d/.test(out) || !/\d/.test(alphabet) ? out : `${out.slice(0, -1)}7`;
}

const CARRIERS = [
  (s: string) => `Found ${s} in the deploy log.`,
  (s: string) => `value: ${s}`,
  (s: string) => `("${s}")`,
  (s: string) => `<code>${s}</code>`,
  (s: string) => `rotated ${s}, see ticket 4411`,
  (s: string) => `${s}`,
];

let carrierIndex = 0;
function token(family: string, secret: string, fieldName = 'credential'): FakeSecret {
  const carrier = CARRIERS[carrierIndex++ % CARRIERS.length]!(secret);
  return { family, secret, carrier, standalone: true, fieldName };
}

/** A secret URL path: the scheme and host are not the secret, the path after them is. */
function webhook(secret: string): FakeSecret {
  return {
    family: 'slack_webhook',
    secret,
    carrier: `POST https://${secret} with the alert payload`,
    standalone: true,
    fieldName: 'webhook_secret',
  };
}

function inContext(family: string, secret: string, carrier: string, fieldName: string): FakeSecret {
  return { family, secret, carrier, standalone: false, fieldName };
}

function jwt(header: object, payload: object, signature: string): string {
  const encode = (value: object) =>
    btoa(JSON.stringify(value)).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
  return `${encode(header)}.${encode(payload)}.${signature}`;
}

function pem(label: string, lines: number): string {
  const rows = Array.from({ length: lines }, (_, i) => body(`${ALNUM}+/`, 64, i === 0 ? 'MIIFAKE' : ''));
  return `-----BEGIN ${label}-----\n${rows.join('\n')}\n-----END ${label}-----`;
}

const prefixed: FakeSecret[] = [
  token('aws_access_key_id', 'AKIAIOSFODNN7EXAMPLE', 'aws_access_key_id'),
  token('aws_access_key_id', `AKIA${body(BASE32, 16, 'FAKE')}`, 'aws_access_key_id'),
  token('aws_access_key_id', `ASIA${body(BASE32, 16, 'FAKE')}`, 'aws_access_key_id'),
  token('aws_access_key_id', `ASIA${body(BASE32, 16, 'TEMPFAKE')}`, 'aws_access_key_id'),
  token('github_token', `ghp_${body(ALNUM, 36, 'FAKE')}`, 'github_token'),
  token('github_token', `gho_${body(ALNUM, 36, 'FAKE')}`, 'github_token'),
  token('github_token', `ghu_${body(ALNUM, 36, 'FAKE')}`, 'github_token'),
  token('github_token', `ghs_${body(ALNUM, 36, 'FAKE')}`, 'github_token'),
  token('github_token', `ghr_${body(ALNUM, 76, 'FAKE')}`, 'github_token'),
  token('github_token', `github_pat_${body(ALNUM, 22, '11FAKE')}_${body(ALNUM, 59)}`, 'github_token'),
  token('gitlab_token', `glpat-${body(B64URL, 20, 'FAKE')}`, 'gitlab_token'),
  token('gitlab_token', `glpat-${body(B64URL, 26, 'FAKEv2')}`, 'gitlab_token'),
  token('slack_token', `xoxb-${body(DIGITS, 12)}-${body(DIGITS, 13)}-${body(ALNUM, 24, 'FAKE')}`, 'slack_bot_token'),
  token(
    'slack_token',
    `xoxp-${body(DIGITS, 12)}-${body(DIGITS, 12)}-${body(DIGITS, 13)}-${body(HEX, 32, 'deadbeef')}`,
    'slack_token',
  ),
  token('slack_token', `xoxa-2-${body(DIGITS, 12)}-${body(ALNUM, 24, 'FAKE')}`, 'slack_token'),
  token(
    'slack_token',
    `xapp-1-A${body(DIGITS, 10)}-${body(DIGITS, 13)}-${body(HEX, 64, 'deadbeef')}`,
    'slack_app_token',
  ),
  webhook(
    `hooks.slack.com/services/T${body(UPPER + DIGITS, 8)}/B${body(UPPER + DIGITS, 8)}/${body(ALNUM, 24, 'FAKE')}`,
  ),
  token('google_api_key', `AIza${body(B64URL, 35, 'SyFAKE')}`, 'google_api_key'),
  token('google_api_key', `AIza${body(B64URL, 35, 'FAKE')}`, 'maps_api_key'),
  token('google_oauth', `GOCSPX-${body(B64URL, 28, 'FAKE')}`, 'client_secret'),
  token('google_oauth', `ya29.${body(B64URL, 120, 'a0FAKE')}`, 'access_token'),
  token('sendgrid_api_key', `SG.${body(B64URL, 22, 'FAKE')}.${body(B64URL, 43)}`, 'sendgrid_api_key'),
  token('sendgrid_api_key', `SG.${body(B64URL, 22, 'fake')}.${body(B64URL, 43, 'FAKE')}`, 'sendgrid_api_key'),
  token('npm_token', `npm_${body(ALNUM, 36, 'FAKE')}`, 'npm_token'),
  token('npm_token', `npm_${body(ALNUM, 36, 'fake')}`, 'NPM_TOKEN'),
  token('openai_api_key', `sk-proj-${body(B64URL, 156, 'FAKE')}`, 'openai_api_key'),
  token('openai_api_key', `sk-svcacct-${body(B64URL, 156, 'FAKE')}`, 'openai_api_key'),
  token('openai_api_key', `sk-${body(ALNUM, 20, 'FAKE')}T3BlbkFJ${body(ALNUM, 20)}`, 'OPENAI_API_KEY'),
  token('anthropic_api_key', `sk-ant-api03-${body(B64URL, 93, 'FAKE')}AA`, 'anthropic_api_key'),
  token('anthropic_api_key', `sk-ant-api03-${body(B64URL, 93, 'fake')}AA`, 'x-api-key'),
  token('anthropic_api_key', `sk-ant-admin01-${body(B64URL, 93, 'FAKE')}AA`, 'admin_key'),
  token('stripe_secret_key', `sk_live_${body(ALNUM, 99, 'FAKE')}`, 'stripe_secret_key'),
  token('stripe_secret_key', `sk_test_${body(ALNUM, 24, 'FAKE')}`, 'stripe_key'),
  token('stripe_secret_key', `rk_live_${body(ALNUM, 24, 'FAKE')}`, 'restricted_key'),
  token('stripe_secret_key', `whsec_${body(ALNUM, 32, 'FAKE')}`, 'webhook_secret'),
  token('secret_key', `sk-${body(HEX, 32, 'deadbeef')}`, 'deepseek_api_key'),
  token('secret_key', `sk-or-v1-${body(HEX, 64, 'deadbeef')}`, 'openrouter_key'),
  token('secret_key', 'sk-live-9f8e7d6c5b4a39281706f5e4', 'api_key'),
  token('secret_key', `sk_${body(HEX, 48, 'deadbeef')}`, 'elevenlabs_key'),
  token('huggingface_token', `hf_${body(UPPER + LOWER, 34, 'FAKE')}`, 'hf_token'),
  token('huggingface_token', `hf_${body(ALNUM, 34, 'fake')}`, 'HUGGING_FACE_HUB_TOKEN'),
  token('digitalocean_token', `dop_v1_${body(HEX, 64, 'deadbeef')}`, 'do_token'),
  token('shopify_token', `shpat_${body(HEX, 32, 'deadbeef')}`, 'shopify_token'),
  token('shopify_token', `shpss_${body(HEX, 32, 'deadbeef')}`, 'shared_secret'),
  token('linear_api_key', `lin_api_${body(ALNUM, 40, 'FAKE')}`, 'linear_api_key'),
  token('databricks_token', `dapi${body(HEX, 32, 'deadbeef')}`, 'databricks_token'),
  token('pypi_token', `pypi-AgEIcHlwaS5vcmc${body(B64URL, 150, 'FAKE')}`, 'pypi_token'),
  token('docker_token', `dckr_pat_${body(B64URL, 27, 'FAKE')}`, 'docker_token'),
  token('doppler_token', `dp.pt.${body(ALNUM, 43, 'FAKE')}`, 'doppler_token'),
  token('vault_token', `hvs.${body(B64URL, 95, 'CAESIFAKE')}`, 'vault_token'),
  token('age_secret_key', `AGE-SECRET-KEY-1${body('QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L', 58)}`, 'age_key'),
  token('grafana_token', `glc_${body(B64URL, 40, 'FAKE')}`, 'grafana_token'),
  token('grafana_token', `glsa_${body(ALNUM, 32, 'FAKE')}_${body(HEX, 8)}`, 'grafana_token'),
  token('sentry_token', `sntrys_${body(B64URL, 60, 'eyJpYXQiFAKE')}`, 'sentry_auth_token'),
  token('newrelic_key', `NRAK-${body(UPPER + DIGITS, 27, 'FAKE')}`, 'new_relic_key'),
  token('postman_api_key', `PMAK-${body(HEX, 24, 'deadbeef')}-${body(HEX, 34)}`, 'postman_api_key'),
  token('pulumi_token', `pul-${body(HEX, 40, 'deadbeef')}`, 'pulumi_access_token'),
  token('flyio_token', `fo1_${body(B64URL, 43, 'FAKE')}`, 'fly_token'),
  token('tailscale_key', `tskey-auth-${body(ALNUM, 12, 'kFAKE')}-${body(ALNUM, 32)}`, 'tailscale_key'),
  token('supabase_key', `sbp_${body(HEX, 40, 'deadbeef')}`, 'supabase_key'),
  token('atlassian_token', `ATATT3${body(B64URL, 186, 'xFAKE')}`, 'jira_token'),
  token('heroku_key', `HRKU-AA${body(B64URL, 58, 'FAKE')}`, 'heroku_api_key'),
  token('onepassword_token', `ops_eyJ${body(B64URL, 250, 'zaWduSW5BZGRyZXNzIjoiFAKE')}`, 'op_service_account_token'),
  token('notion_token', `secret_${body(ALNUM, 43, 'FAKE')}`, 'notion_token'),
  token('notion_token', `ntn_${body(ALNUM, 46, 'FAKE')}`, 'notion_token'),
  token('twilio_api_key', `SK${body(HEX, 32, 'deadbeef')}`, 'twilio_api_key'),
  token('square_token', `sq0atp-${body(B64URL, 22, 'FAKE')}`, 'square_token'),
  token('meta_access_token', `EAAG${body(ALNUM, 120, 'FAKE')}`, 'fb_access_token'),
  token('mailgun_key', `key-${body(HEX, 32, 'deadbeef')}`, 'mailgun_api_key'),
  token('xai_api_key', `xai-${body(ALNUM, 80, 'FAKE')}`, 'xai_api_key'),
  token('groq_api_key', `gsk_${body(ALNUM, 52, 'FAKE')}`, 'groq_api_key'),
  token('replicate_token', `r8_${body(ALNUM, 37, 'FAKE')}`, 'replicate_api_token'),
  token('perplexity_api_key', `pplx-${body(ALNUM, 48, 'FAKE')}`, 'pplx_api_key'),
];

const structured: FakeSecret[] = [
  token(
    'jwt',
    jwt({ alg: 'HS256', typ: 'JWT' }, { sub: 'fake-user-1', role: 'admin', iat: 1764504000 }, body(B64URL, 43, 'FAKE')),
    'id_token',
  ),
  token(
    'jwt',
    jwt(
      { alg: 'RS256', kid: 'fake-key-2026' },
      { sub: 'svc', scope: 'orders:write', exp: 1764590400 },
      body(B64URL, 342, 'FAKE'),
    ),
    'access_token',
  ),
  token('jwt', jwt({ alg: 'none' }, { sub: 'fake', admin: true }, ''), 'session_token'),
  token(
    'jwt',
    `${jwt({ alg: 'RSA-OAEP', enc: 'A256GCM' }, { fake: 'cek' }, body(B64URL, 43, 'FAKE'))}.${body(B64URL, 16)}.${body(B64URL, 22)}`,
    'jwe',
  ),
  token(
    'jwt',
    jwt({ alg: 'ES256', typ: 'at+jwt' }, { iss: 'https://id.example.com', sub: 'fake-9' }, body(B64URL, 86, 'FAKE')),
    'bearer',
  ),
  token('private_key', pem('RSA PRIVATE KEY', 6), 'private_key'),
  token('private_key', pem('OPENSSH PRIVATE KEY', 4), 'ssh_key'),
  token('private_key', pem('EC PRIVATE KEY', 3), 'ec_key'),
  token('private_key', pem('PRIVATE KEY', 5), 'private_key'),
  token('private_key', pem('ENCRYPTED PRIVATE KEY', 5), 'tls_key'),
  token('private_key', pem('PGP PRIVATE KEY BLOCK', 5), 'pgp_key'),
];

const cards: FakeSecret[] = [
  '4111111111111111',
  '4242424242424242',
  '4000056655665556',
  '5555555555554444',
  '2223003122003222',
  '5105105105105100',
  '378282246310005',
  '371449635398431',
  '6011111111111117',
  '6011000990139424',
  '3530111333300000',
  '3566002020360505',
  '30569309025904',
  '6200000000000005',
  '4111 1111 1111 1111',
  '5555-5555-5555-4444',
  '3782 822463 10005',
  '4000 0025 0000 3155',
].map((number) => token('card_number', number, 'card'));

const FAKE_PASSWORDS = [
  'hunter2-correct-horse',
  'Tr0ub4dor&3-FAKE',
  'fake-P@ssw0rd!',
  'correct&horse%fake',
  's3cr3t-fake-42',
];
let passwordIndex = 0;
const password = () => `${FAKE_PASSWORDS[passwordIndex % FAKE_PASSWORDS.length]}${passwordIndex++}`;

function assigned(
  family: string,
  fieldName: string,
  render: (secret: string) => string,
  secret = password(),
): FakeSecret {
  return inContext(family, secret, render(secret), fieldName);
}

const assignments: FakeSecret[] = [
  assigned('secret_assignment', 'password', (s) => `password=${s}`),
  assigned('secret_assignment', 'PASSWORD', (s) => `PASSWORD: ${s}`),
  assigned('secret_assignment', 'db_password', (s) => `{"db_password": "${s}", "db_user": "app"}`),
  assigned('secret_assignment', 'dbPassword', (s) => `dbPassword = '${s}'`),
  assigned('secret_assignment', 'passwd', (s) => `passwd=${s}`),
  assigned('secret_assignment', 'pwd', (s) => `Server=db;Uid=app;Pwd=${s};`),
  assigned('secret_assignment', 'passphrase', (s) => `passphrase: "${s}"`),
  assigned('secret_assignment', 'client_secret', (s) => `client_secret=${s}`),
  assigned(
    'secret_assignment',
    'aws_secret_access_key',
    () => 'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  ),
  assigned(
    'secret_assignment',
    'AWS_SECRET_ACCESS_KEY',
    (s) => `export AWS_SECRET_ACCESS_KEY=${s}`,
    body(`${ALNUM}/+`, 40, 'FAKE'),
  ),
  assigned('secret_assignment', 'github_token', (s) => `github_token: ${s}`, body(ALNUM, 40, 'fake')),
  assigned('secret_assignment', 'auth_token', (s) => `auth_token=${s}`, body(ALNUM, 32, 'fake')),
  assigned('secret_assignment', 'x-auth-token', (s) => `x-auth-token: ${s}`, body(ALNUM, 32, 'fake')),
  assigned('secret_assignment', 'X-Api-Key', (s) => `X-Api-Key: ${s}`, body(ALNUM, 32, 'fake')),
  assigned('secret_assignment', 'api_key', (s) => `api_key => "${s}"`, body(HEX, 32, 'deadbeef')),
  assigned('secret_assignment', 'apiKey', (s) => `const config = { apiKey: "${s}" };`, body(ALNUM, 32, 'fake')),
  assigned('secret_assignment', 'session_id', (s) => `session_id=${s}; path=/`, body(HEX, 32, 'deadbeef')),
  assigned('secret_assignment', 'sessionToken', (s) => `sessionToken: ${s}`, body(ALNUM, 40, 'fake')),
  assigned('secret_assignment', 'cookie', (s) => `Cookie: theme=dark; ${s}`, `sid=${body(ALNUM, 32, 'fake')}`),
  assigned(
    'secret_assignment',
    'set-cookie',
    (s) => `Set-Cookie: ${s}; HttpOnly; Secure`,
    `__Host-session=${body(ALNUM, 32, 'fake')}`,
  ),
  assigned('secret_assignment', 'DB_PASS', (s) => `DB_PASS=${s}`),
  assigned('secret_assignment', 'smtp_password', (s) => `smtp_password := ${s}`),
  assigned('secret_assignment', 'secret', (s) => `"secret":"${s}"`, body(ALNUM, 24, 'fake')),
  assigned('secret_assignment', 'private_key_passphrase', (s) => `private_key_passphrase: ${s}`),
  assigned('secret_assignment', 'credentials', (s) => `credentials=${s}`, `app:${body(ALNUM, 20, 'fake')}`),
  assigned('secret_assignment', 'otp', (s) => `otp: ${s}`, '492817'),
  assigned('secret_assignment', 'pin', (s) => `pin=${s}`, '8841'),
  assigned('secret_assignment', 'escaped_json_password', (s) => `{\\"password\\":\\"${s}\\"}`),
  assigned('secret_assignment', 'password', (s) => `--password=${s}`),
  assigned('secret_assignment', 'signing_key', (s) => `signing_key: ${s}`, body(`${ALNUM}+/`, 44, 'FAKE')),
];

const urls: FakeSecret[] = [
  assigned('url_password', 'database_password', (s) => `postgres://admin:${s}@db.internal:5432/app`),
  assigned('url_password', 'mysql_password', (s) => `mysql://root:${s}@10.0.0.5/shop`),
  assigned(
    'url_password',
    'mongo_password',
    (s) => `mongodb+srv://app:${s}@cluster0.fake.mongodb.net/db?retryWrites=true`,
  ),
  assigned('url_password', 'redis_password', (s) => `redis://:${s}@cache:6379/0`),
  assigned('url_password', 'amqp_password', (s) => `amqp://guest:${s}@mq.local:5672/vhost`),
  assigned('url_password', 'intranet_password', (s) => `https://ann:${s}@intranet.example.com/reports`),
  assigned('url_password', 'ftp_password', (s) => `ftp://backup:${s}@ftp.example.com/dumps`),
  assigned(
    'url_password',
    'git_token',
    (s) => `https://x-access-token:${s}@github.com/acme/app.git`,
    `ghs_${body(ALNUM, 36, 'FAKE')}`,
  ),
  assigned(
    'url_password',
    'db_password',
    (s) => `postgresql://svc:${s}@db:5432/x?sslmode=require`,
    `p@ss:w0rd-${body(ALNUM, 8, 'fake')}`,
  ),
  assigned('url_token', 'git_token', (s) => `https://${s}@github.com/acme/app.git`, body(HEX, 40, 'deadbeef')),
  assigned(
    'url_query',
    'access_token',
    (s) => `https://api.example.com/v1/me?access_token=${s}`,
    body(ALNUM, 40, 'fake'),
  ),
  assigned('url_query', 'token', (s) => `GET /download?file=report.pdf&token=${s} HTTP/1.1`, body(ALNUM, 32, 'fake')),
  assigned(
    'url_query',
    'api_key',
    (s) => `https://api.weather.example/forecast?city=Oslo&api_key=${s}`,
    body(HEX, 32, 'deadbeef'),
  ),
  assigned(
    'url_query',
    'maps_api_key',
    (s) => `https://maps.example.com/geocode?address=Main+St&key=${s}`,
    body(B64URL, 39, 'FAKE'),
  ),
  assigned('url_query', 'password', (s) => `https://legacy.example.com/login?user=ann&password=${s}`),
  assigned(
    'url_query',
    'sas_signature',
    (s) => `https://acct.blob.core.windows.net/c/f.pdf?sv=2024-11-04&se=2026-12-01&sp=r&sig=${s}`,
    `${body(`${ALNUM}%`, 43, 'FAKE')}%3D`,
  ),
  assigned(
    'url_query',
    'X-Amz-Signature',
    (s) => `https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=${s}`,
    body(HEX, 64, 'deadbeef'),
  ),
  assigned(
    'url_query',
    'X-Amz-Credential',
    (s) => `https://b.s3.amazonaws.com/k?X-Amz-Credential=${s}&X-Amz-Date=20261201T000000Z`,
    `AKIA${body(BASE32, 16, 'FAKE')}%2F20261130%2Fus-east-1%2Fs3%2Faws4_request`,
  ),
  assigned(
    'url_query',
    'X-Amz-Security-Token',
    (s) => `https://b.s3.amazonaws.com/k?X-Amz-Security-Token=${s}`,
    body(`${ALNUM}%`, 120, 'FwoGZXIvYXdzEFAKE'),
  ),
  assigned(
    'url_query',
    'access_token',
    (s) => `https://app.example.com/callback#access_token=${s}&token_type=bearer`,
    body(ALNUM, 40, 'fake'),
  ),
  assigned(
    'url_query',
    'client_secret',
    (s) => `https://auth.example.com/token?client_id=app&client_secret=${s}`,
    body(ALNUM, 32, 'fake'),
  ),
];

const basicCredentials = btoa(`ann:${password()}`);

const headers: FakeSecret[] = [
  assigned('authorization', 'authorization', (s) => `Authorization: Bearer ${s}`, body(`${ALNUM}._-`, 48, 'fake')),
  assigned('authorization', 'authorization', (s) => `authorization: bearer ${s}`, body(ALNUM, 40, 'fake')),
  assigned(
    'authorization',
    'authorization',
    (s) => `curl -H "Authorization: Basic ${s}" https://api.example.com`,
    basicCredentials,
  ),
  assigned('authorization', 'authorization', (s) => `Authorization: Token ${s}`, body(HEX, 40, 'deadbeef')),
  assigned(
    'authorization',
    'proxy-authorization',
    (s) => `Proxy-Authorization: Basic ${s}`,
    btoa(`proxy:${password()}`),
  ),
  assigned(
    'bearer_token',
    'authorization',
    (s) => `Use bearer ${s} for the staging API.`,
    body(`${ALNUM}.-`, 32, 'fake'),
  ),
  assigned(
    'basic_auth',
    'authorization',
    (s) => `curl --header 'Basic ${s}' https://legacy.example.com`,
    btoa(`svc:${password()}`),
  ),
  assigned(
    'authorization',
    'authorization',
    (s) => `{"headers": {"Authorization": "Bearer ${s}"}}`,
    body(ALNUM, 40, 'fake'),
  ),
];

/** The fake secrets, by family and placement context (at least 150). */
export const FAKE_SECRETS: readonly FakeSecret[] = [
  ...prefixed,
  ...structured,
  ...cards,
  ...assignments,
  ...urls,
  ...headers,
];

const words = (kind: string, texts: readonly string[]): BenignLookalike[] => texts.map((text) => ({ kind, text }));

/** Benign look-alikes (at least 100): ids, hashes, encodings, numbers and prose that a careless rule would eat. */
export const BENIGN_LOOKALIKES: readonly BenignLookalike[] = [
  ...words('uuid', [
    '3f2b8c1e-9a4d-4c6b-8e2f-1a7d5b9c0e34',
    '00000000-0000-0000-0000-000000000000',
    'f47ac10b-58cc-4372-a567-0e02b2c3d479',
    'urn:uuid:6e8bc430-9c3a-11d9-9669-0800200c9a66',
  ]),
  ...words('git_sha', [
    '9fceb02d0ae598e95dc970b74767f19372d61af8',
    'commit 2b6f0cc904d137be2e1730235f5664094b831186',
    'a1b2c3d',
    'Merge 4e1243bd22c66e76c2ba9eddc1f91394e57f9f83 into main',
  ]),
  ...words('digest', [
    'sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    'md5 d41d8cd98f00b204e9800998ecf8427e',
    'etag "33a64df551425fcc55e4d42a148795d9f25f89d4"',
    'sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg==',
  ]),
  ...words('base64_image', [
    'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
    'data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7',
    'data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHdpZHRoPSIxIiBoZWlnaHQ9IjEiLz4=',
  ]),
  ...words('order_id', [
    'ord_1001',
    'ord_8f3k2j9x7m4n5p6q',
    'order #4471-2210',
    'cus_NffrFeUfNV2Hib',
    'pi_3MtwBwLkdIwHu7ix28a3tqPa',
    'inv_2026_000184',
    'ch_3LmJ8kLkdIwHu7ix0xD1',
  ]),
  ...words('sku', [
    'sk-1042',
    'SKU-8842-BLK-XL',
    'sk-red-shirt-large',
    'sk-learn-tutorial-for-beginners',
    'sk_2201',
    'item sk-0001 restocked',
  ]),
  ...words('field_like_text', [
    'sort_key',
    'token_count: 5',
    'max_tokens=4096',
    'tokens_used: 1832',
    'session_count=3',
    'author: Jane Doe',
    'authority: land registry',
    'primary_key=id',
    'public_key: see appendix',
    'password_updated_at: 2026-11-30',
    'auth_method: oauth',
    'has_password: true',
  ]),
  ...words('date_time', [
    '2026-11-30',
    '2026-11-30T12:00:00Z',
    '2026-11-30T12:00:00.000+01:00',
    '30/11/2026 12:00',
    'Mon, 30 Nov 2026 12:00:00 GMT',
  ]),
  ...words('phone', ['+1 415 555 0132', '(415) 555-0132', '+44 20 7946 0958', '+49 30 901820', '555-0100']),
  ...words('number', [
    '1764504000000',
    'ISBN 978-0-306-40615-7',
    '9780306406157',
    'tracking 1Z999AA10123456784',
    'IBAN GB82 WEST 1234 5698 7654 32',
    'order 4111111111111112',
    'invoice 9999999999999995',
    '1234 5678 9012 3456',
    'account 0001234567890123',
    '+1-202-555-0173',
    'v12.4.1',
  ]),
  ...words('url', [
    'https://example.com/orders/ord_1001?page=2&sort=desc',
    'https://docs.example.com/guide#section-token-limits',
    'postgres://db.internal:5432/app',
    'ssh://git@github.com/acme/app.git',
    'https://cdn.example.com/a/b/c.png?w=640&h=480',
    'mailto:support@example.com',
    'https://example.com/reset-password?step=2',
  ]),
  ...words('email', ['ann@example.com', 'billing+invoices@shop.example.org']),
  ...words('prose', [
    'Your password must be at least 12 characters long.',
    'Forgot password? Use the reset link we emailed you.',
    'The bearer of this letter is our courier.',
    'Authorization required: ask your admin for access.',
    'The token economy grew in 2026.',
    'Session expired. Please sign in again.',
    'Our basic plan includes 3 seats.',
    'Cookies help us remember your cart.',
    'The secret to great bread is time.',
    'Ignore the noise; focus on the signal.',
  ]),
  ...words('code', [
    'const key = map.get(id);',
    'if (token.length === 0) return;',
    'for (const session of sessions) count++;',
    'SELECT id, author FROM posts WHERE sort_key > 10;',
    'color: #1a2b3c;',
    '/usr/local/bin/node --max-old-space-size=4096',
  ]),
  ...words('public_material', [
    '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUFAKEcertificatebodyonly\n-----END CERTIFICATE-----',
    '-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEFAKEpublickeyonly\n-----END PUBLIC KEY-----',
    'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFAKEpublickeyonlyFAKEpublickeyonly ann@laptop',
    'pk_live_51FAKEpublishableKeyIsPublicByDesign0123',
    'pk_test_TYooMQauvdEDq54NiTphI7jx',
  ]),
  ...words('jwt_like', ['eyJhbGciOiJIUzI1NiJ9', 'eyJ0eXAiOiJKV1QifQ is a base64 JSON header', 'eyJ-eyJ-eyJ-eyJ']),
  ...words('random_ids', [
    'req_8f14e45fceea167a5a36dedd4bea2543',
    'trace-id 4bf92f3577b34da6a3ce929d0e0e4736',
    'AKIAK is not a key',
    'ASIA PACIFIC REGION',
    'xoxb is a slack prefix',
    'ghp_ is the GitHub prefix',
    'the SG. prefix',
    'AIza prefix alone',
  ]),
];

/** Names whose values are secrets, in the spellings tools and services actually use. */
export const SECRET_FIELD_NAMES = [
  'password',
  'Password',
  'db_password',
  'dbPassword',
  'DB_PASSWORD',
  'mysql-root-password',
  'passwd',
  'pwd',
  'passphrase',
  'private_key_passphrase',
  'db_pass',
  'SMTP_PASS',
  'secret',
  'client_secret',
  'clientSecret',
  'aws_secret_access_key',
  'AWS_SECRET_ACCESS_KEY',
  'token',
  'github_token',
  'GITHUB_TOKEN',
  'auth_token',
  'x-auth-token',
  'X-Auth-Token',
  'accessToken',
  'refresh_token',
  'id_token',
  'oauth2Token',
  'csrf_token',
  'x-csrf-token',
  'XSRF-TOKEN',
  'api_key',
  'apiKey',
  'APIKey',
  'x-api-key',
  'X-API-KEY',
  'apikey',
  'private_key',
  'privateKey',
  'access_key',
  'secret_key',
  'AccountKey',
  'signing_key',
  'ssh_key',
  'encryption_key',
  'credential',
  'credentials',
  'creds',
  'auth',
  'authorization',
  'Proxy-Authorization',
  'authentication',
  'cookie',
  'Set-Cookie',
  'cookies',
  'session',
  'session_id',
  'sessionId',
  'JSESSIONID',
  'session_key',
  'jwt',
  'bearer',
  'signature',
  'X-Amz-Signature',
  'X-Amz-Credential',
  'X-Amz-Security-Token',
  'sig',
  'otp',
  'totp_secret',
  'mfa_code',
  'pin',
  'card_pin',
  'cvv',
  'cvc',
  'security_code',
  'recovery_codes',
  'connection_string',
  'webhook_secret',
  'stripe.secret',
  'config.db.password',
  'ssn',
  // The package's own control fields (exact names).
  'idempotency_key',
  'operation_id',
  'request_sha256',
  'result_sha256',
  'call_binding_sha256',
  'principal_ref',
  // Other widths, scripts and languages (compared after NFKC and lower-casing).
  'ｐａｓｓｗｏｒｄ',
  'ＡＰＩ＿ＫＥＹ',
  'Ｓｅｃｒｅｔ',
  'ᵖᵃˢˢʷᵒʳᵈ',
  'contraseña',
  'Contraseña_Usuario',
  'contrasena',
  'Passwort',
  'db_kennwort',
  'mot_de_passe',
  'motDePasse',
  'senha',
  'wachtwoord',
  'salasana',
  'hasło',
  'heslo',
  'şifre',
  'jelszó',
  'lösenord',
  'passord',
  'пароль',
  'ПАРОЛЬ',
  'мойПароль',
  'api_ключ',
  'токен',
  'סיסמה',
  'पासवर्ड',
  '密码',
  '用户密码',
  '密碼',
  '令牌',
  '访问令牌',
  'パスワード',
  'アクセストークン',
  '비밀번호',
  '토큰',
];

/** Names that sound secret but are metadata, counts or ordinary words: their values stay. */
export const BENIGN_FIELD_NAMES = [
  'token_count',
  'max_tokens',
  'maxTokens',
  'tokens',
  'tokens_used',
  'input_tokens',
  'output_tokens',
  'total_tokens',
  'token_limit',
  'token_type',
  'tokenizer',
  'sort_key',
  'sortKey',
  'primary_key',
  'foreign_key',
  'partition_key',
  'cache_key',
  'object_key',
  'public_key',
  'publicKey',
  'key',
  'key_id',
  'keyId',
  'author',
  'authors',
  'authority',
  'authored_at',
  'session_count',
  'sessions',
  'session_timeout',
  'session_duration',
  'password_updated_at',
  'password_expires_at',
  'password_policy',
  'password_strength',
  'password_required',
  'has_password',
  'is_authenticated',
  'auth_method',
  'auth_type',
  'auth_provider',
  'auth_url',
  'token_url',
  'token_endpoint',
  'secret_name',
  'secretName',
  'secret_version',
  'signature_algorithm',
  'signature_version',
  'cookie_consent',
  'credential_type',
  'pass',
  'passed',
  'passenger',
  'passport_country',
  'bypass',
  'compass',
  'pinned',
  'spin',
  'pinyin',
  'opinion',
  'signal',
  'design',
  'description',
  'id',
  'name',
  'status',
  'secretary',
  'keyboard',
  'monkey',
  'turkey',
  // Other widths, scripts and languages.
  'ｔｏｋｅｎ＿ｃｏｕｎｔ',
  'has_contraseña',
  'contraseña_updated_at',
  'café',
  'señal',
  'resenha',
  'pasaporte',
  'Straße',
  'имя',
  'статус',
  '名前',
  '用户名',
  '東京',
  '상태',
  'clé_publique',
];
