# shellcheck shell=bash disable=SC2034
# Shared by the MCP server verbs (sourced, not a verb). One folder per server, the same verbs:
#   install                 install the server (idempotent); exit 3 when this machine cannot have it
#   start <system> <database>  serve <database> of <system> (a database name on a server, the
#                           database file of an embedded engine; connection from the system's
#                           folder, lib/system.sh) on 127.0.0.1:$MCP_PORT; prints MCP_URL,
#                           MCP_TOOL, MCP_ARGS_EXTRA, MCP_PID lines
#   check                   exit 0 when the running server answers an MCP initialize
#   stop                    stop it; exit 0 when it was not running
#   version                 one line, the server's version
# State (pid file, config, log) lives under $SAMEBOX_STATE/mcp-servers/<server>; installs under
# $SAMEBOX_OPT/mcp-servers/<server> (default /opt/samebox).

# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
# shellcheck source=../lib/system.sh
. "$BENCH_SCRIPTS_DIR/lib/system.sh"

MCP_SERVER_NAME="$(basename "$(cd "$(dirname "$0")" && pwd)")"
SAMEBOX_OPT="${SAMEBOX_OPT:-/opt/samebox}"
MCP_OPT="$SAMEBOX_OPT/mcp-servers/$MCP_SERVER_NAME"
MCP_STATE="$SAMEBOX_STATE/mcp-servers/$MCP_SERVER_NAME"
MCP_PIDFILE="$MCP_STATE/server.pid"
MCP_LOG="$MCP_STATE/server.log"
# Node >= 22.5 for DBHub: the repo's node@24 devDependency, else a node on PATH if new enough.
REPO_NODE="$BENCH_SCRIPTS_DIR/../node_modules/.bin/node"

mcp_default_port() {
  case "$MCP_SERVER_NAME" in faucet) echo 18801 ;; dbhub) echo 18802 ;; toolbox) echo 18803 ;; *) echo 18809 ;; esac
}
MCP_PORT="${MCP_PORT:-$(mcp_default_port)}"
require_port MCP_PORT "$MCP_PORT"
MCP_URL="http://127.0.0.1:$MCP_PORT/mcp"

# mcp_use_system_database SYSTEM DATABASE: the system (system_use: its env, dialect, client,
# drivers) and the database to serve, MCP_DB (a name on a server; a file for an embedded engine).
# Servers key their connection settings by dialect, client or Go driver, never by system name.
mcp_use_system_database() {
  local system="${1:-}" db="${2:-}"
  system_use "$system"
  system_require sql
  [[ -n "$db" ]] || bad_input "usage: start <system> <database> (the database name; for an embedded engine its file)"
  if [[ "$SYSTEM_KIND" == embedded ]]; then
    [[ "$db" == /* && -f "$db" ]] || die "$db does not exist: give an embedded engine's database file (studies/mcp-db/prepare $system makes them)"
  else
    system_require_env DB_HOST DB_PORT DB_USER
    [[ "$db" =~ ^[A-Za-z0-9_]+$ ]] || bad_input "database '$db' is not a plain name (valid: letters, digits, _)"
  fi
  MCP_DB="$db"
}

mcp_pid() { pidfile_pid "$MCP_PIDFILE"; }

# initialize over Streamable HTTP; any 2xx with a JSON-RPC result counts as up.
mcp_initialize_ok() {
  local body
  body="$(curl -sS -m 5 -X POST "$MCP_URL" \
    -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
    --data '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"samebox-check","version":"0"}}}' 2>/dev/null)" || return 1
  [[ "$body" == *'"result"'* && "$body" == *protocolVersion* ]]
}

# mcp_launch CMD...: start the server in its own session (so stop can end its whole process
# group), log to $MCP_LOG, wait until it answers initialize (at most 60 s).
mcp_launch() {
  mkdir -p "$MCP_STATE"
  if [[ -n "$(mcp_pid)" ]]; then
    log "a $MCP_SERVER_NAME server is already running (pid $(mcp_pid)); stopping it first"
    mcp_stop
  fi
  if curl -s -m 2 -o /dev/null "http://127.0.0.1:$MCP_PORT/" 2>/dev/null; then
    die "port $MCP_PORT is already in use by another process (set MCP_PORT to a free port)"
  fi
  : > "$MCP_LOG"
  setsid "$@" >>"$MCP_LOG" 2>&1 < /dev/null &
  echo $! > "$MCP_PIDFILE"
  inside_pidfile "$MCP_PIDFILE"  # the MCP server is under test: its CPU is the cell's own
  local pid i
  pid="$(cat "$MCP_PIDFILE")"
  for (( i = 0; i < 120; i++ )); do
    if ! pid_alive "$pid"; then
      log "$MCP_SERVER_NAME exited during start; last log lines:"; tail -n 15 "$MCP_LOG" >&2
      rm -f "$MCP_PIDFILE"
      return 1
    fi
    if mcp_initialize_ok; then
      log "$MCP_SERVER_NAME ready on $MCP_URL (pid $pid)"
      return 0
    fi
    sleep 0.5
  done
  log "$MCP_SERVER_NAME did not answer initialize on $MCP_URL within 60 s; last log lines:"; tail -n 15 "$MCP_LOG" >&2
  mcp_stop
  return 1
}

mcp_stop() {
  local pid i
  pid="$(mcp_pid)"
  if [[ -z "$pid" ]]; then rm -f "$MCP_PIDFILE"; return 0; fi
  # setsid made the server its own process-group leader: TERM the group (npm/node wrappers too).
  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
  for (( i = 0; i < 40; i++ )); do pid_alive "$pid" || break; sleep 0.25; done
  if pid_alive "$pid"; then kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true; fi
  rm -f "$MCP_PIDFILE"
  log "$MCP_SERVER_NAME stopped"
}

mcp_print_endpoint() {
  printf 'MCP_URL=%s\nMCP_TOOL=%s\nMCP_ARGS_EXTRA=%s\nMCP_PID=%s\n' "$MCP_URL" "$1" "${2:-{\}}" "$(mcp_pid)"
}

node_for_dbhub() {
  local n
  for n in "$REPO_NODE" "$(command -v node || true)"; do
    [[ -n "$n" && -x "$n" ]] || continue
    if "$n" -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>22||(a===22&&b>=5)?0:1)' 2>/dev/null; then
      printf '%s\n' "$n"; return 0
    fi
  done
  return 1
}
