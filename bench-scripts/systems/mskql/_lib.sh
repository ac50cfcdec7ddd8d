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
MSKQL_HOME="${SAMEBOX_MSKQL_HOME:-$SAMEBOX_OPT/mskql}"
MSKQL_TREE="$MSKQL_HOME/src"
MSKQL_BIN="$MSKQL_HOME/bin/mskql"
MSKQL_STAMP="$MSKQL_HOME/build.json"
MSKQL_STATE="$SELF_STATE"
MSKQL_DATA="$MSKQL_STATE/data"
MSKQL_LOG="$MSKQL_STATE/log/mskql.log"
MSKQL_PIDFILE="$MSKQL_STATE/mskql.pid"
MSKQL_PORT="$(system_self_port SAMEBOX_MSKQL_PORT mskql 54333)"
MSKQL_USER=mskql
# Linux only: mskql corks every client socket and never uncorks it, so each reply waits for the kernel's
# 200 ms cork timer (measured 2026-11-24: 50 x SELECT 1 through psql 10.95 s as built, 0.02 s without the
# cork). SAMEBOX_MSKQL_TCP_CORK: off (the default: our LD_PRELOAD shim nocork.c makes that one setsockopt a
# no-op, so replies leave when written, as on the seed's macOS, where TCP_NOPUSH does not hold them; without it
# every mskql figure here would measure the kernel's timer, not the engine) or as-built (upstream's code as it
# behaves on Linux). The server records the mode it was started with; version and config report it, so every
# record ("..., TCP_CORK off") and manifest says which it was.
MSKQL_TCP_CORK="${SAMEBOX_MSKQL_TCP_CORK:-off}"
[[ "$MSKQL_TCP_CORK" == as-built || "$MSKQL_TCP_CORK" == off ]] \
  || bad_input "mskql: SAMEBOX_MSKQL_TCP_CORK must be as-built or off, got '$MSKQL_TCP_CORK'"
MSKQL_NOCORK_SO="$MSKQL_HOME/lib/nocork.so"
# mskql binds every interface (INADDR_ANY, no option for the address); our LD_PRELOAD shim loopback.c makes that
# bind 127.0.0.1, always: the load tests target loopback only, and the server must not be reachable from the network.
MSKQL_LOOPBACK_SO="$MSKQL_HOME/lib/loopback.so"
MSKQL_CORK_FILE="$MSKQL_STATE/tcp_cork"
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
# The TCP_CORK mode of the running server (what start recorded), else the one a start would use.
mskql_cork_mode() { if [[ -n "$(mskql_pid)" && -s "$MSKQL_CORK_FILE" ]]; then cat "$MSKQL_CORK_FILE"; else echo "$MSKQL_TCP_CORK"; fi; }
mskql_running() { [[ -n "$(mskql_pid)" ]]; }
