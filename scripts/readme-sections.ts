// Keeps the generated sections of the README and docs/architecture.md true to the code: the error catalog table (from
// ERROR_CATALOG), the CLI usage (from the CLI's own help text), its exit codes (from EXIT_CODES) and the names of each
// entry point (from the sources) are rendered between marker comments. Run `npm run readme` after changing the catalog; test/unit/readme.test.ts fails when the
// committed README differs from a fresh rendering.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { exitCodeMeanings } from '../src/cli/cli-error.js';
import { USAGE } from '../src/cli/usage.js';
import { CATALOG_CODES, ERROR_CATALOG } from '../src/contract/error-catalog.js';
import { exportedNamesSection } from './exported-names.js';

export const README_PATH = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'README.md');
export const ARCHITECTURE_PATH = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'architecture.md');

/** The error catalog as a markdown table, one row per code in catalog order. */
export function errorCatalogTable(): string {
  const rows = CATALOG_CODES.map((code) => {
    const { category, outcome, recovery, retryable, message } = ERROR_CATALOG[code];
    return `| \`${code}\` | ${category} | ${outcome} | \`${recovery}\` | ${retryable ? 'yes' : 'no'} | ${message} |`;
  });
  return [
    '| code | category | side effect | recovery | retried | message the model sees |',
    '|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

/** The CLI's exit codes as a markdown table. */
export function exitCodeTable(): string {
  const rows = exitCodeMeanings().map(({ code, meaning }) => `| ${code} | ${meaning} |`);
  return ['| exit code | meaning |', '|---|---|', ...rows].join('\n');
}

type Sections = Readonly<Record<string, () => string>>;

const README_SECTIONS: Sections = {
  'error-catalog': errorCatalogTable,
  'cli-usage': () => ['```', USAGE, '```'].join('\n'),
  'exit-codes': exitCodeTable,
};

const ARCHITECTURE_SECTIONS: Sections = { 'exported-names': exportedNamesSection };

/** The README with every generated section re-rendered; throws when a section's markers are missing. */
export function renderReadme(readme: string): string {
  return renderSections(readme, README_SECTIONS, 'README.md');
}

/** docs/architecture.md with its list of exported names re-rendered. */
export function renderArchitecture(doc: string): string {
  return renderSections(doc, ARCHITECTURE_SECTIONS, 'docs/architecture.md');
}

function renderSections(document: string, sections: Sections, fileName: string): string {
  let text = document;
  for (const [name, render] of Object.entries(sections)) {
    const start = `<!-- generated:${name} -->`;
    const end = `<!-- /generated:${name} -->`;
    const from = text.indexOf(start);
    const to = text.indexOf(end);
    if (from < 0 || to < from) throw new Error(`${fileName} lacks the markers ${start} … ${end}`);
    text = `${text.slice(0, from + start.length)}\n${render()}\n${text.slice(to)}`;
  }
  return text;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  writeFileSync(README_PATH, renderReadme(readFileSync(README_PATH, 'utf8')));
  writeFileSync(ARCHITECTURE_PATH, renderArchitecture(readFileSync(ARCHITECTURE_PATH, 'utf8')));
}
