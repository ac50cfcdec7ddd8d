#!/usr/bin/env bash
# Run by hyperfine --prepare before every timed run (never timed itself):
#   between-runs.sh <system> <sql_dir> <cold 0|1> <reset 0|1> <nocache 0|1>
# cold: restart the server through its stop/start verbs and drop the OS page cache (when permitted);
# reset: re-run the workload's setup.sql (write workloads start from the same state every run);
# nocache: give every statement a fresh unique comment so a result cache cannot answer it.
set -euo pipefail
source "$(dirname "$0")/engines.sh"
SYS="$1" SQL_DIR="$2" COLD="$3" RESET="$4" NOCACHE="$5"
load_system_env "$SYS"
if [[ "$COLD" == 1 ]]; then
  if ! is_embedded "$SYS"; then "$SYSTEMS_DIR/$SYS/stop" >/dev/null; fi
  sync
  if [[ "$(cat "$SQL_DIR/drop_caches" 2>/dev/null)" == allowed ]]; then echo 3 > /proc/sys/vm/drop_caches; fi
  if ! is_embedded "$SYS"; then
    "$SYSTEMS_DIR/$SYS/start" >/dev/null
    for _ in $(seq 1 120); do "$SYSTEMS_DIR/$SYS/check" >/dev/null 2>&1 && break; sleep 0.5; done
    "$SYSTEMS_DIR/$SYS/check" >/dev/null 2>&1 || { echo "between-runs: $SYS did not come back within 60 s" >&2; exit 1; }
  fi
fi
if [[ "$RESET" == 1 && -s "$SQL_DIR/setup.sql" ]]; then engine_exec "$SYS" "$SQL_DIR/setup.sql"; fi
if [[ "$NOCACHE" == 1 ]]; then
  n=$(( $(cat "$SQL_DIR/nocache.counter" 2>/dev/null || echo 0) + 1 )); echo "$n" > "$SQL_DIR/nocache.counter"
  "$PYTHON" "$PY" nocache "$SQL_DIR/batch.sql" "${NOCACHE_SEED:-0}-$n"
fi
