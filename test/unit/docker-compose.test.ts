import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { test } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { parseCommand } from '../../src/cli/argv.js';
import { CLI_ENV } from '../../src/cli/cli-config.js';
import { DECISION_ENV } from '../../src/cli/decision-keys.js';
import { SEARCH_ATTRIBUTE_KEYS } from '../../src/wire/search-attributes.js';

// No Docker engine runs here: the compose file is parsed and checked against what the code expects.

type Node = Record<string, unknown>;

function object(value: unknown, what: string): Node {
  assert.ok(typeof value === 'object' && value !== null && !Array.isArray(value), `${what} is a mapping`);
  return value as Node;
}

function strings(value: unknown, what: string): string[] {
  assert.ok(Array.isArray(value) && value.every((item) => typeof item === 'string'), `${what} is a list of strings`);
  return value;
}

const compose = object(
  parseYaml(readFileSync(new URL('../../docker-compose.yml', import.meta.url), 'utf8')),
  'docker-compose.yml',
);
const services = object(compose['services'], 'services');
const service = (name: string): Node => object(services[name], `service ${name}`);
const env = (name: string): Node => object(service(name)['environment'], `${name}.environment`);
const dependsOn = (name: string): Node => {
  const value = service(name)['depends_on'];
  // The short form (a list) means "started"; normalise it to the long form.
  return Array.isArray(value)
    ? Object.fromEntries(strings(value, `${name}.depends_on`).map((dep) => [dep, { condition: 'service_started' }]))
    : object(value, `${name}.depends_on`);
};
const condition = (name: string, dep: string): unknown =>
  object(dependsOn(name)[dep], `${name}.depends_on.${dep}`)['condition'];

/** The services built from this repo (the CLI's image), not pulled. */
const BUILT = new Set(['migrate', 'worker']);

test('the stack has Postgres, the Temporal server, the UI, the search-attribute registration, the migrations and the worker', () => {
  assert.deepEqual(Object.keys(services).sort(), [
    'migrate',
    'postgres',
    'search-attributes',
    'temporal',
    'temporal-ui',
    'worker',
  ]);
});

test('every image tag is pinned (no latest, no floating tag) and the worker is built from the repo', () => {
  for (const [name, value] of Object.entries(services)) {
    const image = object(value, name)['image'];
    if (BUILT.has(name)) {
      assert.equal(image, undefined);
      assert.equal(object(service(name)['build'], `${name}.build`)['context'], '.');
      continue;
    }
    assert.equal(typeof image, 'string', `${name} has an image`);
    assert.match(String(image), /^[\w./-]+:\d+\.\d+(\.\d+)?[\w.-]*$/, `${name}: image pinned to a version`);
    assert.doesNotMatch(String(image), /:latest$/);
  }
});

/** Checks that a database URL points at the stack's Postgres and the package's database. */
function assertStackDatabase(value: unknown, what: string): URL {
  const url = new URL(String(value));
  assert.equal(url.protocol, 'postgres:');
  assert.equal(url.hostname, 'postgres');
  assert.equal(url.port, '5432');
  assert.equal(url.pathname, `/${String(env('postgres')['POSTGRES_DB'])}`, `${what} names the package's database`);
  return url;
}

