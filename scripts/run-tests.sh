#!/usr/bin/env bash
# Runs the test files given (default: every test/**/*.test.ts) with Node's built-in runner; Node 20 has no glob
# support in --test, so the files are listed here. --test-force-exit ends a file's process once its tests and hooks are
# done, so a handle a failed setup leaves open (a server, a pool) cannot stall the whole run; --test-timeout bounds a
# test that sets no timeout of its own.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$#" -eq 0 ]; then set -- test; fi
mapfile -t files < <(find "$@" -name '*.test.ts' | sort)
exec node --import tsx --test --test-reporter=spec --test-concurrency=1 --test-force-exit --test-timeout=900000 "${files[@]}"
