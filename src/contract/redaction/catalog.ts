import { ALNUM, DOTTED_TOKEN, HEX, TOKEN, UPPER_DIGIT, URL_PATH_TOKEN, WORD, type CharClass } from './char-class.js';

/**
 * Version of everything in this file: the secret formats and the vocabulary of secret field names. The funnel records
 * it as the redaction layer's rule version, so an audit says which catalog judged a result. Bump it with every change.
 *
 * Sources reviewed for formats: secretlint's recommended preset (AWS, GCP, GitHub, npm, Slack, SendGrid, Shopify,
 * OpenAI, Anthropic, Linear, 1Password, private keys, basic auth, database connection strings) and gitleaks' default
 * rules (prefixed tokens of common SaaS APIs). Formats are written here from the vendors' published shapes.
 */
export const SECRET_CATALOG_VERSION = 'secrets@3';

/** A credential recognised by a fixed prefix followed by a body of one character class. */
export interface TokenFamily {
  /** Stable id, recorded in the audit as `secret_pattern:<rule>`. */
  readonly rule: string;
  readonly prefixes: readonly string[];
  readonly body: CharClass;
  /** Fewest body characters that make it a credential (real tokens are longer; shorter text is left alone). */
  readonly minBody: number;
  /** The body is exactly this long and ends there (formats of fixed length, whose prefix alone is weak). */
  readonly exactBody?: number;
  /** A weak prefix: the body must also hold a random-looking part (see `looksRandom`). */
  readonly randomBody?: boolean;
}

/**
 * Prefixed credentials. Stripe publishable keys (`pk_live_`, `pk_test_`) are absent on purpose: they are public by
 * design (embedded in every checkout page), and hiding them would only break tools that return client configuration.
 */
