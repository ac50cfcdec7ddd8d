# shellcheck shell=bash
# Bulk loaders of the mcp-db study (sourced by prepare and cleanup): COPY for PostgreSQL, LOAD
# DATA LOCAL INFILE for MySQL/MariaDB, .import for SQLite, bcp for SQL Server. Every loader
# creates database mcpdb_<state> afresh, applies sql/schema.<dialect>.sql, loads the CSV files,
# adds sql/indexes.sql for the indexed state and refreshes the planner statistics.

expected_count() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["rows"][sys.argv[2]])' "$1/counts.json" "$2"; }

# count_sql: the per-table row counts as one "table=n" line each, in mcpdb_tables order.
count_query() {
  local t q=""
  for t in $(mcpdb_tables); do q+="${q:+ UNION ALL }SELECT '$t', COUNT(*) FROM $t"; done
  printf '%s\n' "$q"
}

# load_matches SYSTEM STATE DATA: true when mcpdb_<state> has exactly the generated row counts.
load_matches() {
  local system="$1" state="$2" data="$3" got want t
  got="$(db_query "$system" "$state" "$(count_query)" 2>/dev/null)" || return 1
  for t in $(mcpdb_tables); do
    want="$(expected_count "$data" "$t")"
    grep -Eq "^${t}[[:space:]|,]+${want}\$" <<<"$got" || return 1
  done
  # The indexed state must have its indexes (a load interrupted before them does not count).
  if [[ "$state" == indexed ]]; then
    [[ "$(index_count "$system")" -ge 10 ]] || return 1
  fi
  return 0
}

index_count() {
  case "$1" in
    postgresql) db_query postgresql indexed "SELECT COUNT(*) FROM pg_indexes WHERE schemaname = 'public' AND indexname LIKE 'ix\_%'" ;;
    mariadb | mysql) db_query "$1" indexed "SELECT COUNT(DISTINCT index_name) FROM information_schema.statistics WHERE table_schema = 'mcpdb_indexed' AND index_name LIKE 'ix\_%'" ;;
    sqlite) db_query sqlite indexed "SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND name LIKE 'ix\_%' ESCAPE '\\'" ;;
    sqlserver) db_query sqlserver indexed "SET NOCOUNT ON; SELECT COUNT(*) FROM sys.indexes WHERE name LIKE 'ix[_]%'" ;;
  esac
}

# ---- clients --------------------------------------------------------------------------------

pg_admin() { runuser -u postgres -- "$PG_BIN/psql" -X -q -At -v ON_ERROR_STOP=1 -h "$DB_SOCKET" -p "$DB_PORT" -d postgres "$@"; }
pg_bench() { PGPASSWORD="$DB_PASSWORD" PGCONNECT_TIMEOUT=5 "$PG_BIN/psql" -X -q -At -v ON_ERROR_STOP=1 -h "$DB_HOST" -p "$DB_PORT" -U "$DB_USER" "$@"; }

# MySQL family: root over the server's socket (unix_socket auth on MariaDB, empty password on
# MySQL --initialize-insecure), the system's own client binary.
mf_client() {
  case "$1" in
    mariadb) echo /usr/bin/mariadb ;;
    mysql) (. "$SYSTEMS_DIR/mysql/_lib.sh" >/dev/null 2>&1; echo "$MF_CLIENT") ;;
  esac
}
mf_root() { local system="$1"; shift; "$(mf_client "$system")" --no-defaults --socket="$DB_SOCKET" --user=root --batch --skip-column-names "$@"; }

sqlserver_cmd() { sqlcmd -C -S "$DB_HOST,$DB_PORT" -U "$DB_USER" -P "$DB_PASSWORD" -b -h -1 -W "$@"; }

# db_query SYSTEM STATE SQL: run one query in mcpdb_<state>, rows tab/pipe-separated.
db_query() {
  local system="$1" state="$2" sql="$3"
  case "$system" in
    postgresql) pg_bench -d "mcpdb_$state" -F $'\t' -c "$sql" ;;
    mariadb | mysql) mf_root "$system" -D "mcpdb_$state" -e "$sql" ;;
    sqlite) [[ -f "$(mcpdb_sqlite_file "$state")" ]] && "$DB_CLI" -readonly -separator $'\t' "$(mcpdb_sqlite_file "$state")" "$sql" ;;
    sqlserver) sqlserver_cmd -d "mcpdb_$state" -s $'\t' -Q "$sql" ;;
  esac
}

# ---- loaders --------------------------------------------------------------------------------

load_postgresql() {
  local state="$2" data="$3" t
  log "postgresql: creating mcpdb_$state and loading with COPY"
  pg_admin -c "DROP DATABASE IF EXISTS mcpdb_$state WITH (FORCE)" -c "CREATE DATABASE mcpdb_$state OWNER $DB_USER"
  pg_bench -d "mcpdb_$state" -f "$MCPDB_DIR/sql/schema.postgresql.sql"
  for t in $(mcpdb_tables); do
    pg_bench -d "mcpdb_$state" -c "\\copy $t FROM '$data/$t.csv' WITH (FORMAT csv)"
  done
  if [[ "$state" == indexed ]]; then pg_bench -d "mcpdb_$state" -f "$MCPDB_DIR/sql/indexes.sql"; fi
  pg_bench -d "mcpdb_$state" -c "VACUUM ANALYZE $(mcpdb_tables | paste -sd, - | sed 's/,/, /g')"
}

