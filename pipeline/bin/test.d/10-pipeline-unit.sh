#!/usr/bin/env bash
# Unit tests of the pipeline (parsers on real captured outputs, schema, catalog, runner mechanics, publish, CLI errors).
# Every file in pipeline/test/*.test.ts runs here and only here (the study suites run their engines, not these files).
set -uo pipefail
cd "$(dirname "$0")/../../.." || exit 1
# shellcheck source=pipeline/bin/test-lib.sh
source pipeline/bin/test-lib.sh
out=$(mktemp)
node_modules/.bin/node --test --test-reporter=spec --test-concurrency=2 pipeline/test/*.test.ts 2>&1 | tee "$out"
count_node "node:test pipeline/test/*.test.ts" "${PIPESTATUS[0]}" "$out"
rm -f "$out"
finish
