# shellcheck shell=bash disable=SC2034  # variables here are used by the verbs that source this
# mskql (sourced, not a verb): seed 001's own engine, built from its public source at a pinned
# commit (lib/source-build.sh) and run as OS user mskql on 127.0.0.1's port (it binds every
# interface: mskql has no listen-address setting; the loads we send go to 127.0.0.1 only).
# No mskql code lives in this repository: install clones SAMEBOX_MSKQL_SRC (a git URL or a local
# clone; default the upstream repository) into $MSKQL_HOME/src and builds `make -C src release`.

# shellcheck source=../../lib/system.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../lib/system.sh"
# shellcheck source=../../lib/source-build.sh
. "$BENCH_SCRIPTS_DIR/lib/source-build.sh"
system_self_init

# The pin: upstream main on 2026-03-09 (the newest commit in the upstream repository; seed 001
# names no commit). Changing it rebuilds on the next install. SAMEBOX_MSKQL_COMMIT builds another
# commit (build.json, config and version say which one was built).
MSKQL_UPSTREAM="https://github.com/martinsk/mskql"
MSKQL_COMMIT="${SAMEBOX_MSKQL_COMMIT:-b3661c9814f6fdbf0b7434068028e8b7e8f6fb3c}"
MSKQL_SRC="${SAMEBOX_MSKQL_SRC:-}"
MSKQL_HOME="${SAMEBOX_MSKQL_HOME:-/opt/samebox/mskql}"
MSKQL_TREE="$MSKQL_HOME/src"
MSKQL_BIN="$MSKQL_HOME/bin/mskql"
MSKQL_STAMP="$MSKQL_HOME/build.json"
MSKQL_STATE="$SELF_STATE"
MSKQL_DATA="$MSKQL_STATE/data"
MSKQL_LOG="$MSKQL_STATE/log/mskql.log"
MSKQL_PIDFILE="$MSKQL_STATE/mskql.pid"
MSKQL_PORT="$(system_self_port SAMEBOX_MSKQL_PORT mskql 54333)"
MSKQL_USER=mskql
# mskql accepts any user name and password; these are what the workloads send.
MSKQL_DB_USER=bench
MSKQL_DB_NAME=mskql
# The seed's build: upstream's own release target (-O3 -flto -march=native -ffast-math ...).
MSKQL_MAKE_TARGET=release

mskql_installed() { [[ -x "$MSKQL_BIN" && -f "$MSKQL_STAMP" ]]; }

# Verbs other than install/stop exit 3 when mskql has not been built, saying how to build it.
mskql_require_installed() {
  mskql_installed || not_available "mskql is not built ($MSKQL_BIN missing): set SAMEBOX_MSKQL_SRC to a clone of $MSKQL_UPSTREAM (or leave it unset to clone upstream) and run systems/mskql/install"
}

mskql_psql_bin() {
  local bin
  bin="$(find /usr/lib/postgresql -maxdepth 3 -path '*/bin/psql' 2>/dev/null | sort -V | tail -n 1)"
  printf '%s\n' "${bin:-$(command -v psql || echo /usr/bin/psql)}"
}

mskql_psql() {
  PGPASSWORD=bench PGCONNECT_TIMEOUT=5 "$(mskql_psql_bin)" -X -q -At -v ON_ERROR_STOP=1 \
    -h 127.0.0.1 -p "$MSKQL_PORT" -U "$MSKQL_DB_USER" -d "$MSKQL_DB_NAME" "$@"
}

mskql_pid() { pidfile_pid "$MSKQL_PIDFILE"; }
mskql_running() { [[ -n "$(mskql_pid)" ]]; }
