import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import ts from 'typescript';
import { PROJECT_ROOT } from '../../testkit/project-root.js';

/** A ```ts block of a markdown document; a block whose first line is `// name.ts` is written under that name. */
export interface DocSample {
  readonly fileName: string;
  readonly code: string;
}

/** The ```ts blocks of a markdown text, in order. */
export function typeScriptSamples(text: string): DocSample[] {
  return [...text.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match, index) => {
    const code = match[1] ?? '';
    const named = /^\/\/ ([\w-]+\.ts)\b/.exec(code);
    return { fileName: named?.[1] ?? `sample-${index + 1}.ts`, code };
  });
}

/**
 * Compiles the samples together against the package's public entry points (resolved through package.json
 * "exports", so a sample cannot import something a user could not) and returns the diagnostics, empty when they
 * compile. They are written under node_modules/.cache/<folder> so they resolve the project's dependencies, in an
 * ESM scope like a user's project.
 */
export function sampleCompileErrors(samples: readonly DocSample[], folder: string): string[] {
  return sampleCompileErrorsByDocument({ '.': samples }, folder)['.'] ?? [];
}

/**
 * {@link sampleCompileErrors} for several documents in one program, each document's samples in a folder of its own
 * (so their file names never meet): one program costs what one document's did. The diagnostics of each document; one
 * that belongs to no file is every document's.
 */
export function sampleCompileErrorsByDocument(
  documents: Readonly<Record<string, readonly DocSample[]>>,
  folder: string,
): Record<string, string[]> {
  const dir = join(PROJECT_ROOT, 'node_modules', '.cache', folder);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  const folders = Object.keys(documents).map((name) => ({ name, path: join(dir, name) }));
  const files = folders.flatMap(({ name, path }) => {
    mkdirSync(path, { recursive: true });
    return (documents[name] ?? []).map(({ fileName, code }) => {
      writeFileSync(join(path, fileName), code);
      return join(path, fileName);
    });
  });
  const config = ts.getParsedCommandLineOfConfigFile(
    join(PROJECT_ROOT, 'tsconfig.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
  );
  if (!config) throw new Error('tsconfig.json must parse');
  const program = ts.createProgram(files, {
    ...config.options,
    noEmit: true,
    baseUrl: PROJECT_ROOT,
    paths: publicEntryPaths(),
  });
  const errors: Record<string, string[]> = Object.fromEntries(folders.map(({ name }) => [name, []]));
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const fileName = diagnostic.file === undefined ? null : resolve(diagnostic.file.fileName);
    const where =
      diagnostic.file === undefined
        ? ''
        : `${diagnostic.file.fileName}:${diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line + 1}`;
    const text = `${where} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
    const owners = folders.filter(({ path }) => fileName === null || fileName.startsWith(`${path}${sep}`));
    for (const { name } of owners.length > 0 ? owners : folders) errors[name]?.push(text);
  }
  return errors;
}

/** `paths` that send each public specifier to its source, mirroring package.json "exports" (lib/x.d.ts → x.ts). */
function publicEntryPaths(): Record<string, string[]> {
  const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
    name: string;
    exports: Record<string, { types?: string }>;
  };
  const paths: Record<string, string[]> = {};
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    if (target.types === undefined) continue;
    const source = target.types.replace(/^\.\/lib\//, './').replace(/\.d\.ts$/, '.ts');
    paths[subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`] = [source];
  }
  return paths;
}
