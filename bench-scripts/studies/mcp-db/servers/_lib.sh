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
# The mcp-db study's own MCP servers: bench-scripts/studies/mcp-db/servers/<server>.
# State (pid file, config, log) lives under $SAMEBOX_STATE/mcp-servers/<server>; installs under
# $SAMEBOX_OPT/mcp-servers/<server> (default /opt/samebox).

# The lifecycle (start in its own session, pid file, initialize check, stop) is lib/mcp-server.sh's,
# shared with the mcp-servers study's systems.
# shellcheck source=../../../lib/mcp-server.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../../lib/mcp-server.sh"
# shellcheck source=../../../lib/system.sh
. "$BENCH_SCRIPTS_DIR/lib/system.sh"

# Node >= 22.5 for DBHub: the repo's node@24 devDependency, else a node on PATH if new enough.
REPO_NODE="$BENCH_SCRIPTS_DIR/../node_modules/.bin/node"

mcp_default_port() {
  case "$(basename "$MCP_DIR")" in faucet) echo 18801 ;; dbhub) echo 18802 ;; toolbox) echo 18803 ;; *) echo 18809 ;; esac
}
mcp_study_server_init "$(mcp_default_port)"

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
