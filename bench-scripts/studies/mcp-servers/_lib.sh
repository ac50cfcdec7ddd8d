# shellcheck shell=bash disable=SC2034  # variables here are used by the verbs that source this
# Shared by the mcp-servers study's verbs (sourced, not a verb): where the study keeps its state and
# binaries, the dependencies (Redis, api-service) and the list of servers.

# shellcheck source=../../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../lib/common.sh"
# shellcheck source=../../lib/toolchains.sh
. "$BENCH_SCRIPTS_DIR/lib/toolchains.sh"
# shellcheck source=../../lib/system.sh
. "$BENCH_SCRIPTS_DIR/lib/system.sh"

MCPS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
MCPS_STATE="$SAMEBOX_STATE/mcp-servers"
MCPS_BIN="$MCPS_STATE/bin"
MCPS_LOADGEN="$BENCH_SCRIPTS_DIR/loadgen/mcp-load"
SYSTEMS_DIR="$BENCH_SCRIPTS_DIR/systems"

# Ports: SAMEBOX_REDIS_PORT / SAMEBOX_API_PORT, else the port of REDIS_URL / API_SERVICE_URL when a
# caller set those (a server verb passes its environment on), else 16379 / 18100.
url_port() { [[ "$1" =~ ^[a-z]+://[^/:]+:([0-9]+) ]] && printf '%s\n' "${BASH_REMATCH[1]}"; }
SAMEBOX_REDIS_PORT="${SAMEBOX_REDIS_PORT:-$(url_port "${REDIS_URL:-}" || echo 16379)}"
SAMEBOX_API_PORT="${SAMEBOX_API_PORT:-$(url_port "${API_SERVICE_URL:-}" || echo 18100)}"
require_port SAMEBOX_REDIS_PORT "$SAMEBOX_REDIS_PORT"
require_port SAMEBOX_API_PORT "$SAMEBOX_API_PORT"
export REDIS_URL="${REDIS_URL:-redis://127.0.0.1:$SAMEBOX_REDIS_PORT}"
export API_SERVICE_URL="${API_SERVICE_URL:-http://127.0.0.1:$SAMEBOX_API_PORT}"
# One state folder (pid file, log) per port: two instances on other ports in one SAMEBOX_STATE (a test
# suite's beside a run's) must not overwrite each other's pid file, which left one running that no stop
# could find and the next run refused with "port in use".
REDIS_DIR="$MCPS_STATE/redis-$SAMEBOX_REDIS_PORT"
API_DIR="$MCPS_STATE/api-service-$SAMEBOX_API_PORT"
export PATH="/usr/local/go/bin:$PATH"

# The study's servers: every system whose system.json meets study.json's `requires` (capability
# mcp-server), asked of the systems (lib/system.sh), never listed here; one name a line.
mcps_systems() { system_names_for "$MCPS_DIR/study.json"; }

# mcps_require_system NAME: NAME is a server this study runs, else bad input listing the valid ones.
# Only NAME is checked on the way through (listing every system costs a Python start each, ~0.75 s a cell).
mcps_require_system() {
  local s="${1:-}"
  if ! system_valid_name "$s" || ! system_meets "$MCPS_DIR/study.json" "$s"; then
    bad_input "unknown server '$s' (valid: $(mcps_systems | paste -sd' ' -))"
  fi
}

# mcps_go_build MODULE_DIR BINARY: build a Go module's main package into $MCPS_BIN when its sources changed.
mcps_go_build() {
  local dir="$1" bin="$2" want
  want="$(cd "$dir" && find . -type f \( -name '*.go' -o -name go.mod -o -name go.sum \) -print | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -c1-16)"
  if [[ -x "$MCPS_BIN/$bin" && -f "$MCPS_BIN/.$bin.hash" && "$(cat "$MCPS_BIN/.$bin.hash")" == "$want" ]]; then return 0; fi
  need_go 1.23
  mkdir -p "$MCPS_BIN"
  log "building $bin"
  (cd "$dir" && go build -trimpath -o "$MCPS_BIN/$bin" .) >&2 || die "building $bin from $dir failed"
  printf '%s\n' "$want" > "$MCPS_BIN/.$bin.hash"
}

# mcp-load (this repository's module) into $MCPS_BIN; k6 is built once per machine by the load
# generator's build script into loadgen/mcp-load/bin/k6 (5-7 minutes cold on 2 cores).
MCPS_K6="$MCPS_LOADGEN/bin/k6"
mcps_k6_built() { [[ -x "$MCPS_K6" && ! "$MCPS_LOADGEN/k6/tools/go.mod" -nt "$MCPS_K6" ]]; }
mcps_build_tools() {
  local want
  want="$(cd "$MCPS_LOADGEN" && find . -path ./k6 -prune -o -path ./bin -prune -o -type f \( -name '*.go' -o -name go.mod -o -name go.sum \) -print | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -c1-16)"
  if [[ ! -x "$MCPS_BIN/mcp-load" || "$(cat "$MCPS_BIN/.mcp-load.hash" 2>/dev/null)" != "$want" ]]; then
    need_go 1.25
    mkdir -p "$MCPS_BIN"
    log "building mcp-load"
    (cd "$MCPS_LOADGEN" && go build -trimpath -o "$MCPS_BIN/mcp-load" ./cmd/mcp-load) >&2 || die "building mcp-load failed"
    printf '%s\n' "$want" > "$MCPS_BIN/.mcp-load.hash"
  fi
}
mcps_build_k6() {
  mcps_k6_built && return 0
  need_go 1.25
  log "building k6 from go.k6.io/k6 into $MCPS_K6 (a cold build takes 5-7 minutes on 2 cores)"
  "$MCPS_LOADGEN/build" k6 >&2 || die "building k6 failed"
}

mcps_build_deps() {
  mcps_go_build "$MCPS_DIR/api-service" api-service
  mcps_go_build "$MCPS_DIR/seeder" seeder
}

# pidfile_pid comes from lib/common.sh (one copy for every study)
redis_pid() { pidfile_pid "$REDIS_DIR/redis.pid"; }
api_pid() { pidfile_pid "$API_DIR/api-service.pid"; }

redis_ok() { [[ "$(redis-cli -h 127.0.0.1 -p "$SAMEBOX_REDIS_PORT" PING 2>/dev/null)" == PONG ]]; }
api_ok() { curl -fsS -m 3 "$API_SERVICE_URL/health" 2>/dev/null | grep -q '"status":"ok"'; }
port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

redis_start() {
  inside_pidfile "$REDIS_DIR/redis.pid"  # part of the system under test: the noise guard counts it as inside
  if [[ -n "$(redis_pid)" ]] && redis_ok; then return 0; fi
  command -v redis-server >/dev/null || { is_debian_family && apt_install redis-server; }
  command -v redis-server >/dev/null || die "redis-server is not installed (Debian/Ubuntu: apt-get install redis-server)"
  port_busy "$SAMEBOX_REDIS_PORT" && die "port $SAMEBOX_REDIS_PORT is in use by another process (set SAMEBOX_REDIS_PORT)"
  mkdir -p "$REDIS_DIR"
  # As the seed: no persistence (--save "" --appendonly no); loopback only.
  setsid redis-server --bind 127.0.0.1 --port "$SAMEBOX_REDIS_PORT" --save "" --appendonly no \
    --dir "$REDIS_DIR" --daemonize no --protected-mode yes --maxclients 10000 \
    >"$REDIS_DIR/redis.log" 2>&1 < /dev/null &
  echo $! > "$REDIS_DIR/redis.pid"
  wait_until 20 "redis on port $SAMEBOX_REDIS_PORT" redis_ok || { tail -n 20 "$REDIS_DIR/redis.log" >&2; die "redis-server did not start"; }
  log "redis $(redis_version) on 127.0.0.1:$SAMEBOX_REDIS_PORT (pid $(redis_pid))"
}

api_start() {
  inside_pidfile "$API_DIR/api-service.pid"
  if [[ -n "$(api_pid)" ]] && api_ok; then return 0; fi
  port_busy "$SAMEBOX_API_PORT" && die "port $SAMEBOX_API_PORT is in use by another process (set SAMEBOX_API_PORT)"
  mkdir -p "$API_DIR"
  setsid "$MCPS_BIN/api-service" --addr "127.0.0.1:$SAMEBOX_API_PORT" >"$API_DIR/api-service.log" 2>&1 < /dev/null &
  echo $! > "$API_DIR/api-service.pid"
  wait_until 30 "api-service on port $SAMEBOX_API_PORT" api_ok || { tail -n 20 "$API_DIR/api-service.log" >&2; die "api-service did not start"; }
  log "api-service on $API_SERVICE_URL (pid $(api_pid))"
}

redis_version() { redis-server --version | sed -n 's/.*v=\([0-9.]*\).*/\1/p'; }

deps_reseed() {
  redis_ok || die "redis is not running on port $SAMEBOX_REDIS_PORT: run deps start first"
  "$MCPS_BIN/seeder" --url "$REDIS_URL" >&2 || die "seeding redis failed"
}

# mcps_isolation_params: SAMEBOX_SUT_CPUS / SAMEBOX_LOADGEN_CPUS (CPU lists such as 1 and 0) give the server
# under test its own CPUs and the load generator, Redis and the API service the others, by CPU affinity
# (taskset): in proportion to seed 003, where each server had its own 2-CPU container and k6 ran outside
# it. Both set, or neither (every process on every CPU). Sets LOADGEN_PIN: the prefix that pins a command.
mcps_isolation_params() {
  local sut="${SAMEBOX_SUT_CPUS:-}" gen="${SAMEBOX_LOADGEN_CPUS:-}" list='^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$' n
  LOADGEN_PIN=()
  [[ -z "$sut$gen" ]] && return 0
  [[ -n "$sut" && -n "$gen" ]] || die "SAMEBOX_SUT_CPUS='$sut' and SAMEBOX_LOADGEN_CPUS='$gen': set both or neither (e.g. 1 and 0)"
  [[ "$sut" =~ $list ]] || die "SAMEBOX_SUT_CPUS='$sut' is not valid (valid: a CPU list such as 1 or 2-3)"
  [[ "$gen" =~ $list ]] || die "SAMEBOX_LOADGEN_CPUS='$gen' is not valid (valid: a CPU list such as 0 or 0-1)"
  n="$(nproc --all)"
  local a b
  a="$(cpu_list_expand "$sut")" b="$(cpu_list_expand "$gen")"
  [[ -z "$(comm -12 <(tr ' ' '\n' <<< "$a" | sort) <(tr ' ' '\n' <<< "$b" | sort))" ]] \
    || die "SAMEBOX_SUT_CPUS='$sut' and SAMEBOX_LOADGEN_CPUS='$gen' share CPUs (they must be disjoint)"
  for c in $a $b; do (( c < n )) || die "CPU $c (SAMEBOX_SUT_CPUS='$sut', SAMEBOX_LOADGEN_CPUS='$gen') is not on this machine (CPUs 0-$(( n - 1 )))"; done
  LOADGEN_PIN=(taskset -c "$gen")
}

# cpu_list_expand LIST: "0,2-3" -> "0 2 3".
cpu_list_expand() {
  local part parts out=() i
  IFS=, read -r -a parts <<< "$1"
  for part in "${parts[@]}"; do
    if [[ "$part" == *-* ]]; then for (( i = ${part%-*}; i <= ${part#*-}; i++ )); do out+=("$i"); done; else out+=("$part"); fi
  done
  echo "${out[*]}"
}

# mcps_process_tree PID...: the pids and every process below them, space-separated.
mcps_process_tree() {
  python3 - "$@" <<'PY'
import os, sys
roots = {int(p) for p in sys.argv[1:]}
parent = {}
for d in os.listdir("/proc"):
    if d.isdigit():
        try:
            s = open(f"/proc/{d}/stat").read()
            parent[int(d)] = int(s[s.rindex(")") + 2:].split()[1])
        except OSError:
            pass
tree, grew = set(roots), True
while grew:
    grew = False
    for p, pp in parent.items():
        if p not in tree and pp in tree:
            tree.add(p); grew = True
print(" ".join(map(str, sorted(tree))))
PY
}

# mcps_apply_isolation CELL_DIR PID...: the server's tree on SAMEBOX_SUT_CPUS, Redis and the API service on
# SAMEBOX_LOADGEN_CPUS (the generator is started pinned: LOADGEN_PIN); without isolation Redis, the API
# service and the server go back to every CPU (an earlier cell may have pinned them). Runs after
# mcps_apply_limits, whose CPU affinity it keeps when isolation is off. Writes CELL_DIR/isolation.json.
mcps_apply_isolation() {
  local cell="$1" p all
  shift
  mcps_isolation_params
  all="0-$(( $(nproc --all) - 1 ))"
  local deps
  deps="$(mcps_process_tree "$(redis_pid)" "$(api_pid)")"
  if (( ${#LOADGEN_PIN[@]} == 0 )); then
    # every CPU again, for the server too unless the seed's limits pinned it (mcps_apply_limits, taskset)
    [[ "$(json_get "$cell/limits.json" method 2>/dev/null)" == taskset ]] || deps="$deps $(mcps_process_tree "$@")"
    for p in $deps; do taskset -a -p -c "$all" "$p" >/dev/null 2>&1 || true; done
    printf '{"isolated": false}\n' > "$cell/isolation.json"
    return 0
  fi
  for p in $(mcps_process_tree "$@"); do taskset -a -p -c "$SAMEBOX_SUT_CPUS" "$p" >/dev/null || die "could not pin $p to CPUs $SAMEBOX_SUT_CPUS"; done
  for p in $deps; do taskset -a -p -c "$SAMEBOX_LOADGEN_CPUS" "$p" >/dev/null || die "could not pin $p to CPUs $SAMEBOX_LOADGEN_CPUS"; done
  printf '{"isolated": true, "method": "taskset", "sut_cpus": "%s", "loadgen_cpus": "%s", "deps_cpus": "%s", "sut_cpu_count": %s, "loadgen_cpu_count": %s}\n' \
    "$SAMEBOX_SUT_CPUS" "$SAMEBOX_LOADGEN_CPUS" "$SAMEBOX_LOADGEN_CPUS" \
    "$(wc -w <<< "$(cpu_list_expand "$SAMEBOX_SUT_CPUS")")" "$(wc -w <<< "$(cpu_list_expand "$SAMEBOX_LOADGEN_CPUS")")" > "$cell/isolation.json"
}

# mcps_apply_limits CELL_DIR PID...: the seed's per-server limits (2 CPUs, 2 GB) when the profile
# sets SAMEBOX_MCP_CPUS / SAMEBOX_MCP_MEMORY_MAX (full profile): cgroup v2 (cpu.max, memory.max;
# the server tree moved into /sys/fs/cgroup/samebox-mcp) where the machine has it, else CPU
# affinity with taskset (no memory limit: said in the record). Writes CELL_DIR/limits.json.
mcps_apply_limits() {
  local cell="$1"; shift
  local cpus="${SAMEBOX_MCP_CPUS:-}" mem="${SAMEBOX_MCP_MEMORY_MAX:-}" method="none" p tree
  if [[ -z "$cpus$mem" ]]; then printf '{"method": "none"}\n' > "$cell/limits.json"; return 0; fi
  [[ -z "$cpus" || "$cpus" =~ ^[1-9][0-9]*$ ]] || die "SAMEBOX_MCP_CPUS='$cpus' is not valid (valid: a whole number of CPUs, e.g. 2)"
  [[ -z "$mem" || "$mem" =~ ^[1-9][0-9]*[KMG]$ ]] || die "SAMEBOX_MCP_MEMORY_MAX='$mem' is not valid (valid: e.g. 2G, 512M)"
  # The whole tree: children and threads already running (workers forked later inherit both).
  tree="$(mcps_process_tree "$@")"
  if [[ -f /sys/fs/cgroup/cgroup.controllers ]]; then
    local cg=/sys/fs/cgroup/samebox-mcp
    mkdir -p "$cg"
    echo "+cpu +memory" > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null || true
    [[ -n "$cpus" ]] && echo "$(( cpus * 100000 )) 100000" > "$cg/cpu.max"
    [[ -n "$mem" ]] && echo "$mem" > "$cg/memory.max"
    for p in $tree; do echo "$p" > "$cg/cgroup.procs" 2>/dev/null || true; done
    method="cgroup-v2"
  elif [[ -n "$cpus" ]]; then
    for p in $tree; do taskset -a -p -c "0-$(( cpus - 1 ))" "$p" >/dev/null 2>&1 || true; done
    method="taskset"
    [[ -n "$mem" ]] && log "warning: no cgroup v2 here: the memory limit $mem is not applied (CPU affinity only)"
  fi
  printf '{"method": "%s", "cpus": "%s", "memory_max": "%s", "memory_applied": %s}\n' "$method" "$cpus" "$mem" \
    "$([[ "$method" == cgroup-v2 && -n "$mem" ]] && echo true || echo false)" > "$cell/limits.json"
}
