# shellcheck shell=bash disable=SC2034  # variables here are used by the verbs that source this
# The JS MCP server family, shared by systems/mcp-nodejs (Node 24) and systems/mcp-bun (Bun) like
# lib/mysql-family.sh: one source in lib/mcp-node/ (index.js + package.json + package-lock.json). Each
# system installs its own copy under its $MCP_OPT/app with `npm ci` from the same lock file. Sourced
# by each of those systems' _lib.sh after lib/mcp-server.sh (not a verb).

JS_APP_SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/mcp-node" && pwd)"
JS_APP="$MCP_OPT/app"
JS_WORKERS="${WEB_CONCURRENCY:-4}"
require_uint WEB_CONCURRENCY "$JS_WORKERS" 1
# 1 = application/json answers (our default), 0 = SSE frames as the seed.
JS_JSON_RESPONSE="${MCP_JSON_RESPONSE:-1}"
[[ "$JS_JSON_RESPONSE" == 0 || "$JS_JSON_RESPONSE" == 1 ]] || die "MCP_JSON_RESPONSE=$JS_JSON_RESPONSE is not valid (valid: 1 = JSON answers, 0 = SSE as the seed)"

# js_app_install [EXTRA_HASH_FILE...]: copy the app into $JS_APP and `npm ci` its locked
# dependencies; nothing when that copy is of the current sources.
js_app_install() {
  local hash
  hash="$(mcp_src_hash "$JS_APP_SRC" "$@")"
  if mcp_build_current "$hash" && [[ -d "$JS_APP/node_modules/@modelcontextprotocol/sdk" ]]; then
    log "$MCP_SYSTEM_NAME app is installed ($JS_APP, sources $hash)"; return 0
  fi
  command -v npm >/dev/null || die "npm is missing: apt-get install npm (or install Node.js)"
  rm -rf "$JS_APP"
  mkdir -p "$JS_APP"
  cp "$JS_APP_SRC/package.json" "$JS_APP_SRC/package-lock.json" "$JS_APP_SRC/index.js" "$JS_APP/"
  log "npm ci in $JS_APP"
  (cd "$JS_APP" && npm ci --omit=dev --no-audit --no-fund --loglevel=error >&2) || die "npm ci failed in $JS_APP"
  mcp_build_done "$hash"
}

js_app_require_installed() {
  [[ -f "$JS_APP/index.js" && -d "$JS_APP/node_modules/@modelcontextprotocol/sdk" ]] \
    || not_available "$MCP_SYSTEM_NAME is not installed ($JS_APP missing): run systems/$MCP_SYSTEM_NAME/install"
}

# js_pkg_version NAME: the installed version of a dependency (else the locked one).
js_pkg_version() {
  local pj="$JS_APP/node_modules/$1/package.json"
  if [[ -f "$pj" ]]; then json_get "$pj" version
  else python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["packages"]["node_modules/"+sys.argv[2]]["version"])' "$JS_APP_SRC/package-lock.json" "$1"
  fi
}

# js_app_start RUNTIME...: start the cluster under the given runtime command.
js_app_start() {
  js_app_require_installed
  mcp_server_start env MCP_PORT="$MCP_PORT" SERVER_TYPE="$MCP_IMPL" WEB_CONCURRENCY="$JS_WORKERS" \
    MCP_JSON_RESPONSE="$JS_JSON_RESPONSE" "$@" "$JS_APP/index.js"
}

# js_app_config RUNTIME_LINE: the settings both JS systems share.
js_app_config() {
  cat <<CFG
runtime=$1
workers=$JS_WORKERS (node:cluster primary + workers)
transport=streamable-http
stateless=true (new McpServer + StreamableHTTPServerTransport per HTTP request, as the seed)
responses=$([[ "$JS_JSON_RESPONSE" == 1 ]] && echo "application/json (enableJsonResponse)" || echo "text/event-stream (as the seed)")
sdk=@modelcontextprotocol/sdk $(js_pkg_version @modelcontextprotocol/sdk)
http_framework=express $(js_pkg_version express)
redis_client=ioredis $(js_pkg_version ioredis), one connection per worker
api_client=global fetch (runtime default connection pool)
checkout_redis=INCR,RPUSH,ZINCRBY separate, parallel with the POST
search_redis=ZREVRANGE bench:popular 0 9
CFG
}
