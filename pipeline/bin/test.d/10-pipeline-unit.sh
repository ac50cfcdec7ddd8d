#!/usr/bin/env bash
# Unit tests of the pipeline (parsers on real captured outputs, schema, catalog, runner mechanics, publish, CLI errors).
set -uo pipefail
cd "$(dirname "$0")/../../.."
out=$(mktemp)
node_modules/.bin/node --test --test-reporter=spec --test-concurrency=2 pipeline/test/*.test.ts 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
pass=$(grep -E '^ℹ pass [0-9]+' "$out" | awk '{print $3}'); fail=$(grep -E '^ℹ fail [0-9]+' "$out" | awk '{print $3}')
echo "${pass:-0} passed, ${fail:-0} failed"
exit "$rc"
