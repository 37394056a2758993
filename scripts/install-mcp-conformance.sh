#!/usr/bin/env bash
# Installs the official MCP conformance suite and the Node 22 it needs (it uses fs.globSync; it runs on this pinned
# Node whatever Node runs the tests) into .tools/mcp-conformance (gitignored), from npm: the `node` package ships a
# Node 22 binary.
# Idempotent: pinned versions already installed are kept. Prints the folder.
set -euo pipefail
cd "$(dirname "$0")/.."
NODE_VERSION=22.23.3
CONFORMANCE_VERSION=0.1.16
dir=.tools/mcp-conformance
installed() { [ -x "$dir/node_modules/node/bin/node" ] && [ "$("$dir/node_modules/node/bin/node" --version)" = "v$NODE_VERSION" ] \
  && grep -q "\"version\": \"$CONFORMANCE_VERSION\"" "$dir/node_modules/@modelcontextprotocol/conformance/package.json" 2>/dev/null; }
if ! installed; then
  mkdir -p "$dir"
  [ -f "$dir/package.json" ] || echo '{"private":true}' > "$dir/package.json"
  npm install --prefix "$dir" --no-audit --no-fund --no-save "node@$NODE_VERSION" "@modelcontextprotocol/conformance@$CONFORMANCE_VERSION" >&2
  installed || { echo "install-mcp-conformance: Node $NODE_VERSION or the suite $CONFORMANCE_VERSION is missing after npm install" >&2; exit 1; }
fi
echo "$dir"
