// The pooler tier: runs store test files (default: test/integration/store) a second time with the application role
// connecting through PgBouncer in transaction mode, in front of one embedded Postgres that the owner (migrations,
// tests acting as the owner) reaches directly, as a deployment usually migrates. When pgbouncer is missing it fails
// in CI (CI=true) and is skipped, saying so, elsewhere — like every test that needs a service.
// Run from the repo root:  npm run pooler [-- <test files or folders>]
import { spawn } from 'node:child_process';
import { findPgBouncer, startPgBouncer } from '../test/support/pgbouncer.js';
import { startEmbeddedPostgres } from '../test/support/postgres.js';

if (findPgBouncer() === undefined && process.env['CI'] !== 'true') {
  console.log('# pooler tier skipped: pgbouncer is not installed (apt-get install pgbouncer); with CI=true this fails');
  process.exit(0);
}
const targets = process.argv.slice(2);
const server = await startEmbeddedPostgres('pooler');
let code = 1;
try {
  const bouncer = await startPgBouncer(server.connectionString);
  try {
    const env = { ...process.env, DATABASE_URL: bouncer.url, DATABASE_OWNER_URL: server.connectionString };
    const tests = spawn('scripts/run-tests.sh', targets.length > 0 ? targets : ['test/integration/store'], {
      stdio: 'inherit',
      env,
    });
    code = await new Promise<number>((resolve) => tests.once('exit', (exitCode) => resolve(exitCode ?? 1)));
    const { transactions, queries } = await bouncer.stats();
    console.log(`# through pgbouncer (transaction mode): ${transactions} transactions, ${queries} queries`);
    if (transactions === 0) {
      console.error('# nothing went through pgbouncer');
      code = 1;
    }
  } finally {
    await bouncer.stop();
  }
} finally {
  await server.dispose();
}
process.exit(code);
