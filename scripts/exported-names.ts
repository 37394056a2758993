// The names each public entry point exports (package.json "exports"), read with the TypeScript compiler from the
// sources the entry points are built from: docs/architecture.md lists them (a generated section, `npm run readme`
// refreshes it), and its test fails when the list and the code disagree.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { PROJECT_ROOT } from '../testkit/project-root.js';

/** One entry point and the names it exports, sorted, values first. */
export interface EntryPointNames {
  readonly subpath: string;
  readonly values: readonly string[];
  readonly types: readonly string[];
}

/** Every public entry point with its exported names. */
export function exportedNames(): EntryPointNames[] {
  const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
    exports: Record<string, string | { types?: string }>;
  };
  const entries = Object.entries(pkg.exports).flatMap(([subpath, target]) =>
    typeof target === 'object' && target.types !== undefined
      ? [{ subpath, source: join(PROJECT_ROOT, target.types.replace(/^\.\/lib\//, '').replace(/\.d\.ts$/, '.ts')) }]
      : [],
  );
  const program = ts.createProgram(
    entries.map((entry) => entry.source),
    {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      noEmit: true,
      skipLibCheck: true,
    },
  );
  const checker = program.getTypeChecker();
  return entries.map(({ subpath, source }) => {
    const file = program.getSourceFile(source);
    const module = file === undefined ? undefined : checker.getSymbolAtLocation(file);
    const symbols = module === undefined ? [] : checker.getExportsOfModule(module);
    const isValue = (symbol: ts.Symbol) =>
      ((symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol).flags &
        ts.SymbolFlags.Value) !==
      0;
    const sorted = (list: ts.Symbol[]) => list.map((symbol) => symbol.name).sort((a, b) => a.localeCompare(b));
    return {
      subpath,
      values: sorted(symbols.filter(isValue)),
      types: sorted(symbols.filter((symbol) => !isValue(symbol))),
    };
  });
}

/** The list as markdown: one line per entry point, its count, its values, then its types. */
export function exportedNamesSection(): string {
  const lines = exportedNames().map(({ subpath, values, types }) => {
    const name = subpath === '.' ? '`temporal-tool-contract`' : `\`temporal-tool-contract/${subpath.slice(2)}\``;
    const list = (names: readonly string[]) => names.map((n) => `\`${n}\``).join(', ');
    return `- ${name} (${values.length + types.length}): ${list(values)}${types.length === 0 ? '' : `; types: ${list(types)}`}`;
  });
  return lines.join('\n');
}
