// How the test suite runs its TypeScript: preloaded (`--import`, see testkit/run-typescript.ts) into every test file's
// process and every CLI and worker process a test starts. Node strips the types itself (erasable syntax only: the type
// check enforces `erasableSyntaxOnly`), so a stack trace points at the source's own lines. Two hooks, in the process's
// own thread:
// - resolve: the sources import each other as `./module.js` (what `tsc` emits); that name is found as `./module.ts`.
// - load: a source whose stripped form the test run already made (scripts/test-run/stripped-sources.mjs, into the
//   folder named by TTC_STRIPPED_SOURCES, one file per SHA-256 of the source) is handed over stripped. Stripping is
//   cheap, but each process would first compile Node's TypeScript parser (WebAssembly); with the folder, most never
//   do. A source the folder lacks (changed since, written by a test) is stripped by Node as usual.
// Plain JavaScript, because it is what makes TypeScript loadable.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
import process from 'node:process';

if (typeof registerHooks !== 'function' || !process.features.typescript)
  throw new Error(
    `the tests run their TypeScript with Node's own type stripping, which needs Node 22.18 or later (this is ${process.version})`,
  );

const strippedSources = process.env.TTC_STRIPPED_SOURCES;
const STRIPPED_FORMATS = { 'module-typescript': 'module', 'commonjs-typescript': 'commonjs' };

registerHooks({
  resolve(specifier, context, nextResolve) {
    if (specifier.endsWith('.js') && isOwnRelativeImport(specifier, context.parentURL)) {
      try {
        return nextResolve(`${specifier.slice(0, -'.js'.length)}.ts`, context);
      } catch (error) {
        if (error?.code !== 'ERR_MODULE_NOT_FOUND') throw error;
      }
    }
    return nextResolve(specifier, context);
  },
  load(url, context, nextLoad) {
    const loaded = nextLoad(url, context);
    const format = STRIPPED_FORMATS[loaded.format];
    if (strippedSources === undefined || format === undefined) return loaded;
    const digest = createHash('sha256').update(loaded.source).digest('hex');
    let stripped;
    try {
      stripped = readFileSync(`${strippedSources}/${digest}.js`);
    } catch {
      return loaded;
    }
    return { format, source: stripped, shortCircuit: true };
  },
});

/** A relative import from a module of this project (a package's own `./x.js` is JavaScript, and looked up once). */
function isOwnRelativeImport(specifier, parentURL) {
  return (
    (specifier.startsWith('./') || specifier.startsWith('../')) &&
    parentURL?.startsWith('file:') === true &&
    !parentURL.includes('/node_modules/')
  );
}