test("the worker gets every environment variable the CLI reads but the owner's URL, pointing at the services of the stack", () => {
  const worker = env('worker');
  // The MCP endpoint's and the codec server's tokens are read by `mcp` and `codec-server`, and the operator's name by
  // `console`, which the stack does not run; the owner's URL only by the migrations.
  const notRun: readonly string[] = [CLI_ENV.mcpToken, CLI_ENV.codecToken, CLI_ENV.operator, CLI_ENV.databaseOwnerUrl];
  for (const name of Object.values(CLI_ENV).filter((name) => !notRun.includes(name)))
    assert.ok(name in worker, `worker sets ${name}`);
  assert.ok(!(CLI_ENV.databaseOwnerUrl in worker), "the worker never holds the owner's credentials");
  assert.equal(worker[CLI_ENV.temporalAddress], 'temporal:7233');
  assert.equal(worker[CLI_ENV.temporalNamespace], env('temporal')['DEFAULT_NAMESPACE']);
  assertStackDatabase(worker[CLI_ENV.databaseUrl], 'DATABASE_URL');
  assert.equal(
    env('migrate')[CLI_ENV.databaseSchema],
    worker[CLI_ENV.databaseSchema],
    'migrated where the worker looks',
  );
  // The principal key comes from the host's environment (empty: plain digests, and the worker warns).
  assert.equal(worker[CLI_ENV.principalKey], '${TTC_PRINCIPAL_KEY:-}');
  const command = strings(service('worker')['command'], 'worker.command');
  assert.deepEqual(command.slice(0, 4), ['node', '--import', 'tsx', 'src/cli/main.ts']);
  // The CLI accepts the arguments, and they run the (demo) worker.
  const parsed = parseCommand(command.slice(4));
  assert.equal(parsed.name, 'worker');
  assert.deepEqual(parsed.input, { json: false, source: { kind: 'demo' } });
});

test('the worker verifies decisions with keys the host must give: compose refuses to start without them', () => {
  // `${VAR:?message}`: compose stops with the message when the variable is unset or empty, before any container starts.
  assert.match(String(env('worker')[DECISION_ENV.verifyKeys]), /^\$\{TTC_DECISION_VERIFY_KEYS:\?.+\}$/);
  assert.ok(!(DECISION_ENV.signingKey in env('worker')), 'a worker never holds the signing key');
});

test('the migrations run once, as the owner, before the worker starts', () => {
  const migrate = env('migrate');
  const owner = assertStackDatabase(migrate[CLI_ENV.databaseOwnerUrl], 'DATABASE_OWNER_URL');
  const app = assertStackDatabase(migrate[CLI_ENV.databaseUrl], 'DATABASE_URL');
  assert.equal(
    app.href,
    new URL(String(env('worker')[CLI_ENV.databaseUrl])).href,
    'it grants the role the worker connects as',
  );
  assert.notEqual(owner.username, app.username);
  const command = strings(service('migrate')['command'], 'migrate.command');
  assert.deepEqual(command.slice(0, 4), ['node', '--import', 'tsx', 'src/cli/main.ts']);
  assert.equal(parseCommand(command.slice(4)).name, 'migrate');
  assert.equal(service('migrate')['restart'], 'no', 'the migrations are a one-shot');
  assert.equal(condition('migrate', 'postgres'), 'service_healthy');
  assert.equal(condition('worker', 'migrate'), 'service_completed_successfully');
});

test("the Temporal server and the UI use the stack's Postgres and server, on the usual ports", () => {
  const temporal = env('temporal');
  assert.equal(temporal['DB'], 'postgres12');
  assert.equal(temporal['POSTGRES_SEEDS'], 'postgres');
  assert.equal(temporal['POSTGRES_USER'], env('postgres')['POSTGRES_USER']);
  assert.equal(temporal['POSTGRES_PWD'], env('postgres')['POSTGRES_PASSWORD']);
  assert.equal(String(temporal['DB_PORT']), '5432');
  assert.deepEqual(strings(service('temporal')['ports'], 'temporal.ports'), ['7233:7233']);
  assert.deepEqual(strings(service('temporal-ui')['ports'], 'temporal-ui.ports'), ['8080:8080']);
  assert.equal(service('postgres')['ports'], undefined, 'Postgres is not published');
  assert.equal(env('temporal-ui')['TEMPORAL_ADDRESS'], 'temporal:7233');
});