export const TOKEN_FAMILIES: readonly TokenFamily[] = [
  {
    rule: 'aws_access_key_id',
    prefixes: ['AKIA', 'ASIA', 'ABIA', 'ACCA'],
    body: UPPER_DIGIT,
    minBody: 16,
    exactBody: 16,
  },
  { rule: 'github_token', prefixes: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'], body: ALNUM, minBody: 30 },
  { rule: 'github_token', prefixes: ['github_pat_'], body: WORD, minBody: 30 },
  {
    rule: 'gitlab_token',
    prefixes: ['glpat-', 'gldt-', 'glrt-', 'glptt-', 'glft-', 'glsoat-', 'glcbt-', 'gloas-'],
    body: TOKEN,
    minBody: 20,
  },
  {
    rule: 'slack_token',
    prefixes: ['xoxb-', 'xoxp-', 'xoxa-', 'xoxo-', 'xoxs-', 'xoxr-', 'xoxe-', 'xoxe.xoxp-', 'xapp-'],
    body: TOKEN,
    minBody: 20,
  },
  {
    rule: 'slack_webhook',
    prefixes: ['hooks.slack.com/services/', 'hooks.slack.com/workflows/'],
    body: URL_PATH_TOKEN,
    minBody: 20,
  },
  { rule: 'google_api_key', prefixes: ['AIza'], body: TOKEN, minBody: 35 },
  { rule: 'google_oauth', prefixes: ['GOCSPX-', 'ya29.', '1//0'], body: DOTTED_TOKEN, minBody: 20 },
  { rule: 'sendgrid_api_key', prefixes: ['SG.'], body: DOTTED_TOKEN, minBody: 40 },
  { rule: 'npm_token', prefixes: ['npm_'], body: ALNUM, minBody: 30 },
  { rule: 'openai_api_key', prefixes: ['sk-proj-', 'sk-svcacct-', 'sk-admin-', 'sk-None-'], body: TOKEN, minBody: 20 },
  { rule: 'anthropic_api_key', prefixes: ['sk-ant-'], body: TOKEN, minBody: 20 },
  {
    rule: 'stripe_secret_key',
    prefixes: ['sk_live_', 'sk_test_', 'rk_live_', 'rk_test_', 'whsec_'],
    body: ALNUM,
    minBody: 16,
  },
  // A live/test label after `sk-` marks a secret key as plainly as Stripe's underscores do.
  { rule: 'secret_key', prefixes: ['sk-live-', 'sk-test-', 'rk-live-', 'rk-test-'], body: TOKEN, minBody: 16 },
  // `sk-`/`sk_` alone name secret keys at many vendors (legacy OpenAI, DeepSeek, OpenRouter, ElevenLabs…); SKUs and
  // slugs share the prefix, so the body must look random.
  { rule: 'secret_key', prefixes: ['sk-', 'sk_'], body: TOKEN, minBody: 16, randomBody: true },
  { rule: 'huggingface_token', prefixes: ['hf_', 'api_org_'], body: ALNUM, minBody: 30 },
  { rule: 'digitalocean_token', prefixes: ['dop_v1_', 'doo_v1_', 'dor_v1_'], body: HEX, minBody: 40 },
  { rule: 'shopify_token', prefixes: ['shpat_', 'shpca_', 'shppa_', 'shpss_'], body: HEX, minBody: 20 },
  { rule: 'linear_api_key', prefixes: ['lin_api_', 'lin_oauth_'], body: ALNUM, minBody: 30 },
  { rule: 'databricks_token', prefixes: ['dapi'], body: HEX, minBody: 32 },
  { rule: 'pypi_token', prefixes: ['pypi-AgEIcHlwaS5vcmc', 'pypi-AgENdGVzdC5weXBpLm9yZw'], body: TOKEN, minBody: 30 },
  { rule: 'docker_token', prefixes: ['dckr_pat_', 'dckr_oat_'], body: TOKEN, minBody: 20 },
  {
    rule: 'doppler_token',
    prefixes: ['dp.pt.', 'dp.st.', 'dp.ct.', 'dp.sa.', 'dp.scim.', 'dp.audit.'],
    body: ALNUM,
    minBody: 30,
  },
  { rule: 'vault_token', prefixes: ['hvs.', 'hvb.', 'hvr.'], body: TOKEN, minBody: 24 },
  { rule: 'age_secret_key', prefixes: ['AGE-SECRET-KEY-1'], body: UPPER_DIGIT, minBody: 50 },
  { rule: 'grafana_token', prefixes: ['glc_', 'glsa_', 'eyJrIjoi'], body: TOKEN, minBody: 32 },
  { rule: 'sentry_token', prefixes: ['sntrys_', 'sntryu_'], body: TOKEN, minBody: 30 },
  { rule: 'newrelic_key', prefixes: ['NRAK-', 'NRII-'], body: UPPER_DIGIT, minBody: 20 },
  { rule: 'postman_api_key', prefixes: ['PMAK-'], body: TOKEN, minBody: 30 },
  { rule: 'pulumi_token', prefixes: ['pul-'], body: HEX, minBody: 40 },
  { rule: 'flyio_token', prefixes: ['fo1_', 'fm1r_', 'fm1a_', 'fm2_'], body: TOKEN, minBody: 30 },
  { rule: 'tailscale_key', prefixes: ['tskey-'], body: TOKEN, minBody: 20 },
  { rule: 'supabase_key', prefixes: ['sbp_', 'sb_secret_'], body: TOKEN, minBody: 20 },
  { rule: 'atlassian_token', prefixes: ['ATATT3'], body: TOKEN, minBody: 40 },
  { rule: 'heroku_key', prefixes: ['HRKU-'], body: TOKEN, minBody: 30 },
  { rule: 'onepassword_token', prefixes: ['ops_eyJ'], body: TOKEN, minBody: 50 },
  { rule: 'notion_token', prefixes: ['secret_', 'ntn_'], body: ALNUM, minBody: 40 },
  { rule: 'twilio_api_key', prefixes: ['SK'], body: HEX, minBody: 32, exactBody: 32 },
  { rule: 'square_token', prefixes: ['sq0atp-', 'sq0csp-'], body: TOKEN, minBody: 22 },
  { rule: 'meta_access_token', prefixes: ['EAA'], body: ALNUM, minBody: 60 },
  { rule: 'mailgun_key', prefixes: ['key-'], body: HEX, minBody: 32, exactBody: 32 },
  { rule: 'xai_api_key', prefixes: ['xai-'], body: ALNUM, minBody: 40 },
  { rule: 'groq_api_key', prefixes: ['gsk_'], body: ALNUM, minBody: 40 },
  { rule: 'replicate_token', prefixes: ['r8_'], body: ALNUM, minBody: 30 },
  { rule: 'perplexity_api_key', prefixes: ['pplx-'], body: ALNUM, minBody: 40 },
];

/**
 * Words that make a field name secret when they are one of its tokens (`db_password`, `x-auth-token`, `sessionId`).
 * Plurals such as `tokens` or `sessions` are absent on purpose: they name counts and lists (`max_tokens`,
 * `tokens_used`); the secrets inside a list are still caught by their own field names.
 */
export const SECRET_NAME_WORDS: readonly string[] = [
  'password',
  'passwd',
  'pwd',
  'passphrase',
  'passcode',
  'secret',
  'secrets',
  'token',
  'credential',
  'credentials',
  'creds',
  'auth',
  'authorization',
  'authentication',
  'cookie',
  'cookies',
  'session',
  'sessionid',
  'jwt',
  'bearer',
  'apikey',
  'privatekey',
  'secretkey',
  'accesskey',
  'signature',
  'sig',
  'otp',
  'totp',
  'pin',
  'cvv',
  'cvc',
  'cvv2',
  'csrf',
  'xsrf',
  'mfa',
  // "password" in other languages, as written in ASCII (German, Spanish without its tilde, Portuguese, Dutch,
  // Finnish, Czech, Polish, Turkish, Hungarian and Swedish without their accents, Norwegian, Danish, French in one word).
  'passwort',
  'kennwort',
  'contrasena',
  'senha',
  'wachtwoord',
  'salasana',
  'heslo',
  'haslo',
  'sifre',
  'jelszo',
  'losenord',
  'passord',
  'adgangskode',
  'motdepasse',
];

/**
 * Secret words written in other scripts or with letters outside ASCII, and the English word they are judged as. A
 * name is compared after NFKC normalization (full-width `ｐａｓｓｗｏｒｄ` is `password`) and lower-casing; a word of
 * the name that is one of these keys counts as its English word (`contraseña_usuario` as `password_usuario`), and in
 * scripts written without spaces (Chinese, Japanese, Korean) a key anywhere in a word does (`用户密码`).
 */
export const FOREIGN_SECRET_WORDS: Readonly<Record<string, string>> = {
  contraseña: 'password',
  hasło: 'password',
  şifre: 'password',
  jelszó: 'password',
  lösenord: 'password',
  пароль: 'password',
  токен: 'token',
  секрет: 'secret',
  ключ: 'key',
  schlüssel: 'key',
  clé: 'key',
  סיסמה: 'password',
  पासवर्ड: 'password',
  密码: 'password',
  密碼: 'password',
  口令: 'password',
  令牌: 'token',
  密钥: 'secretkey',
  秘钥: 'secretkey',
  金鑰: 'secretkey',
  パスワード: 'password',
  トークン: 'token',
  秘密鍵: 'privatekey',
  シークレット: 'secret',
  비밀번호: 'password',
  암호: 'password',
  토큰: 'token',
};

/**
 * Words that make a name secret also at the end of a single unsplit token (`accesstoken`, `dbpassword`,
 * `setcookie`), where the camelCase or separators that would split it are missing.
 */
export const SECRET_NAME_SUFFIXES: readonly string[] = [
  'password',
  'passwd',
  'passphrase',
  'secret',
  'token',
  'apikey',
  'privatekey',
  'secretkey',
  'accesskey',
  'credential',
  'credentials',
  'cookie',
  'sessionid',
  'signature',
  'authorization',
  'passwort',
  'kennwort',
  'contrasena',
  'wachtwoord',
  'motdepasse',
];

/** Two adjacent tokens that name a secret together though neither does alone (`api_key`, `AccountKey`). */
export const SECRET_NAME_PAIRS: readonly (readonly [string, string])[] = [
  ['api', 'key'],
  ['private', 'key'],
  ['access', 'key'],
  ['secret', 'key'],
  ['master', 'key'],
  ['encryption', 'key'],
  ['signing', 'key'],
  ['account', 'key'],
  ['shared', 'key'],
  ['session', 'key'],
  ['auth', 'key'],
  ['client', 'key'],
  ['ssh', 'key'],
  ['deploy', 'key'],
  ['license', 'key'],
  ['security', 'code'],
  ['recovery', 'code'],
  ['recovery', 'codes'],
  ['backup', 'codes'],
  ['verification', 'code'],
  ['connection', 'string'],
  // French `mot de passe` (`mot_de_passe`, `motDePasse`).
  ['de', 'passe'],
];

/** Tokens that name a secret only after another token: `db_pass`, `smtp_pass` (but not `pass` alone, a test result). */
export const SECRET_NAME_TAIL_ONLY: readonly string[] = ['pass'];

/**
 * Last tokens that turn a secret-sounding name into metadata about the secret: `token_count`, `password_updated_at`,
 * `auth_method`, `secret_name`, `session_timeout`. Tails that could carry the secret itself (`hint`, `prefix`,
 * `header`, `value`, `id`) are deliberately absent.
 */
export const NAME_METADATA_TAILS: readonly string[] = [
  'count',
  'counts',
  'length',
  'len',
  'size',
  'limit',
  'limits',
  'max',
  'min',
  'total',
  'used',
  'usage',
  'type',
  'types',
  'kind',
  'name',
  'names',
  'url',
  'uri',
  'urls',
  'endpoint',
  'endpoints',
  'path',
  'file',
  'filename',
  'expires',
  'expiry',
  'expiration',
  'exp',
  'ttl',
  'at',
  'time',
  'timestamp',
  'date',
  'version',
  'format',
  'policy',
  'provider',
  'method',
  'methods',
  'required',
  'enabled',
  'disabled',
  'status',
  'strength',
  'rotation',
  'algorithm',
  'alg',
  'scheme',
  'scope',
  'scopes',
  'label',
  'description',
  'mode',
  'level',
  'duration',
  'timeout',
  'state',
  'index',
  'consent',
  'source',
];

/** First tokens of boolean flags about a secret (`has_password`, `is_authenticated`), which are not the secret. */
export const NAME_FLAG_HEADS: readonly string[] = ['is', 'has'];

/** Extra names that carry credentials as URL query parameters only (`?key=AIza…` but a JSON `key` is a lookup key). */
export const URL_SECRET_PARAMS: readonly string[] = ['key', 'code', 'sas'];

/** Field names that label the entry of a name/value pair list (`{ name: 'X-Api-Key', value: … }`). */
export const PAIR_LABEL_FIELDS: readonly string[] = [
  'name',
  'key',
  'header',
  'field',
  'param',
  'parameter',
  'label',
  'variable',
  'var',
  'property',
  'setting',
];

/** Field names that hold the entry's value in such a pair. */
export const PAIR_VALUE_FIELDS: readonly string[] = [
  'value',
  'values',
  'val',
  'content',
  'default',
  'defaultvalue',
  'currentvalue',
  'secretvalue',
];

/**
 * HTTP authentication schemes: after one of these, a secret-named value keeps the scheme and hides the credentials
 * (`Authorization: Bearer [REDACTED]`).
 */
export const AUTH_SCHEMES: readonly string[] = [
  'bearer',
  'basic',
  'token',
  'digest',
  'negotiate',
  'ntlm',
  'apikey',
  'bot',
  'oauth',
  'dpop',
  'hawk',
  'aws4-hmac-sha256',
  'sharedkey',
  'splunk',
  'sso-key',
];

/** A payment card brand: the IIN range (compared on the first `digits` digits) and the lengths it issues. */
export interface CardBrand {
  readonly digits: number;
  readonly from: number;
  readonly to: number;
  readonly lengths: readonly number[];
}

const LONG = [16, 17, 18, 19];

/** Issuer ranges of the major networks; a Luhn-valid number outside them (an order id, a timestamp) is kept. */
export const CARD_BRANDS: readonly CardBrand[] = [
  { digits: 1, from: 4, to: 4, lengths: [13, 16, 19] }, // Visa
  { digits: 2, from: 51, to: 55, lengths: [16] }, // Mastercard
  { digits: 4, from: 2221, to: 2720, lengths: [16] }, // Mastercard 2-series
  { digits: 2, from: 34, to: 34, lengths: [15] }, // American Express
  { digits: 2, from: 37, to: 37, lengths: [15] },
  { digits: 4, from: 6011, to: 6011, lengths: LONG }, // Discover
  { digits: 3, from: 644, to: 649, lengths: LONG },
  { digits: 2, from: 65, to: 65, lengths: LONG },
  { digits: 2, from: 62, to: 62, lengths: LONG }, // UnionPay
  { digits: 4, from: 3528, to: 3589, lengths: LONG }, // JCB
  { digits: 3, from: 300, to: 305, lengths: [14, ...LONG] }, // Diners Club
  { digits: 2, from: 36, to: 36, lengths: [14, ...LONG] },
  { digits: 2, from: 38, to: 39, lengths: [16, 17, 18, 19] },
  { digits: 4, from: 2200, to: 2204, lengths: LONG }, // Mir
  { digits: 2, from: 50, to: 50, lengths: [13, 14, 15, ...LONG] }, // Maestro
  { digits: 2, from: 56, to: 58, lengths: [13, 14, 15, ...LONG] },
  { digits: 2, from: 67, to: 67, lengths: [13, 14, 15, ...LONG] },
];
