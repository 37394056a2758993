import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as temporal from '../../src/temporal/index.js';
import * as names from '../../src/wire/names.js';
import * as searchAttributes from '../../src/wire/search-attributes.js';
import { agentLoop } from '../../workflows/agent-loop.js';
import { mcpToolCall } from '../../workflows/mcp-tool-call.js';
import { reconcileToolCall } from '../../workflows/reconcile-tool-call.js';
import { ToolRegistry } from '../../src/index.js';
import { InMemoryToolStore } from '../../src/store/in-memory/in-memory-tool-store.js';

test('the workflow type constants are the exported workflow function names', () => {
  assert.equal(names.RECONCILE_WORKFLOW_TYPE, reconcileToolCall.name);
  assert.equal(names.AGENT_LOOP_WORKFLOW_TYPE, agentLoop.name);
  assert.equal(names.MCP_TOOL_CALL_WORKFLOW_TYPE, mcpToolCall.name);
});

test('names stored in history are unique, and package activity types use the reserved prefix', () => {
  const values = Object.values(names);
  assert.equal(new Set(values).size, values.length);
  const activities = Object.entries(names)
    .filter(([key]) => key.endsWith('_ACTIVITY'))
    .map(([, value]) => value);
  assert.ok(activities.length >= 5);
  for (const activity of activities) assert.ok(activity.startsWith(names.RESERVED_ACTIVITY_PREFIX), activity);
  const attributes = searchAttributes.SEARCH_ATTRIBUTE_KEYS.map((key) => key.name);
  assert.deepEqual(attributes, [
    searchAttributes.APPROVAL_PENDING_SA.name,
    searchAttributes.RECONCILE_STATE_SA.name,
    searchAttributes.IDEMPOTENCY_KEY_SA.name,
  ]);
  for (const name of attributes) assert.match(name, /^Ttc[A-Z][A-Za-z]+$/);
});

test('the temporal entry point exports the stored names clients use and every search attribute, unchanged; no internal activity type', () => {
  const exported = temporal as Record<string, unknown>;
  for (const [key, value] of [...Object.entries(names), ...Object.entries(searchAttributes)]) {
    // The package's own activity types are scheduled by its workflows only: nothing a client sends or reads.
    if (key.endsWith('_ACTIVITY')) assert.equal(exported[key], undefined, `${key} stays internal`);
    else assert.equal(exported[key], value, key);
  }
});

test("the plugin is named after Temporal's organization.PluginName convention", () => {
  const plugin = new temporal.ToolContractPlugin({ tools: new ToolRegistry(), store: new InMemoryToolStore() });
  assert.equal(plugin.name, 'temporal-tool-contract.ToolContractPlugin');
});
