# shellcheck shell=bash
# The SQL client families behind every system's `client` verb (source it, do not run it).
#
#   systems/<s>/client exec|query|null FILE [DBNAME]
#
# prints, NUL-separated, the argv that runs the SQL file FILE on that system with its own client:
#   exec   results discarded (what hyperfine times; no shell, no wrapper process in between)
#   query  result rows on stdout, tab-separated, no header (what an answer check reads)
#   null   not an argv: prints how `query` spells SQL NULL (\N, or NULL for the MySQL-family
#          clients, which cannot print anything else) and a newline
# DBNAME: servers: the database (default the env verb's DB_NAME); embedded engines: the
# database file (default the env verb's DB_PATH).
# Leading NAME=VALUE words are environment settings, as in env(1) (passwords go there so
# they never show in ps): `xargs -0 env < <(client exec f.sql)` runs the command.
# lib/system.sh's system_client_argv reads it into an array for the studies.
#
# The family comes from the system's system.json (sql.client); connection values from its
# env verb; the client binary from the verb itself (it knows where its system installs it).
# A bad mode exits 2 and `null` answers whether or not the system is installed (both are facts of
# the verb, not of this machine); exec and query exit 3 with the reason when it is not available
# here: the verb's SQL_CLIENT_REQUIRE (a function name, e.g. pg_require_installed) runs first, then
# the client binary and the env verb are checked.

# shellcheck source=./common.sh
declare -F not_available >/dev/null || . "$(dirname "${BASH_SOURCE[0]}")/common.sh"

SQL_CLIENT_FAMILIES=(psql mariadb mysql sqlite3 duckdb sqlcmd)

# sql_client_null FAMILY: how the family's query mode spells SQL NULL (the `null` mode's answer).
sql_client_null() { case "$1" in mariadb | mysql | sqlcmd) echo NULL ;; *) echo '\N' ;; esac; }

# sql_client_main CLIENT_BINARY ARG...: the whole `client` verb. Run from systems/<s>/client.
sql_client_main() {
  local bin="$1"
  shift
  local sysdir mode file db family
  sysdir="$(cd "$(dirname "$0")" && pwd)"
  [[ $# -ge 1 && $# -le 3 ]] || bad_input "usage: client exec|query|null FILE [DBNAME] (got $# arguments)"
  mode="$1" file="${2:-}" db="${3:-}"
  in_list "$mode" exec query null || bad_input "unknown mode '$mode' (valid: exec query null)"
  # a study that called system_use has this folder's sql.client exported (SYSTEM_CLIENT)
  if [[ "${SYSTEM_JSON:-}" == "$sysdir/system.json" && -n "${SYSTEM_CLIENT:-}" ]]; then
    family="$SYSTEM_CLIENT"
  else
    family="$(json_path "$sysdir/system.json" sql.client)"
  fi
  in_list "$family" "${SQL_CLIENT_FAMILIES[@]}" \
    || bad_input "$sysdir/system.json: sql.client '$family' is not a client family (valid: ${SQL_CLIENT_FAMILIES[*]})"
  if [[ "$mode" == null ]]; then
    sql_client_null "$family"
    return 0
  fi
  [[ -n "$file" ]] || bad_input "usage: client $mode FILE [DBNAME]: FILE (the SQL file to run) is missing"
  [[ -z "${SQL_CLIENT_REQUIRE:-}" ]] || "$SQL_CLIENT_REQUIRE"
  [[ -x "$bin" ]] || not_available "$(basename "$sysdir"): client $bin is not installed (run systems/$(basename "$sysdir")/install)"
  # the env verb's KEY=VALUE lines; exit 3 (not available here) passes through with its reason
  local env_out rc=0
  env_out="$("$sysdir/env")" || rc=$?
  (( rc == 0 )) || { (( rc == EXIT_NOT_AVAILABLE )) && not_available "$env_out"; die "$sysdir/env failed (exit $rc)"; }
  load_env_lines <<<"$env_out"
  local argv=()
  "sql_client_$family" "$mode" "$file" "$db" "$bin"
  printf '%s\0' "${argv[@]}"
}

# Each family fills the caller's array `argv` from MODE FILE DB BINARY and the env's DB_* values.
sql_client_psql() {
  local mode="$1" file="$2" db="$3" bin="$4"
  if [[ -n "${DB_URL:-}" && -z "$db" ]]; then
    # a server given by a connection URI (external): that URI as given, so its options stay
    argv=("$bin" -X -q -v ON_ERROR_STOP=1 -d "$DB_URL")
  elif [[ -n "${DB_HOST:-}" ]]; then
    argv=("PGPASSWORD=${DB_PASSWORD:-}" "$bin" -X -q -v ON_ERROR_STOP=1
      -h "$DB_HOST" -p "$DB_PORT" -U "$DB_USER" -d "${db:-$DB_NAME}")
  else
    die "the env verb printed neither DB_URL nor DB_HOST"
  fi
  argv+=(-f "$file")
  [[ "$mode" == exec ]] || argv+=(-A -t -F $'\t' -P 'null=\N' -P footer=off)
}

# MariaDB's and Oracle MySQL's clients take the same flags. --batch --raw prints rows
# tab-separated and NULL as the word NULL (no flag changes that; `client null` says so).
sql_client_mysql_family() {
  local mode="$1" file="$2" db="$3" bin="$4"
  argv=("MYSQL_PWD=${DB_PASSWORD:-}" "$bin" --no-defaults --protocol=TCP
    -h "$DB_HOST" -P "$DB_PORT" -u "$DB_USER" --batch)
  if [[ "$mode" == exec ]]; then argv+=(--local-infile=1); else argv+=(--raw --skip-column-names); fi
  argv+=("${db:-$DB_NAME}" -e "source $file")
}
sql_client_mariadb() { sql_client_mysql_family "$@"; }
sql_client_mysql() { sql_client_mysql_family "$@"; }

sql_client_sqlite3() {
  local mode="$1" file="$2" db="$3" bin="$4"
  argv=("$bin" -init /dev/null -batch -bail)
  [[ "$mode" == exec ]] || argv+=(-list -noheader -separator $'\t' -nullvalue '\N')
  argv+=("${db:-$DB_PATH}" ".read $file")
}

sql_client_duckdb() {
  local mode="$1" file="$2" db="$3" bin="$4"
  argv=("$bin" -no-init -batch -bail)
  [[ "$mode" == exec ]] || argv+=(-list -noheader -separator $'\t' -nullvalue '\N')
  argv+=("${db:-$DB_PATH}" -f "$file")
}

# mssql-tools18 sqlcmd: -C trusts the server's self-signed certificate (tools18 encrypt by
# default), -b exits non-zero on an error. query: no header (-h -1), trailing blanks trimmed
# (-W), tab-separated; sqlcmd prints NULL as NULL. nocount.sql first (-i takes a list) so
# "(N rows affected)" lines never mix with the rows.
sql_client_sqlcmd() {
  local mode="$1" file="$2" db="$3" bin="$4"
  argv=("SQLCMDPASSWORD=${DB_PASSWORD:-}" "$bin" -C -S "tcp:$DB_HOST,$DB_PORT" -U "$DB_USER"
    -d "${db:-$DB_NAME}" -l 10 -b)
  if [[ "$mode" == exec ]]; then
    argv+=(-i "$file")
  else
    argv+=(-h -1 -W -s $'\t' -i "$BENCH_SCRIPTS_DIR/lib/sql-clients.nocount.sql,$file")
  fi
}
