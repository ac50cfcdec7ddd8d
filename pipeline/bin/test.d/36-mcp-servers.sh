#!/usr/bin/env bash
# shellcheck disable=SC2015,SC2012  # `check && ok || bad` is the suites' idiom; ls of a mktemp dir
# mcp-servers study (seed 003; its parser tests run in suite 10): the study's Go code (api-service);
# bad input (unknown server/workload -> exit 2 naming the valid ones; conformance refuses a non-loopback
# URL); then against real Redis + api-service (deps start, own ports): every server folder
# bench-scripts/systems/mcp-*/ with a system.json whose install does not exit 3 is installed, started,
# must pass `conformance` (both protocol revisions, 3 tools with input schemas, each tool's checked
# result, server_type), then meets the official suite and must stop within 5 s after it; the
# conformance checker must FAIL when Redis lost its data;
# finally a ci profile run of the study (its records must have throughput, no errors, CPU per 1,000
# calls and RSS for every server cell). Ports: SAMEBOX_REDIS_PORT (26379), SAMEBOX_API_PORT (28100),
# SAMEBOX_MCP_PORT (28190) unless set; state under SAMEBOX_STATE. Builds are cached (source hashes), so
# a warm rerun takes a few minutes; a cold one builds every server (JVM: Maven, minutes each).
set -uo pipefail
cd "$(dirname "$0")/../../.." || exit 1
root="$PWD"
# shellcheck source=SCRIPTDIR/../test-lib.sh
. pipeline/bin/test-lib.sh
export PATH="/usr/local/go/bin:$PATH"
export SAMEBOX_STATE="${SAMEBOX_STATE:-/var/lib/samebox}"
export SAMEBOX_REDIS_PORT="${SAMEBOX_REDIS_PORT:-26379}" SAMEBOX_API_PORT="${SAMEBOX_API_PORT:-28100}" SAMEBOX_MCP_PORT="${SAMEBOX_MCP_PORT:-28190}"
export REDIS_URL="redis://127.0.0.1:$SAMEBOX_REDIS_PORT" API_SERVICE_URL="http://127.0.0.1:$SAMEBOX_API_PORT"
study=bench-scripts/studies/mcp-servers

bash pipeline/bin/setup node tools >&2 || { bad "pipeline/bin/setup node tools"; finish; }

# 1. The parser tests (pipeline/test/parsers-mcp-servers.test.ts) run in suite 10, once.

# 2. The api-service's own tests (seed's catalogue: Electronics 50..500 finds 2,251) and the seeder builds.
t "go test studies/mcp-servers/api-service" bash -c "cd $study/api-service && go test ./..."
t "go vet studies/mcp-servers/seeder" bash -c "cd $study/seeder && go vet ./..."

