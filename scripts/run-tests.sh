#!/usr/bin/env bash
# Runs the test files or folders given (default: every test/**/*.test.ts) and checks that every registered test came
# back with a verdict: see scripts/test-run/run-tests.ts. The README's test command and .ci/run reach it through
# `npm test`.
set -euo pipefail
cd "$(dirname "$0")/.."
exec node --import tsx scripts/test-run/run-tests.ts "$@"
