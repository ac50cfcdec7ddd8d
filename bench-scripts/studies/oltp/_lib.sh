# shellcheck shell=bash disable=SC2034  # variables here are used by the verbs that source this
# OLTP study helpers (sourced, not a verb): parameters, the system's connection env,
# sysbench and pgbench invocations shared by prepare, run and cleanup.

# shellcheck source=../../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../lib/common.sh"

STUDY_DIR="$BENCH_SCRIPTS_DIR/studies/oltp"
SYSTEMS_DIR="$BENCH_SCRIPTS_DIR/systems"

# Parameters from the suite profile; defaults are seed 002's (16 threads, 60 s,
# 10 tables x 100,000 rows, pgbench scale 100).
oltp_params() {
  THREADS="${THREADS:-16}"
  DURATION="${DURATION:-60}"
  WARMUP="${WARMUP:-10}"
  SB_TABLES="${SB_TABLES:-10}"
  SB_TABLE_SIZE="${SB_TABLE_SIZE:-100000}"
  PGBENCH_SCALE="${PGBENCH_SCALE:-100}"
  REPORT_INTERVAL="${REPORT_INTERVAL:-1}"
  PGBENCH_LOG_SAMPLING="${PGBENCH_LOG_SAMPLING:-auto}"
  require_uint THREADS "$THREADS" 1
  require_uint DURATION "$DURATION" 1
  require_uint WARMUP "$WARMUP" 0
  require_uint SB_TABLES "$SB_TABLES" 1
  require_uint SB_TABLE_SIZE "$SB_TABLE_SIZE" 1
  require_uint PGBENCH_SCALE "$PGBENCH_SCALE" 1
  require_uint REPORT_INTERVAL "$REPORT_INTERVAL" 1
  if [[ "$PGBENCH_LOG_SAMPLING" != auto ]] && { [[ ! "$PGBENCH_LOG_SAMPLING" =~ ^(1|1\.0*|0?\.[0-9]+)$ ]] \
    || ! awk -v r="$PGBENCH_LOG_SAMPLING" 'BEGIN { exit !(r > 0 && r <= 1) }'; }; then
    die "PGBENCH_LOG_SAMPLING='$PGBENCH_LOG_SAMPLING' is not valid (valid: auto, or a fraction in (0, 1] such as 1 or 0.1)"
  fi
  # Threads beyond 1000 are a typo, not a benchmark; the servers allow 200 connections.
  (( THREADS <= 190 )) || die "THREADS=$THREADS is more than the 190 connections the servers leave for clients (valid: 1-190)"
}

oltp_study_systems() { json_get "$STUDY_DIR/study.json" systems; }

# oltp_use_system SYSTEM: validate it, load its env verb's KEY=VALUE lines, check it answers.
oltp_use_system() {
  local system="${1:-}" valid out rc=0
  local systems
  systems="$(oltp_study_systems)"
  valid="${systems//$'\n'/,}"
  [[ -n "$system" ]] || die "missing system argument (valid: $valid)"
  [[ "$system" =~ ^[a-z0-9][a-z0-9-]*$ && -d "$SYSTEMS_DIR/$system" ]] \
    || die "unknown system '$system' (valid: $valid)"
  list_contains "$systems" "$system" \
    || not_available "the oltp study does not run on $system (it runs on: $valid)"
  out="$("$SYSTEMS_DIR/$system/env")" || rc=$?
  (( rc == 0 )) || { (( rc == EXIT_NOT_AVAILABLE )) && not_available "$out"; die "$system/env failed (exit $rc)"; }
  load_env_lines <<< "$out"
  for key in DB_HOST DB_PORT DB_USER DB_PASSWORD DB_NAME SYSBENCH_DRIVER; do
    [[ -n "${!key:-}" ]] || die "$system/env printed no $key"
  done
  "$SYSTEMS_DIR/$system/check" >/dev/null || die "$system does not answer on $DB_HOST:$DB_PORT: run systems/$system/start first"
  OLTP_SYSTEM="$system"
}

oltp_require_tools() {
  command -v sysbench >/dev/null 2>&1 || die "sysbench is not installed: run studies/oltp/install"
}

# Every client connects over loopback TCP, the same transport for all three servers
# (the seed's --mysql-host=localhost meant a unix socket for MySQL/MariaDB only).
sysbench_conn_args() {
  case "$SYSBENCH_DRIVER" in
    pgsql) SB_CONN=(--db-driver=pgsql --pgsql-host="$DB_HOST" --pgsql-port="$DB_PORT"
             --pgsql-user="$DB_USER" --pgsql-password="$DB_PASSWORD" --pgsql-db="$DB_NAME") ;;
    mysql) SB_CONN=(--db-driver=mysql --mysql-host="$DB_HOST" --mysql-port="$DB_PORT"
             --mysql-user="$DB_USER" --mysql-password="$DB_PASSWORD" --mysql-db="$DB_NAME") ;;
    *) die "SYSBENCH_DRIVER='$SYSBENCH_DRIVER' from the system's env is not valid (valid: pgsql, mysql)" ;;
  esac
}

# sb SCRIPT ARGS...: sysbench with the connection and table shape.
sb() {
  local script="$1"
  shift
  sysbench_conn_args
  sysbench "$script" "${SB_CONN[@]}" --tables="$SB_TABLES" --table-size="$SB_TABLE_SIZE" "$@"
}

# Drop and re-create the sysbench tables, then refresh planner statistics so no
# autovacuum/auto-analyze pass lands inside a measured run. Output goes to stderr.
sb_recreate_tables() {
  local script="${1:-oltp_read_write}" load_threads
  load_threads="$(nproc)"
  (( load_threads > SB_TABLES )) && load_threads="$SB_TABLES"
  log "sysbench: re-creating $SB_TABLES tables x $SB_TABLE_SIZE rows on $OLTP_SYSTEM"
  sb "$script" --threads="$load_threads" cleanup >&2
  sb "$script" --threads="$load_threads" prepare >&2
  if [[ "$SYSBENCH_DRIVER" == pgsql ]]; then
    local tables
    tables="$(seq -f 'sbtest%g' 1 "$SB_TABLES" | paste -sd, -)"
    pg_bench_sql -c "VACUUM (ANALYZE) $tables" >&2
  fi
  # InnoDB (MariaDB/MySQL) computes persistent statistics itself after the bulk load.
}

pg_bench_sql() {
  PGPASSWORD="$DB_PASSWORD" PGCONNECT_TIMEOUT=5 "$PG_BIN/psql" -X -q -At -v ON_ERROR_STOP=1 \
    -h "$DB_HOST" -p "$DB_PORT" -U "$DB_USER" -d "$DB_NAME" "$@"
}

# pgb ARGS...: pgbench as bench over TCP against sbtest.
pgb() {
  [[ -x "${PG_BIN:-}/pgbench" ]] || die "pgbench not found in PG_BIN='${PG_BIN:-}' (from the system's env)"
  PGPASSWORD="$DB_PASSWORD" "$PG_BIN/pgbench" -h "$DB_HOST" -p "$DB_PORT" -U "$DB_USER" "$@" "$DB_NAME"
}
