// The adapter entry points export exactly what src/adapters/README.md documents, nothing leaks into the root
// export, and adapter code depends only on the contract and declared runtime packages.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import * as anthropic from '../../../src/adapters/anthropic.js';
import * as gemini from '../../../src/adapters/gemini.js';
import * as mcp from '../../../src/adapters/mcp.js';
import * as openai from '../../../src/adapters/openai.js';
import * as root from '../../../src/index.js';
import { PROJECT_ROOT as REPO } from '../../../testkit/project-root.js';

const ADAPTERS = join(REPO, 'src', 'adapters');

const ENTRIES: Record<string, { module: object; names: string[] }> = {
  openai: {
    module: openai,
    names: [
      'ADAPTER_ERROR_CODES',
      'AdapterError',
      'OPENAI_NAME_MAX',
      'fromProviderToolName',
      'fromStrictArguments',
      'toChatTool',
      'toChatToolMessage',
      'toProviderToolName',
      'toResponsesOutput',
      'toResponsesTool',
      'toStrictJsonSchema',
    ],
  },
  anthropic: {
    module: anthropic,
    names: [
      'ADAPTER_ERROR_CODES',
      'ANTHROPIC_NAME_MAX',
      'AdapterError',
      'fromProviderToolName',
      'isErrorResult',
      'toAnthropicTool',
      'toProviderToolName',
      'toToolResultBlock',
      'toToolResultsMessage',
    ],
  },
  gemini: {
    module: gemini,
    names: [
      'ADAPTER_ERROR_CODES',
      'AdapterError',
      'GEMINI_NAME_MAX',
      'fromProviderToolName',
      'isErrorResult',
      'toFunctionResponse',
      'toFunctionResponseContent',
      'toFunctionResult',
      'toGeminiFunctionDeclaration',
      'toInteractionInput',
      'toProviderToolName',
    ],
  },
  mcp: {
    module: mcp,
    names: [
      'ADAPTER_ERROR_CODES',
      'AdapterError',
      'createMcpServer',
      'isErrorResult',
      'mcpAnnotations',
      'toCallToolResult',
      'toMcpTool',
      'wrapMcpTools',
    ],
  },
};

/** Runtime packages adapters may import; each must be a direct runtime dependency or a peer. */
const ALLOWED_PACKAGES = new Set(['zod', '@modelcontextprotocol/sdk', 'ajv', 're2js']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

function importsOf(file: string): string[] {
  const source = readFileSync(file, 'utf8');
  return [...source.matchAll(/^(?:import|export)\s[^;]*?\sfrom\s+'([^']+)'/gms)].map((match) => match[1] ?? '');
}

describe('adapter entry points', () => {
  for (const [entry, { module, names }] of Object.entries(ENTRIES)) {
    it(`adapters/${entry} exports exactly its documented names`, () => {
      assert.deepEqual(Object.keys(module).sort(), [...names].sort());
      const readme = readFileSync(join(ADAPTERS, 'README.md'), 'utf8');
      const row = readme.split('\n').find((line) => line.startsWith(`| \`adapters/${entry}\``));
      assert.ok(row, `README documents adapters/${entry}`);
      for (const name of names) assert.ok(row.includes(`\`${name}\``), `README row for ${entry} names ${name}`);
    });
  }

  it('the root export carries none of them', () => {
    const adapterNames = new Set(Object.values(ENTRIES).flatMap((entry) => entry.names));
    assert.deepEqual(
      Object.keys(root).filter((name) => adapterNames.has(name)),
      [],
    );
  });
});

describe('adapter dependencies', () => {
  it('import only the contract, each other and allowed runtime packages — never a provider SDK, Temporal or pg', () => {
    const offending: string[] = [];
    let seen = 0;
    for (const file of sourceFiles(ADAPTERS)) {
      for (const specifier of importsOf(file)) {
        seen++;
        if (specifier.startsWith('.')) {
          const target = relative(REPO, resolve(dirname(file), specifier));
          if (!target.startsWith('src/adapters/') && !target.startsWith('src/contract/'))
            offending.push(`${relative(REPO, file)} → ${specifier}`);
          continue;
        }
        const packageName = specifier.startsWith('@')
          ? specifier.split('/').slice(0, 2).join('/')
          : (specifier.split('/')[0] ?? specifier);
        if (!ALLOWED_PACKAGES.has(packageName)) offending.push(`${relative(REPO, file)} → ${specifier}`);
      }
    }
    assert.ok(seen > 40, `the import scan found ${seen} imports`);
    assert.deepEqual(offending, []);
  });

  it('every allowed package is a runtime dependency or a peer (the MCP SDK an optional one, loaded only by ./adapters/mcp)', () => {
    const manifest = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      peerDependencies: Record<string, string>;
    };
    for (const name of ALLOWED_PACKAGES)
      assert.ok(name in manifest.dependencies || name in manifest.peerDependencies, name);
  });
});
