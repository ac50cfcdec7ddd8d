#!/usr/bin/env bash
# Run by hyperfine --prepare before every timed run (never timed itself):
#   between-runs.sh <system> <sql_dir> <cold 0|1> <reset 0|1> <nocache 0|1>
# cold: restart the server through its stop/start verbs (kind server; an embedded engine starts
# with every run) and drop the OS page cache (when permitted); reset: re-run the workload's
# setup.sql (write workloads start from the same state every run); nocache: give every
# statement text of its own (unique whitespace after its first keyword) so a result cache cannot answer it.
set -euo pipefail
# shellcheck source=study.sh
. "$(dirname "$0")/study.sh"
SQL_DIR="$2" COLD="$3" RESET="$4" NOCACHE="$5"
analytical_use "$1"
if [[ "$COLD" == 1 ]]; then
  if [[ "$SYSTEM_KIND" == server ]]; then "$SYSTEM_DIR/stop" >/dev/null; fi
  sync
  if [[ "$(cat "$SQL_DIR/drop_caches" 2>/dev/null)" == allowed ]]; then echo 3 > /proc/sys/vm/drop_caches; fi
  if [[ "$SYSTEM_KIND" == server ]]; then
    "$SYSTEM_DIR/start" >/dev/null
    wait_until 60 "$SYSTEM_NAME to answer after its restart" "$SYSTEM_DIR/check" \
      || die "$SYSTEM_NAME did not come back within 60 s"
  fi
fi
if [[ "$RESET" == 1 && -s "$SQL_DIR/setup.sql" ]]; then sql_exec "$SQL_DIR/setup.sql"; fi
if [[ "$NOCACHE" == 1 ]]; then
  n=$(( $(cat "$SQL_DIR/nocache.counter" 2>/dev/null || echo 0) + 1 )); echo "$n" > "$SQL_DIR/nocache.counter"
  "$PYTHON" "$PY" nocache "$SQL_DIR/batch.sql" "${NOCACHE_SEED:-0}-$n"
fi