load_mysql() {
  local system="$1" state="$2" data="$3" t infile_was=""
  log "$system: creating mcpdb_$state and loading with LOAD DATA LOCAL INFILE"
  mf_root "$system" -e "DROP DATABASE IF EXISTS mcpdb_$state; CREATE DATABASE mcpdb_$state;
    GRANT ALL PRIVILEGES ON mcpdb_$state.* TO '$DB_USER'@'127.0.0.1';
    GRANT ALL PRIVILEGES ON mcpdb_$state.* TO '$DB_USER'@'localhost';"
  # MySQL 8 ships with local_infile OFF; switch it on for the load only.
  infile_was="$(mf_root "$system" -e "SELECT @@GLOBAL.local_infile")"
  [[ "$infile_was" == 1 ]] || mf_root "$system" -e "SET GLOBAL local_infile = 1"
  mf_root "$system" -D "mcpdb_$state" < "$MCPDB_DIR/sql/schema.mysql.sql"
  for t in $(mcpdb_tables); do
    mf_root "$system" --local-infile=1 -D "mcpdb_$state" \
      -e "LOAD DATA LOCAL INFILE '$data/$t.csv' INTO TABLE $t FIELDS TERMINATED BY ',' LINES TERMINATED BY '\\n'"
  done
  [[ "$infile_was" == 1 ]] || mf_root "$system" -e "SET GLOBAL local_infile = 0"
  if [[ "$state" == indexed ]]; then mf_root "$system" -D "mcpdb_$state" < "$MCPDB_DIR/sql/indexes.sql"; fi
  mf_root "$system" -D "mcpdb_$state" -e "ANALYZE TABLE $(mcpdb_tables | paste -sd, -)" >/dev/null
}

load_sqlite() {
  local state="$2" data="$3" t file tmp
  file="$(mcpdb_sqlite_file "$state")"
  tmp="$file.loading"
  log "sqlite: building $file with .import"
  mkdir -p "$(dirname "$file")"
  rm -f "$tmp"
  {
    echo "PRAGMA journal_mode = OFF;"
    echo "PRAGMA synchronous = OFF;"
    cat "$MCPDB_DIR/sql/schema.sqlite.sql"
    echo ".mode csv"
    for t in $(mcpdb_tables); do echo ".import '$data/$t.csv' $t"; done
    if [[ "$state" == indexed ]]; then cat "$MCPDB_DIR/sql/indexes.sql"; fi
    echo "ANALYZE;"
  } | "$DB_CLI" -bail "$tmp" >/dev/null
  # WAL lets the MCP servers and the direct timer read concurrently without lock waits.
  "$DB_CLI" "$tmp" "PRAGMA journal_mode = WAL;" >/dev/null
  mv -f "$tmp" "$file"
  chmod 0644 "$file"
}

# SQL Server (cloud box only): bcp from mssql-tools18, the bench login from the system's env.
load_sqlserver() {
  local state="$2" data="$3" t
  command -v bcp >/dev/null && command -v sqlcmd >/dev/null || not_available "sqlserver: bcp/sqlcmd (mssql-tools18) are not installed"
  log "sqlserver: creating mcpdb_$state and loading with bcp"
  sqlserver_cmd -Q "IF DB_ID('mcpdb_$state') IS NOT NULL BEGIN ALTER DATABASE mcpdb_$state SET SINGLE_USER WITH ROLLBACK IMMEDIATE; DROP DATABASE mcpdb_$state; END; CREATE DATABASE mcpdb_$state"
  sqlserver_cmd -d "mcpdb_$state" -i "$MCPDB_DIR/sql/schema.sqlserver.sql"
  for t in $(mcpdb_tables); do
    bcp "$t" in "$data/$t.csv" -S "$DB_HOST,$DB_PORT" -U "$DB_USER" -P "$DB_PASSWORD" -d "mcpdb_$state" -c -t, -b 100000 -u >&2
  done
  if [[ "$state" == indexed ]]; then sqlserver_cmd -d "mcpdb_$state" -i "$MCPDB_DIR/sql/indexes.sql"; fi
  sqlserver_cmd -d "mcpdb_$state" -Q "EXEC sp_updatestats" >/dev/null
}

drop_database() {
  local system="$1" state="$2"
  case "$system" in
    postgresql) pg_admin -c "DROP DATABASE IF EXISTS mcpdb_$state WITH (FORCE)" ;;
    mariadb | mysql) mf_root "$system" -e "DROP DATABASE IF EXISTS mcpdb_$state" ;;
    sqlite) rm -f "$(mcpdb_sqlite_file "$state")" "$(mcpdb_sqlite_file "$state")"-{wal,shm} ;;
    sqlserver) sqlserver_cmd -Q "IF DB_ID('mcpdb_$state') IS NOT NULL BEGIN ALTER DATABASE mcpdb_$state SET SINGLE_USER WITH ROLLBACK IMMEDIATE; DROP DATABASE mcpdb_$state; END" ;;
  esac
}
