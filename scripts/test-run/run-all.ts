// `npm test`: every check the project has, at once — the type check, the lint, every test file (the runner of
// run-tests.ts, which proves its count) and the store tests again through a pooler — because on a small machine most
// of a test's time is waiting, and run one after another they took over twice as long. The test files' output streams
// as they run; each other check's output is printed when it ends. Fails when any check fails, naming it.
//   node --import tsx scripts/test-run/run-all.ts
import { spawn } from 'node:child_process';
import { PROJECT_ROOT } from '../../testkit/project-root.js';
import { CHECKS, type Check } from './checks.js';

interface Outcome {
  readonly check: Check;
  readonly code: number;
  readonly seconds: number;
  readonly output: string;
}

function run(check: Check): Promise<Outcome> {
  const started = Date.now();
  const [command, ...args] = check.command as [string, ...string[]];
  const child = spawn(command, args, {
    cwd: PROJECT_ROOT,
    stdio: ['ignore', check.streams ? 'inherit' : 'pipe', check.streams ? 'inherit' : 'pipe'],
  });
  const chunks: Buffer[] = [];
  child.stdout?.on('data', (chunk: Buffer) => chunks.push(chunk));
  child.stderr?.on('data', (chunk: Buffer) => chunks.push(chunk));
  return new Promise((done) => {
    child.once('error', (error) => done({ check, code: 1, seconds: 0, output: String(error) }));
    child.once('exit', (code, signal) =>
      done({
        check,
        code: code ?? (signal === null ? 1 : 128),
        seconds: Math.round((Date.now() - started) / 1000),
        output: Buffer.concat(chunks).toString('utf8'),
      }),
    );
  });
}

const outcomes = await Promise.all(
  CHECKS.map(async (check) => {
    const outcome = await run(check);
    if (!check.streams)
      process.stdout.write(
        `\n# ${check.name}: ${outcome.code === 0 ? 'passed' : `FAILED (exit ${outcome.code})`} in ${outcome.seconds} s\n${outcome.output}`,
      );
    return outcome;
  }),
);
console.log(
  `\n# npm test: ${outcomes.map(({ check, code, seconds }) => `${check.name} ${code === 0 ? 'passed' : 'FAILED'} (${seconds} s)`).join(', ')}`,
);
process.exit(outcomes.some((outcome) => outcome.code !== 0) ? 1 : 0);