test("every search attribute the package upserts is registered with its type, in the workflows' namespace", () => {
  const registration = env('search-attributes');
  const registered = String(registration['TTC_SEARCH_ATTRIBUTES']).trim().split(/\s+/).sort();
  assert.deepEqual(registered, SEARCH_ATTRIBUTE_KEYS.map(({ name, cliType }) => `${name}=${cliType}`).sort());
  assert.equal(registration['TEMPORAL_ADDRESS'], 'temporal:7233');
  assert.equal(registration['TEMPORAL_NAMESPACE'], env('worker')[CLI_ENV.temporalNamespace]);
  // Compose turns `$$` into a literal `$` for the shell.
  const script = strings(service('search-attributes')['command'], 'search-attributes.command')
    .join('\n')
    .replaceAll('$$', '$');
  assert.match(
    script,
    /temporal operator search-attribute create --address "\$TEMPORAL_ADDRESS" --namespace "\$TEMPORAL_NAMESPACE" --name "\$name" --type "\$type"/,
  );
  assert.match(script, /for pair in \$TTC_SEARCH_ATTRIBUTES/);
});

test('services start in order: Postgres healthy before Temporal, attributes registered before the worker', () => {
  assert.equal(condition('temporal', 'postgres'), 'service_healthy');
  assert.ok(object(service('postgres')['healthcheck'], 'postgres.healthcheck')['test'] !== undefined);
  assert.equal(condition('temporal-ui', 'temporal'), 'service_started');
  assert.equal(condition('search-attributes', 'temporal'), 'service_started');
  assert.equal(condition('worker', 'postgres'), 'service_healthy');
  assert.equal(condition('worker', 'search-attributes'), 'service_completed_successfully');
  assert.equal(service('search-attributes')['restart'], 'no', 'the registration is a one-shot');
});

test('the worker connects as an application role and the migrations as the owner: two roles the Postgres init script creates', () => {
  const postgres = env('postgres');
  const app = new URL(String(env('worker')[CLI_ENV.databaseUrl]));
  const owner = new URL(String(env('migrate')[CLI_ENV.databaseOwnerUrl]));
  assert.deepEqual([app.username, owner.username], ['ttc_app', 'ttc_owner']);
  assert.notEqual(app.username, postgres['POSTGRES_USER'], 'the worker is not the superuser');
  assert.equal(app.password, postgres['TTC_APP_PASSWORD']);
  assert.equal(owner.password, postgres['TTC_OWNER_PASSWORD']);

  const volumes = strings(service('postgres')['volumes'], 'postgres.volumes');
  const init = volumes.find((volume) => volume.endsWith(':/docker-entrypoint-initdb.d:ro'));
  assert.ok(init !== undefined, 'an init folder is mounted');
  const folder = new URL(`../../${init.split(':')[0]!.replace(/^\.\//, '')}/`, import.meta.url);
  const scripts = readdirSync(folder).filter((file) => file.endsWith('.sh'));
  assert.deepEqual(scripts, ['10-tool-contract-roles.sh']);
  const script = readFileSync(new URL(scripts[0]!, folder), 'utf8');
  assert.ok((statSync(new URL(scripts[0]!, folder)).mode & 0o111) !== 0, 'the init script is executable');
  // Each role logs in with the password the service's environment gives it, passed as a psql variable.
  assert.match(script, /-v owner_password="\$TTC_OWNER_PASSWORD" -v app_password="\$TTC_APP_PASSWORD"/);
  assert.match(script, new RegExp(`CREATE ROLE ${owner.username} LOGIN PASSWORD :'owner_password';`));
  assert.match(script, new RegExp(`CREATE ROLE ${app.username} LOGIN PASSWORD :'app_password';`));
  // The owner owns the database (and so, on Postgres 15+, its public schema); the application role is granted nothing here.
  assert.match(script, new RegExp(`ALTER DATABASE %I OWNER TO ${owner.username}`));
  assert.doesNotMatch(script, /GRANT|SUPERUSER|CREATEROLE/);
  assert.match(
    String(service('postgres')['image']),
    /^postgres:(1[5-9]|[2-9]\d)\./,
    'Postgres 15+ (public schema owned by the database owner, no CREATE for PUBLIC)',
  );
});
