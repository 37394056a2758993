import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nodeSha256Hex } from '../../activities/node-sha256.js';
import { type AnyToolImplementation } from '../../src/index.js';
import { executeTool } from '../../src/contract/execute-tool.js';
import { sha256Hex, type Sha256Hex } from '../../src/contract/sha256.js';
import { testContext } from '../../testkit/context.js';
import { goodOrderOutput, listTool, orderTool, returning } from '../support/tools.js';

/** Counts the inputs a hash function is given, so a test can tell the funnel used it. */
function counting(hash: Sha256Hex): { hash: Sha256Hex; calls: () => number } {
  let calls = 0;
  return {
    hash: (input) => {
      calls++;
      return hash(input);
    },
    calls: () => calls,
  };
}

describe('injected SHA-256 (node:crypto in activities)', () => {
  it('digests exactly what the pure-JavaScript one does: text as UTF-8, and bytes', () => {
    for (const input of ['', 'abc', 'ünïcødé 😀 text', 'x'.repeat(100_000), new Uint8Array([0, 1, 2, 255])]) {
      assert.equal(nodeSha256Hex(input), sha256Hex(input));
    }
  });

  const cases: [string, AnyToolImplementation, unknown][] = [
    [
      'a small read, recorded with its raw output',
      orderTool(
        returning({ ...goodOrderOutput(), rawResponse: { body: '{"raw":true}', contentType: 'application/json' } }),
        { recordRawOutput: true },
      ),
      { order_id: 'ord_1001' },
    ],
    ['a list cut to its budget (artifact of the full data)', listTool(2000, { maxBytes: 4096 }), { query: 'widgets' }],
  ];
  for (const [name, tool, args] of cases) {
    it(`${name}: the same model result, audit and artifacts, and the funnel hashed with the injected function`, async () => {
      const injected = counting(nodeSha256Hex);
      const plain = await executeTool(tool, args, testContext());
      const fast = await executeTool(tool, args, testContext({ sha256: injected.hash }));
      assert.equal(plain.modelResult.error, null);
      assert.equal(plain.artifacts.length, 1, 'the recorded run, or the full data of the cut list');
      assert.deepEqual(fast, plain);
      assert.ok(injected.calls() >= 4, 'bindings, audit id and raw digest go through the injected hash');
    });
  }
});
