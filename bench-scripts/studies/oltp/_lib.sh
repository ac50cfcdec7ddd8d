# shellcheck shell=bash disable=SC2034  # variables here are used by the verbs that source this
# OLTP study helpers (sourced, not a verb): parameters, the system's connection env,
# sysbench and pgbench invocations shared by prepare, run and cleanup.

# shellcheck source=../../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../lib/common.sh"
# shellcheck source=../../lib/system.sh
. "$BENCH_SCRIPTS_DIR/lib/system.sh"

STUDY_DIR="$BENCH_SCRIPTS_DIR/studies/oltp"

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

# oltp_use_system SYSTEM: validate it against the study's needs (study.json `requires`), load
# its env verb's KEY=VALUE lines, check it answers.
oltp_use_system() {
  system_use_for "$STUDY_DIR/study.json" "${1:-}"
  system_require_env DB_HOST DB_PORT DB_USER DB_PASSWORD DB_NAME SYSTEM_SYSBENCH_DRIVER
  system_check
  OLTP_SYSTEM="$SYSTEM_NAME"
}

oltp_require_tools() {
  command -v sysbench >/dev/null 2>&1 || die "sysbench is not installed: run studies/oltp/install"
}

# Every client connects over loopback TCP, the same transport for all three servers
# (the seed's --mysql-host=localhost meant a unix socket for MySQL/MariaDB only). Keyed by the
# system's sysbench driver (system.json drivers.sysbench), sysbench's own option names.
sysbench_conn_args() {
  case "$SYSTEM_SYSBENCH_DRIVER" in
    pgsql) SB_CONN=(--db-driver=pgsql --pgsql-host="$DB_HOST" --pgsql-port="$DB_PORT"
             --pgsql-user="$DB_USER" --pgsql-password="$DB_PASSWORD" --pgsql-db="$DB_NAME") ;;
    mysql) SB_CONN=(--db-driver=mysql --mysql-host="$DB_HOST" --mysql-port="$DB_PORT"
             --mysql-user="$DB_USER" --mysql-password="$DB_PASSWORD" --mysql-db="$DB_NAME") ;;
    *) die "drivers.sysbench='$SYSTEM_SYSBENCH_DRIVER' in $SYSTEM_JSON is not valid (valid: pgsql, mysql)" ;;
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
  sysbench_conn_args
  local base=(sysbench "$script" "${SB_CONN[@]}" --tables="$SB_TABLES" --table-size="$SB_TABLE_SIZE" --threads="$load_threads")
  # In a cell (CELL_DIR set) these are part of what it ran: recorded in command.txt.
  record_command "fresh tables: drop (not timed)" "${base[@]}" cleanup
  "${base[@]}" cleanup >&2
  record_command "fresh tables: load (not timed)" "${base[@]}" prepare
  "${base[@]}" prepare >&2
  if [[ "$SYSTEM_DIALECT" == postgresql ]]; then
    local tables
    tables="$(seq -f 'sbtest%g' 1 "$SB_TABLES" | paste -sd, -)"
    oltp_sql_file "VACUUM (ANALYZE) $tables;" >&2
  fi
  # InnoDB (MariaDB/MySQL) computes persistent statistics itself after the bulk load.
}

# oltp_sql_file SQL: run SQL on the system through its own client (its client verb).
oltp_sql_file() {
  local f
  f="$(mktemp)"
  printf '%s\n' "$1" > "$f"
  local rc=0
  system_client_argv exec "$f" || rc=$?
  # The argv may start with NAME=VALUE words (the password, kept out of ps): env runs it.
  (( rc == 0 )) && { env "${CLIENT_ARGV[@]}" > /dev/null || rc=$?; }
  rm -f "$f"
  (( rc == 0 )) || die "SQL on $SYSTEM_NAME failed (exit $rc): $1"
}

# pgbench_bin: the pgbench a system with capability pgbench names in its env (PG_BIN), else the
# one on PATH.
pgbench_bin() {
  if [[ -x "${PG_BIN:-}/pgbench" ]]; then printf '%s\n' "$PG_BIN/pgbench"; return 0; fi
  command -v pgbench || die "pgbench not found (PG_BIN='${PG_BIN:-}' from systems/$SYSTEM_NAME/env, nor on PATH)"
}

# pgb ARGS...: pgbench as the system's user over TCP against its database.
pgb() {
  PGPASSWORD="$DB_PASSWORD" "$(pgbench_bin)" -h "$DB_HOST" -p "$DB_PORT" -U "$DB_USER" "$@" "$DB_NAME"
}
