# shellcheck shell=bash disable=SC2034,SC2119  # variables here are used by the verbs that source this
# The one lifecycle library of every MCP server samebox starts: start in its own session with a pid
# file, wait for an MCP initialize, check, stop the process group, source hashes for builds.
# Two kinds of folder source it (from a verb, after nothing else):
#   bench-scripts/systems/mcp-<impl>/   the mcp-servers study's servers (seed 003), which are systems:
#                                        . "$(dirname "$0")/../../lib/mcp-server.sh"
#   bench-scripts/studies/<st>/servers/<server>/   a study's own servers (mcp-db's Faucet, DBHub,
#                                        Toolbox), through the study's servers/_lib.sh, which calls
#                                        mcp_study_server_init after sourcing this.
# It sources lib/common.sh and lib/toolchains.sh. For a system folder mcp-<impl> it sets:
#   MCP_IMPL        <impl> (rust, go, java-vt, ...), also the tools' server_type
#   MCP_PORT        seed port + 10100 (SAMEBOX_MCP_PORT overrides)
#   MCP_URL         http://127.0.0.1:$MCP_PORT/mcp
#   MCP_OPT         build output: $SAMEBOX_OPT/mcp-servers/<impl> (SAMEBOX_OPT defaults to /opt/samebox)
#   MCP_STATE       $SAMEBOX_STATE/mcp-<impl>: server.pid, server.log
#   REDIS_URL, API_SERVICE_URL   the study's dependencies (exported, with the contract's defaults)
# Contract: bench-scripts/studies/mcp-servers/SERVER-CONTRACT.md (the server verbs, ports, deps and tool semantics).

# shellcheck source=./common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
# shellcheck source=./toolchains.sh
. "$(dirname "${BASH_SOURCE[0]}")/toolchains.sh"

MCP_DIR="$(cd "$(dirname "$0")" && pwd)"
# Set by mcp_system_init or mcp_study_server_init (below).
MCP_NAME="" MCP_OPT="" MCP_STATE="" MCP_PIDFILE="" MCP_LOG="" MCP_URL=""
MCP_PROTOCOL_CHECK=2025-06-18

# mcp_study_server_init DEFAULT_PORT: a study's own server (folder studies/<st>/servers/<name>):
# MCP_SERVER_NAME, MCP_OPT $SAMEBOX_OPT/mcp-servers/<name>, MCP_STATE $SAMEBOX_STATE/mcp-servers/<name>,
# MCP_PORT (env MCP_PORT, else DEFAULT_PORT), MCP_URL. Such a server is restarted by every start
# (it may serve another database) and has no dependencies to bring up.
mcp_study_server_init() {
  MCP_SERVER_NAME="$(basename "$MCP_DIR")"
  MCP_NAME="$MCP_SERVER_NAME"
  MCP_OPT="$SAMEBOX_OPT/mcp-servers/$MCP_SERVER_NAME"
  MCP_STATE="$SAMEBOX_STATE/mcp-servers/$MCP_SERVER_NAME"
  MCP_PIDFILE="$MCP_STATE/server.pid"
  MCP_LOG="$MCP_STATE/server.log"
  MCP_PORT_VAR=MCP_PORT
  MCP_PORT="${MCP_PORT:-$1}"
  require_port MCP_PORT "$MCP_PORT"
  MCP_URL="http://127.0.0.1:$MCP_PORT/mcp"
  MCP_CLIENT_VERSION=0
}

# Seed 003 ports + 10100 (the seed's 8080.. would collide with common local services).
mcp_seed_port() {
  case "$1" in
    java) echo 18180 ;; go) echo 18181 ;; python) echo 18182 ;; nodejs) echo 18183 ;;
    java-native) echo 18184 ;; quarkus) echo 18185 ;; quarkus-native) echo 18186 ;;
    java-vt) echo 18187 ;; java-vt-native) echo 18188 ;; java-webflux) echo 18189 ;;
    java-webflux-native) echo 18190 ;; micronaut) echo 18191 ;; micronaut-native) echo 18192 ;;
    bun) echo 18194 ;; rust) echo 18195 ;;
    *) return 1 ;;
  esac
}
MCP_IMPLS=(rust go java java-vt java-webflux quarkus micronaut bun nodejs python
  java-native java-vt-native java-webflux-native quarkus-native micronaut-native)

