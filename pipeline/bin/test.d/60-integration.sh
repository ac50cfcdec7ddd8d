#!/usr/bin/env bash
# Integration: the ci profile through the samebox CLI against real engines: OLTP (PostgreSQL, MariaDB,
# sysbench, pgbench) and analytical (PostgreSQL, DuckDB, SQLite, hyperfine, pgwire-tp).
# One test file at a time: both runs use the machine's default SAMEBOX_STATE (PostgreSQL's data and port), and a
# second run there is refused while the first holds the state folder's run lock (pipeline/runner/run-lock.ts).
set -uo pipefail
cd "$(dirname "$0")/../../.." || exit 1
# shellcheck source=pipeline/bin/test-lib.sh
source pipeline/bin/test-lib.sh
bash pipeline/bin/setup tools || { bad "pipeline/bin/setup tools"; finish; }
out=$(mktemp)
node_modules/.bin/node --test --test-reporter=spec --test-concurrency=1 pipeline/test/integration/*.test.ts 2>&1 | tee "$out"
count_node "node:test pipeline/test/integration/*.test.ts" "${PIPESTATUS[0]}" "$out"
rm -f "$out"
finish
