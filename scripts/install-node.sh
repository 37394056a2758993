#!/usr/bin/env bash
# Installs a Node.js release from npm (the `node` package ships the official binary) into .tools/node-<version>
# (gitignored) and prints the folder of its `node`, to put first on PATH:
#   PATH="$(bash scripts/install-node.sh 24)/:$PATH" npm test
# The argument is a major line (22 or 24, pinned here to the release CI tests) or an exact version.
# Idempotent: a version already installed is kept.
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:?usage: install-node.sh <22|24|x.y.z>}" in
  22) version=22.23.3 ;;
  24) version=24.21.0 ;;
  *.*.*) version=$1 ;;
  *) echo "install-node: give 22, 24 or an exact version, not '$1'" >&2; exit 2 ;;
esac
dir=.tools/node-$version
bin=$dir/node_modules/node/bin
installed() { [ -x "$bin/node" ] && [ "$("$bin/node" --version)" = "v$version" ]; }
if ! installed; then
  mkdir -p "$dir"
  [ -f "$dir/package.json" ] || echo '{"private":true}' > "$dir/package.json"
  npm install --prefix "$dir" --no-audit --no-fund --no-save "node@$version" >&2
  installed || { echo "install-node: Node $version is missing after npm install" >&2; exit 1; }
fi
echo "$PWD/$bin"
