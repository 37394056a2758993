// Dependencies run one way (STYLE.md): no value import cycle among the package's sources. A cycle makes module
// initialisation order matter, and in the workflow sandbox it can leave a binding undefined at first use. Type-only
// imports are erased by the compiler, so they are allowed to point back.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';
import { PROJECT_ROOT } from '../../testkit/project-root.js';

const SOURCE_ROOTS = ['src', 'activities', 'workflows'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The relative modules a file imports or re-exports as values. */
function valueImports(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const targets: string[] = [];
  for (const statement of source.statements) {
    let specifier: ts.Expression | undefined;
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      const onlyTypes =
        clause?.isTypeOnly === true ||
        (clause !== undefined &&
          clause.name === undefined &&
          clause.namedBindings !== undefined &&
          ts.isNamedImports(clause.namedBindings) &&
          clause.namedBindings.elements.length > 0 &&
          clause.namedBindings.elements.every((e) => e.isTypeOnly));
      if (!onlyTypes) specifier = statement.moduleSpecifier;
    } else if (ts.isExportDeclaration(statement) && !statement.isTypeOnly) {
      const named = statement.exportClause;
      const onlyTypes =
        named !== undefined &&
        ts.isNamedExports(named) &&
        named.elements.length > 0 &&
        named.elements.every((e) => e.isTypeOnly);
      if (!onlyTypes) specifier = statement.moduleSpecifier;
    }
    if (specifier !== undefined && ts.isStringLiteral(specifier) && specifier.text.startsWith('.')) {
      const target = resolve(dirname(file), specifier.text.replace(/\.js$/, '.ts'));
      if (existsSync(target)) targets.push(target);
    }
  }
  return targets;
}

/** Strongly connected components of more than one file (Tarjan), or a file importing itself. */
function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file)!, index.get(next)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || (graph.get(file) ?? []).includes(file)) cycles.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return cycles;
}

describe('import graph', () => {
  it('finds a cycle when there is one (the check can fail)', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    assert.deepEqual(importCycles(graph), [['a', 'b', 'c']]);
    assert.deepEqual(
      valueImports(
        '/x/a.ts',
        "import type { T } from './b.js';\nimport { type U } from './c.js';\nexport type { V } from './d.js';",
      ),
      [],
    );
  });

  it('has no value import cycle among src/, activities/ and workflows/', () => {
    const graph = new Map<string, string[]>();
    for (const root of SOURCE_ROOTS) {
      for (const file of sourceFiles(join(PROJECT_ROOT, root)))
        graph.set(file, valueImports(file, readFileSync(file, 'utf8')));
    }
    assert.ok(graph.size > 100, `expected the package's sources, found ${graph.size} files`);
    const cycles = importCycles(graph).map((cycle) => cycle.map((file) => relative(PROJECT_ROOT, file)));
    assert.deepEqual(cycles, []);
  });
});
