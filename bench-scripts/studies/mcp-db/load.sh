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

# load_matches STATE DATA: true when mcpdb_<state> of the system in use has exactly the generated
# row counts.
load_matches() {
  local state="$1" data="$2" got want t
  got="$(db_query "$state" "$(count_query)" 2>/dev/null)" || return 1
  for t in $(mcpdb_tables); do
    want="$(expected_count "$data" "$t")"
    grep -Eq "^${t}[[:space:]|,]+${want}\$" <<<"$got" || return 1
  done
  # The indexed state must have its indexes (a load interrupted before them does not count).
  if [[ "$state" == indexed ]]; then
    [[ "$(index_count)" -ge 10 ]] || return 1
  fi
  return 0
}

# Everything below is keyed by the system's SQL dialect (system.json sql.dialect), never by its
# name; the binaries come from its env verb (DB_CLI: its SQL client; PG_BIN, DB_SOCKET).
index_count() {
  case "$SYSTEM_DIALECT" in
    postgresql) db_query indexed "SELECT COUNT(*) FROM pg_indexes WHERE schemaname = 'public' AND indexname LIKE 'ix\_%'" ;;
    mysql) db_query indexed "SELECT COUNT(DISTINCT index_name) FROM information_schema.statistics WHERE table_schema = 'mcpdb_indexed' AND index_name LIKE 'ix\_%'" ;;
    sqlite) db_query indexed "SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND name LIKE 'ix\_%' ESCAPE '\\'" ;;
    tsql) db_query indexed "SET NOCOUNT ON; SELECT COUNT(*) FROM sys.indexes WHERE name LIKE 'ix[_]%'" ;;
  esac
}

# ---- clients --------------------------------------------------------------------------------

# PostgreSQL dialect: the superuser over the server's unix socket (peer auth as OS user postgres)
# creates and drops databases; the bench user over TCP loads and queries.
pg_admin() {
  system_require_env PG_BIN DB_SOCKET
  runuser -u postgres -- "$PG_BIN/psql" -X -q -At -v ON_ERROR_STOP=1 -h "$DB_SOCKET" -p "$DB_PORT" -d postgres "$@"
}
pg_bench() {
  system_require_env DB_CLI
  PGPASSWORD="$DB_PASSWORD" PGCONNECT_TIMEOUT=5 "$DB_CLI" -X -q -At -v ON_ERROR_STOP=1 -h "$DB_HOST" -p "$DB_PORT" -U "$DB_USER" "$@"
}

# MySQL dialect: root over the server's socket (unix_socket auth on MariaDB, empty password on
# MySQL --initialize-insecure), the system's own client binary.
mf_root() {
  system_require_env DB_CLI DB_SOCKET
  "$DB_CLI" --no-defaults --socket="$DB_SOCKET" --user=root --batch --skip-column-names "$@"
}

# T-SQL: sqlcmd (DB_CLI) and bcp beside it (mssql-tools18), as the bench login over TCP.
sqlserver_cmd() {
  system_require_env DB_CLI
  SQLCMDPASSWORD="$DB_PASSWORD" "$DB_CLI" -C -S "$DB_HOST,$DB_PORT" -U "$DB_USER" -b -h -1 -W "$@"
}

# db_query STATE SQL: run one query in mcpdb_<state>, rows tab/pipe-separated.
db_query() {
  local state="$1" sql="$2" file
  case "$SYSTEM_DIALECT" in
    postgresql) pg_bench -d "mcpdb_$state" -F $'\t' -c "$sql" ;;
    mysql) mf_root -D "mcpdb_$state" -e "$sql" ;;
    sqlite)
      file="$(mcpdb_database "$state")"
      [[ -f "$file" ]] && "$DB_CLI" -readonly -separator $'\t' "$file" "$sql" ;;
    tsql) sqlserver_cmd -d "mcpdb_$state" -s $'\t' -Q "$sql" ;;
    *) die "mcp-db has no loader for dialect '$SYSTEM_DIALECT' ($SYSTEM_NAME)" ;;
  esac
}

# ---- loaders: load_<dialect> STATE DATA ------------------------------------------------------

load_postgresql() {
  local state="$1" data="$2" t
  log "$SYSTEM_NAME: creating mcpdb_$state and loading with COPY"
  pg_admin -c "DROP DATABASE IF EXISTS mcpdb_$state WITH (FORCE)" -c "CREATE DATABASE mcpdb_$state OWNER $DB_USER"
  pg_bench -d "mcpdb_$state" -f "$MCPDB_DIR/sql/schema.postgresql.sql"
  for t in $(mcpdb_tables); do
    pg_bench -d "mcpdb_$state" -c "\\copy $t FROM '$data/$t.csv' WITH (FORMAT csv)"
  done
  if [[ "$state" == indexed ]]; then pg_bench -d "mcpdb_$state" -f "$MCPDB_DIR/sql/indexes.sql"; fi
  pg_bench -d "mcpdb_$state" -c "VACUUM ANALYZE $(mcpdb_tables | paste -sd, - | sed 's/,/, /g')"
}