# mcp_system_init: a server that is a system (folder systems/mcp-<impl>); run when this file is
# sourced from such a folder. Its start first brings up the mcp-servers study's dependencies and
# leaves a server that answers running.
mcp_system_init() {
  MCP_SYSTEM_NAME="$(basename "$MCP_DIR")"
  [[ "$MCP_SYSTEM_NAME" == mcp-* ]] || die "lib/mcp-server.sh is for bench-scripts/systems/mcp-<impl>/ verbs, not '$MCP_SYSTEM_NAME'"
  MCP_NAME="$MCP_SYSTEM_NAME"
  MCP_SYSTEM_DIR="$MCP_DIR"
  MCP_IMPL="${MCP_SYSTEM_NAME#mcp-}"
  MCP_PORT_VAR=SAMEBOX_MCP_PORT
  MCP_PORT="${SAMEBOX_MCP_PORT:-$(mcp_seed_port "$MCP_IMPL" || die "unknown MCP server '$MCP_IMPL' (valid: ${MCP_IMPLS[*]})")}"
  require_port SAMEBOX_MCP_PORT "$MCP_PORT"
  MCP_URL="http://127.0.0.1:$MCP_PORT/mcp"
  MCP_OPT="$SAMEBOX_OPT/mcp-servers/$MCP_IMPL"
  MCP_STATE="$SAMEBOX_STATE/$MCP_SYSTEM_NAME"
  MCP_PIDFILE="$MCP_STATE/server.pid"
  MCP_LOG="$MCP_STATE/server.log"
  MCP_CLIENT_VERSION=1
  MCP_KEEP_RUNNING=1
  export REDIS_URL="${REDIS_URL:-redis://127.0.0.1:${SAMEBOX_REDIS_PORT:-16379}}"
  export API_SERVICE_URL="${API_SERVICE_URL:-http://127.0.0.1:${SAMEBOX_API_PORT:-18100}}"
}

# mcp_start_deps: the runner starts a system before the study's prepare: bring Redis + api-service up
# first so a server that connects at boot finds them (SAMEBOX_MCP_NO_DEPS=1: the caller manages them).
mcp_start_deps() {
  [[ "${MCP_KEEP_RUNNING:-}" == 1 && -z "${SAMEBOX_MCP_NO_DEPS:-}" ]] || return 0
  "$BENCH_SCRIPTS_DIR/studies/mcp-servers/deps" ensure >/dev/null \
    || die "the study's dependencies (Redis at $REDIS_URL, api-service at $API_SERVICE_URL) did not come up"
}

# shellcheck disable=SC2120  # callers may pass URL/PROTOCOL; the verbs use the defaults
# mcp_initialize_ok [URL] [PROTOCOL]: an MCP initialize POST gets a JSON-RPC result (JSON or SSE).
mcp_initialize_ok() {
  local url="${1:-$MCP_URL}" proto="${2:-$MCP_PROTOCOL_CHECK}" body
  body="$(curl -sS -m 5 -X POST "$url" \
    -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
    --data '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"'"$proto"'","capabilities":{},"clientInfo":{"name":"samebox-check","version":"'"${MCP_CLIENT_VERSION:-1}"'"}}}' \
    2>/dev/null)" || return 1
  [[ "$body" == *'"result"'* && "$body" == *protocolVersion* ]]
}

# mcp_pid: the pid in the pid file when that process is alive (nothing otherwise).
mcp_pid() { pidfile_pid "$MCP_PIDFILE"; }

