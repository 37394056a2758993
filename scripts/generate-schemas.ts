// Writes the published JSON Schemas of the two contract projections from their zod schemas, so the files cannot
// say something the code does not enforce. Run: `npx tsx scripts/generate-schemas.ts` (or `npm run schemas`).
// test/unit/json-schemas.test.ts fails when the committed files differ from a fresh generation.
import { writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { z } from 'zod';
import { MODEL_RESULT_SCHEMA_VERSION, modelResultSchema } from '../src/index.js';
import { AUDIT_SCHEMA_VERSION, auditRecordSchema } from '../src/contract/audit-record.js';

/** Where the generated files live (shipped with the package, see `files` in package.json). */
export const SCHEMAS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'schemas');

const SOURCES = [
  {
    version: MODEL_RESULT_SCHEMA_VERSION,
    schema: modelResultSchema,
    description: 'What a model sees of one tool call. Generated from modelResultSchema; do not edit.',
  },
  {
    version: AUDIT_SCHEMA_VERSION,
    schema: auditRecordSchema,
    description:
      'The protected audit record of one tool call attempt; never sent to a model. Generated from auditRecordSchema; do not edit.',
  },
] as const;

/**
 * The file name and exact text of every schema file. Deterministic: the same zod schemas always give the same
 * bytes, which is what lets a test compare the committed files with a fresh generation.
 */
export function generateSchemaFiles(): { readonly fileName: string; readonly text: string }[] {
  return SOURCES.map(({ version, schema, description }) => {
    // Output types: the files describe results as they are produced and stored, after defaults and transforms.
    const { $schema, ...body } = z.toJSONSchema(schema, {
      target: 'draft-2020-12',
      io: 'output',
      unrepresentable: 'throw',
    });
    const document = { $schema, title: version, description, ...body };
    return { fileName: `${version}.json`, text: `${JSON.stringify(document, null, 2)}\n` };
  });
}

function main(): void {
  for (const { fileName, text } of generateSchemaFiles()) {
    const target = join(SCHEMAS_DIR, fileName);
    writeFileSync(target, text);
    console.log(`wrote ${target}`);
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) main();