load_mysql() {
  local state="$1" data="$2" t infile_was=""
  log "$SYSTEM_NAME: creating mcpdb_$state and loading with LOAD DATA LOCAL INFILE"
  mf_root -e "DROP DATABASE IF EXISTS mcpdb_$state; CREATE DATABASE mcpdb_$state;
    GRANT ALL PRIVILEGES ON mcpdb_$state.* TO '$DB_USER'@'127.0.0.1';
    GRANT ALL PRIVILEGES ON mcpdb_$state.* TO '$DB_USER'@'localhost';"
  # MySQL 8 ships with local_infile OFF; switch it on for the load only.
  infile_was="$(mf_root -e "SELECT @@GLOBAL.local_infile")"
  [[ "$infile_was" == 1 ]] || mf_root -e "SET GLOBAL local_infile = 1"
  mf_root -D "mcpdb_$state" < "$MCPDB_DIR/sql/schema.mysql.sql"
  for t in $(mcpdb_tables); do
    mf_root --local-infile=1 -D "mcpdb_$state" \
      -e "LOAD DATA LOCAL INFILE '$data/$t.csv' INTO TABLE $t FIELDS TERMINATED BY ',' LINES TERMINATED BY '\\n'"
  done
  [[ "$infile_was" == 1 ]] || mf_root -e "SET GLOBAL local_infile = 0"
  if [[ "$state" == indexed ]]; then mf_root -D "mcpdb_$state" < "$MCPDB_DIR/sql/indexes.sql"; fi
  mf_root -D "mcpdb_$state" -e "ANALYZE TABLE $(mcpdb_tables | paste -sd, -)" >/dev/null
}

load_sqlite() {
  local state="$1" data="$2" t file tmp
  file="$(mcpdb_database "$state")"
  tmp="$file.loading"
  log "$SYSTEM_NAME: building $file with .import"
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

# SQL Server (cloud box only): bcp from mssql-tools18 beside sqlcmd, the bench login.
load_tsql() {
  local state="$1" data="$2" t bcp
  bcp="$(dirname "${DB_CLI:-/nonexistent}")/bcp"
  [[ -x "${DB_CLI:-}" && -x "$bcp" ]] || not_available "$SYSTEM_NAME: bcp/sqlcmd (mssql-tools18) are not installed"
  log "$SYSTEM_NAME: creating mcpdb_$state and loading with bcp"
  sqlserver_cmd -Q "IF DB_ID('mcpdb_$state') IS NOT NULL BEGIN ALTER DATABASE mcpdb_$state SET SINGLE_USER WITH ROLLBACK IMMEDIATE; DROP DATABASE mcpdb_$state; END; CREATE DATABASE mcpdb_$state"
  sqlserver_cmd -d "mcpdb_$state" -i "$MCPDB_DIR/sql/schema.tsql.sql"
  for t in $(mcpdb_tables); do
    "$bcp" "$t" in "$data/$t.csv" -S "$DB_HOST,$DB_PORT" -U "$DB_USER" -P "$DB_PASSWORD" -d "mcpdb_$state" -c -t, -b 100000 -u >&2
  done
  if [[ "$state" == indexed ]]; then sqlserver_cmd -d "mcpdb_$state" -i "$MCPDB_DIR/sql/indexes.sql"; fi
  sqlserver_cmd -d "mcpdb_$state" -Q "EXEC sp_updatestats" >/dev/null
}

drop_database() {
  local state="$1" file
  case "$SYSTEM_DIALECT" in
    postgresql) pg_admin -c "DROP DATABASE IF EXISTS mcpdb_$state WITH (FORCE)" ;;
    mysql) mf_root -e "DROP DATABASE IF EXISTS mcpdb_$state" ;;
    sqlite)
      file="$(mcpdb_database "$state")"
      rm -f "$file" "$file"-{wal,shm} ;;
    tsql) sqlserver_cmd -Q "IF DB_ID('mcpdb_$state') IS NOT NULL BEGIN ALTER DATABASE mcpdb_$state SET SINGLE_USER WITH ROLLBACK IMMEDIATE; DROP DATABASE mcpdb_$state; END" ;;
  esac
}
