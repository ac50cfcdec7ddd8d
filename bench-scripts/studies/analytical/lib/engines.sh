# shellcheck shell=bash
# shellcheck disable=SC2034  # the variables set here are used by the scripts that source this file
# Engine adapters for the analytical study: how to reach each system and which client command runs a
# SQL file on it. Sourced by prepare/run/cleanup. Dialect differences live in the workload files;
# only connection and client flags live here.

STUDY_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH_DIR="$(cd "$STUDY_DIR/../.." && pwd)"
SYSTEMS_DIR="$BENCH_DIR/systems"
PY="$STUDY_DIR/lib/analytical.py"
# the system interpreter when there is one: version-manager shims (pyenv) add ~100 ms per call
if [[ -x /usr/bin/python3 ]]; then PYTHON=/usr/bin/python3; else PYTHON="$(command -v python3)"; fi
STATE_DIR="${SAMEBOX_STATE:-/var/lib/samebox}/analytical"
DATA_DIR="$STATE_DIR/data"
PARQUET_DIR="$DATA_DIR/parquet"
ANALYTICAL_SYSTEMS="postgresql duckdb sqlite mariadb pgwire"

die() { echo "analytical: $*" >&2; exit 2; }
unavailable() { echo "$*"; exit 3; }

check_system_name() {
  case " $ANALYTICAL_SYSTEMS " in
    *" $1 "*) ;;
    *) die "unknown system '$1'; valid: $ANALYTICAL_SYSTEMS" ;;
  esac
}

# Given a duckdb command, the native binary behind it (follows the duckdb-cli Python wrapper).
real_duckdb() {
  local cli="$1" interp
  [[ -n "$cli" && -x "$cli" ]] || return 0
  if [[ "$(head -c 2 "$cli")" == '#!' ]] && head -n 1 "$cli" | grep -q python; then
    interp="$(head -n 1 "$cli" | sed 's/^#! *//; s/ .*//')"
    "$interp" -c 'import duckdb_cli, os; print(os.path.join(os.path.dirname(duckdb_cli.__file__), "duckdb"))' 2>/dev/null || echo "$cli"
  else
    echo "$cli"
  fi
}

# Loads DB_HOST DB_PORT DB_USER DB_PASSWORD DB_NAME (and DUCKDB_BIN etc.) from the system's env verb.
# Lines must be KEY=VALUE with an upper-case key; anything else is ignored rather than evaluated.
load_system_env() {
  local sys="$1" line
  if [[ "$sys" == pgwire ]]; then
    [[ -n "${PGWIRE_DSN:-}" ]] || unavailable "pgwire: PGWIRE_DSN is not set (e.g. postgresql://user:pass@127.0.0.1:5433/db)"
    return 0
  fi
  if [[ -x "$SYSTEMS_DIR/$sys/env" ]]; then
    while IFS= read -r line; do
      [[ "$line" =~ ^([A-Z][A-Z0-9_]*)=(.*)$ ]] && export "${BASH_REMATCH[1]}=${BASH_REMATCH[2]}"
    done < <("$SYSTEMS_DIR/$sys/env")
  elif [[ -z "${DB_PORT:-}" && "$sys" != duckdb && "$sys" != sqlite ]]; then
    die "$sys: no $SYSTEMS_DIR/$sys/env verb and no DB_HOST/DB_PORT in the environment"
  fi
  case "$sys" in
    duckdb)
      # The PyPI duckdb-cli package installs a Python wrapper as `duckdb`; time the real binary it
      # wraps, so the spawn cost we report is DuckDB's and not a Python interpreter's.
      DUCKDB_BIN="${DUCKDB_BIN:-$(real_duckdb "${DB_CLI:-$(command -v duckdb || true)}")}"
      [[ -n "$DUCKDB_BIN" && -x "$DUCKDB_BIN" ]] || unavailable "duckdb: no DuckDB CLI found (run systems/duckdb/install)"
      export DUCKDB_BIN
      DUCKDB_FILE="$STATE_DIR/duckdb.db" ;;
    sqlite)
      SQLITE_BIN="${SQLITE_BIN:-${DB_CLI:-$(command -v sqlite3 || true)}}"
      [[ -n "$SQLITE_BIN" && -x "$SQLITE_BIN" ]] || unavailable "sqlite: no sqlite3 CLI found (run systems/sqlite/install)"
      SQLITE_FILE="$STATE_DIR/sqlite.db" ;;
    postgresql)
      command -v psql >/dev/null || unavailable "postgresql: no psql client"
      export PGPASSWORD="${DB_PASSWORD:-}"
      # the study's tables live in their own schema (see lib/analytical.py load-sql)
      export PGOPTIONS="-c search_path=analytical" ;;
    mariadb)
      command -v mariadb >/dev/null || unavailable "mariadb: no mariadb client"
      export MYSQL_PWD="${DB_PASSWORD:-}" ;;
  esac
}

