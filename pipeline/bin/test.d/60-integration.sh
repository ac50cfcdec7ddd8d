#!/usr/bin/env bash
# Integration: the ci profile through the samebox CLI against real engines: OLTP (PostgreSQL, MariaDB,
# sysbench, pgbench) and analytical (PostgreSQL, DuckDB, SQLite, hyperfine, pgwire-tp).
# One test file at a time: both runs use the machine's default SAMEBOX_STATE (PostgreSQL's data and port), and a
# second run there is refused while the first holds the state folder's run lock (pipeline/runner/run-lock.ts).
set -uo pipefail
cd "$(dirname "$0")/../../.."
bash pipeline/bin/setup tools || { echo "0 passed, 1 failed"; exit 1; }
out=$(mktemp)
node_modules/.bin/node --test --test-reporter=spec --test-concurrency=1 pipeline/test/integration/*.test.ts 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
pass=$(grep -E '^ℹ pass [0-9]+' "$out" | awk '{print $3}'); fail=$(grep -E '^ℹ fail [0-9]+' "$out" | awk '{print $3}')
echo "${pass:-0} passed, ${fail:-0} failed"
exit "$rc"
