#!/usr/bin/env bash
# mcp-servers study (seed 003): a failing dependency must give an MCP isError result, never a fake
# success. For each of the native-language servers (mcp-rust, mcp-go, mcp-nodejs, mcp-bun,
# mcp-python) that is installed here: start it against the real seeded Redis but with
# API_SERVICE_URL at a closed port, then against the real api-service but with REDIS_URL at a closed
# port, and call each tool: every call must answer a JSON-RPC result with isError: true and a
# message. The positive path (every tool's checked result) is suite 36's conformance run. Ports:
# Redis SAMEBOX_REDIS_PORT (default 26389), api-service SAMEBOX_API_PORT (28109), the server
# SAMEBOX_MCP_PORT (28199); the closed ports are free ones picked at start. Servers are
# built by their install verbs (cached by source hash); one that cannot be installed here is skipped.
set -uo pipefail
cd "$(dirname "$0")/../../.." || exit 1
# shellcheck source=pipeline/bin/test-lib.sh
. pipeline/bin/test-lib.sh
export SAMEBOX_STATE="${SAMEBOX_STATE:-/var/lib/samebox}"
export SAMEBOX_MCP_PORT="${SAMEBOX_MCP_PORT:-28199}"
export SAMEBOX_REDIS_PORT="${SAMEBOX_REDIS_PORT:-26389}" SAMEBOX_API_PORT="${SAMEBOX_API_PORT:-28109}"
live_redis="redis://127.0.0.1:$SAMEBOX_REDIS_PORT" live_api="http://127.0.0.1:$SAMEBOX_API_PORT"
# Closed ports: free ones the kernel picks (not 1/2: fetch refuses "bad ports" before connecting).
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
closed_api="http://127.0.0.1:$(free_port)" closed_redis="redis://127.0.0.1:$(free_port)"
study=bench-scripts/studies/mcp-servers
root="$PWD"
trap 'bash "$root/$study/deps" stop >/dev/null 2>&1 || true' EXIT
if bash "$study/deps" start >/tmp/samebox-37-deps.log 2>&1; then ok "deps start (Redis :$SAMEBOX_REDIS_PORT, api-service :$SAMEBOX_API_PORT)"
else bad "deps start"; tail -n 5 /tmp/samebox-37-deps.log | sed 's/^/     | /'; finish; fi

# call_tools URL TOOL...: one stateless initialize + tools/call per tool; prints "TOOL iserror|SUCCESS|..."
call_tools() {
  python3 - "$@" <<'PY'
import json, sys, urllib.request
url, tools = sys.argv[1], sys.argv[2:]
args = {"search_products": {"category": "Electronics", "min_price": 50.0, "max_price": 500.0, "limit": 10},
        "get_user_cart": {"user_id": "user-00001"},
        "checkout": {"user_id": "user-00001", "items": [{"product_id": 42, "quantity": 2}, {"product_id": 1337, "quantity": 1}]}}
def post(msg, session=None):
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": "2025-06-18"}
    if session:
        headers["Mcp-Session-Id"] = session
    req = urllib.request.Request(url, json.dumps(msg).encode(), headers)
    with urllib.request.urlopen(req, timeout=40) as r:
        body, ctype, sid = r.read().decode(), r.headers.get("Content-Type", ""), r.headers.get("Mcp-Session-Id")
    if "text/event-stream" in ctype:
        body = next((l[5:].strip() for l in body.splitlines() if l.startswith("data:") and '"id"' in l), "{}")
    return (json.loads(body) if body.strip() else {}), sid
for tool in tools:
    try:
        init, sid = post({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "samebox-37", "version": "1"}}})
        post({"jsonrpc": "2.0", "method": "notifications/initialized"}, sid)
        res, _ = post({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": tool, "arguments": args[tool]}}, sid)
        result = res.get("result") or {}
        text = " ".join(c.get("text", "") for c in result.get("content", []) if isinstance(c, dict))
        if result.get("isError") is True and text.strip():
            print(f"{tool} iserror {text[:100]!r}")
        elif "error" in res:
            print(f"{tool} JSONRPC-ERROR {json.dumps(res['error'])[:160]}")
        else:
            print(f"{tool} SUCCESS {text[:160]!r}")
    except Exception as e:  # a transport failure is not the isError result we want either
        print(f"{tool} TRANSPORT {type(e).__name__}: {e}")
PY
}

# check_case SYSTEM LABEL TOOLS...: start SYSTEM (REDIS_URL/API_SERVICE_URL from the caller's env),
# call the tools, expect isError for each, stop.
check_case() {
  local s="$1" label="$2" dir="bench-scripts/systems/$1" url out line
  shift 2
  # SAMEBOX_MCP_NO_DEPS: start must not bring the broken dependency back (this suite manages them).
  if ! SAMEBOX_MCP_NO_DEPS=1 bash "$dir/start" > /tmp/samebox-37-start.log 2>&1; then
    bad "$s ($label): start"; tail -n 6 /tmp/samebox-37-start.log | sed 's/^/     | /'; bash "$dir/stop" >/dev/null 2>&1; return
  fi
  url=$(bash "$dir/env" | sed -n 's/^MCP_URL=//p')
  out=$(call_tools "$url" "$@")
  while read -r line; do
    if [[ "$line" == *" iserror "* ]]; then ok "$s ($label): ${line%% *} answers isError (${line#* iserror })"
    else bad "$s ($label): $line"; fi
  done <<<"$out"
  bash "$dir/stop" >/dev/null 2>&1
}

for s in mcp-rust mcp-go mcp-nodejs mcp-bun mcp-python; do
  dir=bench-scripts/systems/$s
  [[ -f "$dir/system.json" ]] || { echo "skip $s: no system.json"; continue; }
  bash "$dir/install" > /tmp/samebox-37-install.log 2>&1; rc=$?
  if [[ $rc -eq 3 ]]; then echo "skip $s: $(tail -n 1 /tmp/samebox-37-install.log)"; continue; fi
  if [[ $rc -ne 0 ]]; then bad "install $s (exit $rc)"; tail -n 5 /tmp/samebox-37-install.log | sed 's/^/     | /'; continue; fi
  REDIS_URL="$live_redis" API_SERVICE_URL="$closed_api" check_case "$s" "api-service down" search_products get_user_cart checkout
  REDIS_URL="$closed_redis" API_SERVICE_URL="$live_api" check_case "$s" "redis down" search_products get_user_cart checkout
done
finish