mcp_port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# mcp_server_start [--timeout S] [--cwd DIR] CMD...: start CMD in its own session (setsid, so stop
# can end its whole process group: cluster/uvicorn workers, JVM), stdout+stderr to $MCP_LOG, pid
# in $MCP_PIDFILE; wait until MCP initialize answers on $MCP_URL (default 60 s; JVM servers pass 120;
# SAMEBOX_MCP_START_TIMEOUT raises either).
# On failure: the log tail on stderr, the group stopped, return 1.
mcp_server_start() {
  local timeout_s=60 cwd="" pid i
  while [[ "${1:-}" == --* ]]; do
    case "$1" in
      --timeout) timeout_s="$2"; shift 2 ;;
      --cwd) cwd="$2"; shift 2 ;;
      *) die "mcp_server_start: unknown option $1 (valid: --timeout S, --cwd DIR)" ;;
    esac
  done
  (( $# > 0 )) || die "mcp_server_start: no command given"
  # A busy machine (shared cores, a JVM's first start) may need longer: SAMEBOX_MCP_START_TIMEOUT raises it.
  if [[ "${SAMEBOX_MCP_START_TIMEOUT:-}" =~ ^[0-9]+$ ]] && (( SAMEBOX_MCP_START_TIMEOUT > timeout_s )); then
    timeout_s=$SAMEBOX_MCP_START_TIMEOUT
  fi
  mkdir -p "$MCP_STATE"
  # A system's server that answers is kept; a study's own server is restarted (it may serve another database).
  if [[ -n "$(mcp_pid)" ]]; then
    if [[ "${MCP_KEEP_RUNNING:-}" == 1 ]] && mcp_initialize_ok; then log "$MCP_NAME already running (pid $(mcp_pid)) on $MCP_URL"; return 0; fi
    log "$MCP_NAME pid $(mcp_pid) is running: stopping it first"
    mcp_server_stop
  fi
  mcp_start_deps
  mcp_port_busy "$MCP_PORT" && die "port $MCP_PORT is already in use by another process (set $MCP_PORT_VAR to a free port)"
  : > "$MCP_LOG"
  if [[ "${MCP_KEEP_RUNNING:-}" == 1 ]]; then
    log "starting $MCP_NAME on $MCP_URL (REDIS_URL=$REDIS_URL API_SERVICE_URL=$API_SERVICE_URL): $*"
  fi
  if [[ -n "$cwd" ]]; then
    (cd "$cwd" && exec setsid "$@" >>"$MCP_LOG" 2>&1 < /dev/null) &
  else
    setsid "$@" >>"$MCP_LOG" 2>&1 < /dev/null &
  fi
  pid=$!
  echo "$pid" > "$MCP_PIDFILE"
  inside_pidfile "$MCP_PIDFILE"  # the MCP server is under test: its CPU is the cell's own
  for (( i = 0; i < timeout_s * 4; i++ )); do
    if ! pid_alive "$pid"; then
      log "$MCP_NAME exited during start; last log lines:"; tail -n 20 "$MCP_LOG" >&2
      rm -f "$MCP_PIDFILE"
      return 1
    fi
    if mcp_initialize_ok; then log "$MCP_NAME ready on $MCP_URL (pid $pid, $(( i / 4 )) s)"; return 0; fi
    sleep 0.25
  done
  log "$MCP_NAME did not answer initialize on $MCP_URL within ${timeout_s} s; last log lines:"
  tail -n 20 "$MCP_LOG" >&2
  mcp_server_stop
  return 1
}

# mcp_server_stop: TERM the process group (setsid made the server its leader), KILL after 10 s.
mcp_server_stop() { stop_group "$MCP_PIDFILE" "$MCP_NAME"; }

mcp_server_check() { mcp_initialize_ok; }

# The verbs env and pids print exactly what the contract asks.
mcp_server_env() { printf 'MCP_URL=%s\nMCP_SERVER_TYPE=%s\n' "$MCP_URL" "$MCP_IMPL"; }
mcp_server_pids() { mcp_pid; }

# mcp_src_hash DIR [EXTRA_FILE...]: a short hash of the files under DIR that a build depends on
# (skips build output folders), plus EXTRA_FILEs. Used to rebuild only when sources changed. Paths
# relative to DIR and EXTRA_FILEs by base name: the same sources in another checkout (a fresh clone)
# hash the same, so they do not rebuild into the shared /opt folder.
mcp_src_hash() {
  local dir="$1" f; shift
  {
    (cd "$dir" && find . \( -name target -o -name node_modules -o -name bin -o -name .venv -o -name build \) -prune \
      -o -type f -print | LC_ALL=C sort | xargs -r sha256sum)
    for f in "$@"; do printf '%s  %s\n' "$(sha256sum < "$f" | cut -c1-64)" "$(basename "$f")"; done
  } | sha256sum | cut -c1-16
}

# mcp_build_current HASH: true when $MCP_OPT holds a build of exactly these sources.
mcp_build_current() { [[ -f "$MCP_OPT/.src-hash" && "$(cat "$MCP_OPT/.src-hash")" == "$1" ]]; }
# mcp_build_done HASH: record that $MCP_OPT now holds a build of these sources.
mcp_build_done() { mkdir -p "$MCP_OPT"; printf '%s\n' "$1" > "$MCP_OPT/.src-hash"; }

# mcp_native_unavailable: the GraalVM native servers are built on the cloud box only.
mcp_native_unavailable() {
  local ni="${GRAALVM_HOME:+$GRAALVM_HOME/bin/native-image}"
  [[ -n "$ni" && -x "$ni" ]] || ni="$(command -v native-image || true)"
  [[ -n "$ni" ]] || not_available "GraalVM native-image is not installed on this machine (cloud box only: set GRAALVM_HOME)"
}

# A verb in bench-scripts/systems/mcp-<impl>/ is a system: initialise now. A study's own server's
# _lib.sh calls mcp_study_server_init itself.
if [[ "$(basename "$(dirname "$MCP_DIR")")" == systems ]]; then mcp_system_init; fi