# 3. Bad input.
err=$(bash "$study/run" mcp-cobol closed_loop 2>&1); rc=$?
[[ $rc -eq 2 && "$err" == *"unknown server 'mcp-cobol'"*"valid: "*"mcp-go"*"mcp-rust"* ]] && ok "unknown server: exit 2 listing the valid ones" || bad "unknown server: exit $rc: $err"
err=$(bash "$study/prepare" mcp-cobol 2>&1); rc=$?
[[ $rc -eq 2 && "$err" == *"valid: "*"mcp-python"* ]] && ok "prepare: unknown server exit 2" || bad "prepare unknown server: exit $rc: $err"
err=$(bash "$study/run" mcp-go no_such_workload 2>&1); rc=$?
[[ $rc -eq 2 && "$err" == *"valid: closed_loop conformance open_loop seed_k6"* ]] && ok "unknown workload: exit 2 listing the valid ones" || bad "unknown workload: exit $rc: $err"
err=$("$study/conformance" http://192.0.2.1:80/mcp 2>&1); rc=$?
[[ $rc -eq 2 && "$err" == *"not an http loopback URL"* ]] && ok "conformance refuses a non-loopback URL (exit 2)" || bad "conformance non-loopback: exit $rc: $err"
err=$(bash "$study/deps" restart 2>&1); rc=$?
[[ $rc -eq 2 && "$err" == *"valid: start, ensure, stop, reseed, status"* ]] && ok "deps: unknown action exit 2" || bad "deps unknown action: exit $rc: $err"
err=$(node_modules/.bin/node --disable-warning=ExperimentalWarning pipeline/cli.ts run --profile ci --studies mcp-servers --systems mcp-cobol --dry-run 2>&1); rc=$?
[[ $rc -eq 2 && "$err" == *"mcp-cobol"*"mcp-go"* ]] && ok "samebox run --systems mcp-cobol: exit 2 naming the valid ones" || bad "samebox unknown system: exit $rc: $err"

# 4. Real Redis + api-service.
trap 'bash "$root/$study/deps" stop >/dev/null 2>&1 || true' EXIT
if bash "$study/install" >&2 && bash "$study/deps" start >&2; then ok "deps start (Redis :$SAMEBOX_REDIS_PORT, api-service :$SAMEBOX_API_PORT, seeded)"; else bad "deps start"; finish; fi
t "seeder --verify after deps start" "$SAMEBOX_STATE/mcp-servers/bin/seeder" --url "$REDIS_URL" --verify
# A second pair on other ports in the same state folder, started and stopped, leaves the first pair's stop able
# to find it (one pid file for both had orphaned the first: "port in use" at the next start); then it comes back.
other=(env SAMEBOX_REDIS_PORT=$((SAMEBOX_REDIS_PORT + 1)) SAMEBOX_API_PORT=$((SAMEBOX_API_PORT + 1)) REDIS_URL= API_SERVICE_URL=)
if "${other[@]}" bash "$study/deps" start >/dev/null 2>&1 && "${other[@]}" bash "$study/deps" stop >/dev/null 2>&1 &&
  bash "$study/deps" stop >/dev/null 2>&1 && ! bash "$study/deps" status >/dev/null && bash "$study/deps" start >/dev/null 2>&1; then
  ok "deps on other ports in the same state folder do not take over the first pair's pid files"
else bad "deps on other ports: after both stops the first pair reads: $(bash "$study/deps" status | head -2 | paste -sd' ')"; fi
search=$(curl -fsS "$API_SERVICE_URL/products/search?category=Electronics&min_price=50&max_price=500&limit=10")
[[ "$search" == *'"total_found":2251'* ]] && ok "api-service: the seed's search finds 2,251 products" || bad "api-service search: ${search:0:200}"

# 5. Every server folder: install (exit 3 = not available here), start, conformance, stop.
conformant=()
for dir in bench-scripts/systems/mcp-*/; do
  s=$(basename "$dir")
  [[ -f "$dir/system.json" ]] || { echo "skip $s: no system.json yet"; continue; }
  start=$SECONDS
  bash "$dir/install" > /tmp/samebox-36-install.log 2>&1; rc=$?
  if [[ $rc -eq 3 ]]; then echo "skip $s: $(tail -n 1 /tmp/samebox-36-install.log)"; continue; fi
  if [[ $rc -ne 0 ]]; then bad "install $s (exit $rc)"; tail -n 5 /tmp/samebox-36-install.log | sed 's/^/     | /'; continue; fi
  ok "install $s ($(( SECONDS - start )) s, $(bash "$dir/version" 2>/dev/null))"
  if ! bash "$dir/start" > /tmp/samebox-36-start.log 2>&1; then bad "start $s"; tail -n 8 /tmp/samebox-36-start.log | sed 's/^/     | /'; bash "$dir/stop" >/dev/null 2>&1; continue; fi
  url=$(bash "$dir/env" | sed -n 's/^MCP_URL=//p')
  if out=$("$study/conformance" "$url" --server-type "${s#mcp-}" 2>&1); then ok "$s passes conformance at $url ($(grep -c '^ok' <<<"$out") checks)"; conformant+=("$s")
  else bad "$s conformance"; grep -v '^ok' <<<"$out" | head -8 | sed 's/^/     | /'; fi
  [[ -n "$(bash "$dir/pids")" ]] && ok "$s pids" || bad "$s pids printed nothing while running"
  # The official suite leaves SSE streams open; a server's stop must not wait on them (Spring Boot's
  # graceful shutdown did, until the stop verb's KILL 10 s later: every run, after its conformance cells).
  suite=$(mktemp -d)
  "$study/suite-conformance" --url "$url" --out "$suite" >/dev/null 2>&1 || bad "$s: the official conformance suite did not run"
  rm -rf "$suite"
  stop_start=$(date +%s%N)
  bash "$dir/stop" >&2 && ok "stop $s" || bad "stop $s"
  stop_ms=$(( ($(date +%s%N) - stop_start) / 1000000 ))
  (( stop_ms < 5000 )) && ok "$s stops in $stop_ms ms after the official suite" || bad "$s took $stop_ms ms to stop after the official suite (a stream it left open?)"
  ! bash "$dir/check" >/dev/null 2>&1 && ok "$s check fails after stop" || bad "$s still answers after stop"
done

# 6. The checker must be able to fail: histories deleted -> get_user_cart's check fails.
if (( ${#conformant[@]} > 0 )); then
  s=${conformant[0]}; dir=bench-scripts/systems/$s
  if bash "$dir/start" >/dev/null 2>&1; then
    url=$(bash "$dir/env" | sed -n 's/^MCP_URL=//p')
    redis-cli -p "$SAMEBOX_REDIS_PORT" --scan --pattern 'bench:history:*' | xargs -n 500 redis-cli -p "$SAMEBOX_REDIS_PORT" DEL >/dev/null
    out=$("$study/conformance" "$url" 2>&1); rc=$?
    [[ $rc -eq 1 && "$out" == *"FAIL 2025-06-18 get_user_cart: len(recent_history)"* ]] && ok "conformance fails when Redis lost the histories ($s)" || bad "conformance did not fail on missing data: exit $rc"
    bash "$study/deps" reseed >&2
    bash "$dir/stop" >/dev/null 2>&1
  else bad "restart $s for the negative check"; fi
fi

# 7. Isolation (SAMEBOX_SUT_CPUS / SAMEBOX_LOADGEN_CPUS): the server's tree runs on its CPUs, Redis, the
# api-service and the load generator on the others, the cell records both counts; a cell without them puts
# Redis and the api-service back on every CPU.
if (( ${#conformant[@]} > 0 )) && (( $(nproc --all) >= 2 )); then
  s=${conformant[0]}; dir=bench-scripts/systems/$s
  if bash "$dir/start" >/dev/null 2>&1; then
    cell=$(mktemp -d)
    allowed() { sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$1/status"; }
    redis_now() { bash "$study/deps" status | sed -n 's/^REDIS_PID=//p'; }
    if CELL_DIR="$cell" THREADS=2 DURATION=1 WARMUP=0 WARMUP_MAX=0 SAMEBOX_SUT_CPUS=1 SAMEBOX_LOADGEN_CPUS=0 \
        bash "$study/run" "$s" closed_loop > "$cell/stdout.txt" 2> "$cell/stderr.txt"; then
      pid=$(bash "$dir/pids" | head -n 1)
      got="server $(allowed "$pid"), redis $(allowed "$(redis_now)")"
      parsed=$(node_modules/.bin/node --disable-warning=ExperimentalWarning pipeline/cli.ts parse mcp-servers "$cell" 2>&1)
      [[ "$got" == "server 1, redis 0" ]] && ok "isolated cell: $got" || bad "isolated cell: $got (want server 1, redis 0)"
      grep -q '"metric":"loadgen_cpus","value":1' <<<"$parsed" && grep -q '"metric":"sut_cpus","value":1' <<<"$parsed" \
        && jq -e '.isolated == true and .sut_cpus == "1" and .loadgen_cpus == "0"' "$cell/isolation.json" >/dev/null \
        && ok "isolated cell records sut_cpus 1 and loadgen_cpus 1 (isolation.json)" || bad "isolated cell records: $(cat "$cell/isolation.json"); $(grep -c cpus <<<"$parsed") cpus metrics"
      CELL_DIR="$cell" THREADS=2 DURATION=1 WARMUP=0 WARMUP_MAX=0 bash "$study/run" "$s" closed_loop > "$cell/stdout.txt" 2> "$cell/stderr.txt"
      shared="server $(allowed "$pid"), redis $(allowed "$(redis_now)")"
      every="0-$(( $(nproc --all) - 1 ))"
      [[ "$shared" == "server $every, redis $every" ]] && jq -e '.isolated == false' "$cell/isolation.json" >/dev/null \
        && ok "a cell without isolation puts the server and Redis back on every CPU" || bad "after a shared cell: $shared"
    else bad "isolated closed_loop cell of $s"; tail -n 6 "$cell/stderr.txt" | sed 's/^/     | /'; fi
    err=$(SAMEBOX_SUT_CPUS=1 SAMEBOX_LOADGEN_CPUS=1 bash "$study/run" "$s" closed_loop 2>&1); rc=$?
    [[ $rc -ne 0 && "$err" == *"share CPUs (they must be disjoint)"* ]] && ok "overlapping CPU sets are refused naming both" || bad "overlapping CPU sets: exit $rc: ${err: -200}"
    rm -rf "$cell"
    bash "$dir/stop" >/dev/null 2>&1
  else bad "start $s for the isolation check"; fi
fi

# 8. A ci profile run of the study (records in a temporary data dir).
data=$(mktemp -d)
if SAMEBOX_DATA_DIR="$data" node_modules/.bin/node --disable-warning=ExperimentalWarning pipeline/cli.ts run --profile ci --studies mcp-servers > "$data/run.log" 2>&1; then
  ok "ci profile run of mcp-servers: $(tail -n 1 "$data/run.log" | cut -c1-120)"
else bad "ci profile run of mcp-servers"; tail -n 12 "$data/run.log" | sed 's/^/     | /'; fi
records=$(ls "$data"/runs/*/records.csv 2>/dev/null | head -n1)
if [[ -n "$records" ]]; then
  verdict=$(python3 - "$records" <<'PY'
import csv, sys, collections
cells = collections.defaultdict(dict)
for r in csv.DictReader(open(sys.argv[1])):
    cells[(r["system"], r["workload"])][r["metric"]] = float(r["value"])
bad, notes = [], []
for (system, workload), m in sorted(cells.items()):
    for need in ("throughput", "server_cpu_per_1k_calls", "loadgen_cpu_per_1k_calls", "server_rss_avg", "server_rss_peak", "latency_p50", "seed_way_rps"):
        if not m.get(need, 0) > 0:
            bad.append(f"{system}/{workload}: {need}={m.get(need)}")
    # An open-loop arrival dropped at the outstanding bound is an error by design (the server fell
    # behind the offered rate, as a loaded CI machine can make it); any other error is a defect.
    dropped = m.get("dropped", 0) if workload == "open_loop" else 0
    if m.get("errors", 1) - dropped != 0:
        bad.append(f"{system}/{workload}: errors={m.get('errors')} (dropped={m.get('dropped')})")
    elif dropped:
        notes.append(f"{system}/{workload} dropped {dropped:g} arrivals at the bound")
print(("ok " if not bad and cells else "bad ") + (f"{len(cells)} cells with every metric" + (f" ({'; '.join(notes)})" if notes else "") if not bad else "; ".join(bad[:6])))
PY
)
  [[ "$verdict" == ok* ]] && ok "ci records: ${verdict#ok }" || bad "ci records: ${verdict#bad }"
fi
rm -rf "$data"
finish