# EXEC_CMD: the command that runs a SQL file with results discarded by hyperfine (no shell: -N).
# QUERY_CMD: the same but printing rows tab-separated for the answer check. NULL_TOKEN: how that
# client prints NULL.
engine_commands() {
  local sys="$1" file="$2"
  case "$sys" in
    postgresql)
      EXEC_CMD=(psql -X -q -v ON_ERROR_STOP=1 -h "$DB_HOST" -p "$DB_PORT" -U "$DB_USER" -d "$DB_NAME" -f "$file")
      QUERY_CMD=("${EXEC_CMD[@]}" -A -t -F $'\t' -P 'null=\N' -P footer=off)
      NULL_TOKEN='\N' ;;
    pgwire)
      EXEC_CMD=(psql "$PGWIRE_DSN" -X -q -v ON_ERROR_STOP=1 -f "$file")
      QUERY_CMD=("${EXEC_CMD[@]}" -A -t -F $'\t' -P 'null=\N' -P footer=off)
      NULL_TOKEN='\N' ;;
    duckdb)
      EXEC_CMD=("$DUCKDB_BIN" -no-init -batch -bail "$DUCKDB_FILE" -f "$file")
      QUERY_CMD=("$DUCKDB_BIN" -no-init -batch -bail -list -noheader -separator $'\t' -nullvalue '\N' "$DUCKDB_FILE" -f "$file")
      NULL_TOKEN='\N' ;;
    sqlite)
      EXEC_CMD=("$SQLITE_BIN" -init /dev/null -batch -bail "$SQLITE_FILE" ".read $file")
      QUERY_CMD=("$SQLITE_BIN" -init /dev/null -batch -bail -list -noheader -separator $'\t' -nullvalue '\N' "$SQLITE_FILE" ".read $file")
      NULL_TOKEN='\N' ;;
    mariadb)
      local conn=(-h "$DB_HOST" -P "$DB_PORT" -u "$DB_USER")
      [[ -n "${DB_SOCKET:-}" && "${MARIADB_USE_SOCKET:-0}" == 1 ]] && conn=(-S "$DB_SOCKET" -u "$DB_USER")
      EXEC_CMD=(mariadb --no-defaults --protocol=TCP "${conn[@]}" --batch --local-infile=1 "$DB_NAME" -e "source $file")
      QUERY_CMD=(mariadb --no-defaults --protocol=TCP "${conn[@]}" --batch --raw --skip-column-names "$DB_NAME" -e "source $file")
      NULL_TOKEN='NULL' ;;
  esac
}

# Runs a SQL file on SYS for its side effects (setup, loading); output to stderr-free log.
engine_exec() {
  local sys="$1" file="$2"
  engine_commands "$sys" "$file"
  if [[ "$sys" == sqlite || "$sys" == duckdb ]]; then mkdir -p "$STATE_DIR"; fi
  "${EXEC_CMD[@]}" >/dev/null
}

# Server systems have a process to restart for cold runs; embedded ones open a file per client.
is_embedded() { [[ "$1" == duckdb || "$1" == sqlite ]]; }
