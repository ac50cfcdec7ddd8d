#!/usr/bin/env bash
# mcp-db study (its parsers' unit tests run in suite 10): a tiny real
# end-to-end run: ci-size data (5,120 rows) loaded into SQLite and PostgreSQL, one workload
# through each MCP server that installs here (Faucet built from source, DBHub and Toolbox from
# npm into /opt/samebox/mcp-servers), each cell checked for successful calls and for answers
# matching the database's own driver (the run verb compares them and exits 4 when they differ).
# Prints how long the Faucet build took (a cold one downloads ~1 GB of Go modules).
# Also the client ceiling (no database):
# client_ceiling (mcp-load) and client_ceiling_k6 (k6) against mcp-null through the run verb,
# each checked for successful calls and a client CPU per call. k6 is built from go.k6.io/k6 into
# loadgen/mcp-load/bin/k6 when missing (5-7 min cold on 2 cores; printed) and reused after.
set -uo pipefail
cd "$(dirname "$0")/../../.." || exit 1
root="$PWD"
# shellcheck source=SCRIPTDIR/../test-lib.sh
. pipeline/bin/test-lib.sh

bash pipeline/bin/setup node tools >&2 || { bad "pipeline/bin/setup node tools"; finish; }

# 1. The parser unit tests (pipeline/test/parsers-mcp.test.ts, parsers-k6.test.ts) run in suite 10, once.

# 2. The study's Go helpers (row normalisation / answer comparison) have their own tests.
export PATH="/usr/local/go/bin:$PATH"
if (cd bench-scripts/studies/mcp-db/tools && go test ./... >&2); then ok "go test studies/mcp-db/tools"; else bad "go test studies/mcp-db/tools"; fi

# 3. End to end on real engines and servers.
export SAMEBOX_STATE="${SAMEBOX_STATE:-/var/lib/samebox}" MCPDB_SCALE=0.0002
sys="bench-scripts/systems" study="bench-scripts/studies/mcp-db" servers="bench-scripts/studies/mcp-db/servers"

# 3a. The client ceiling: both clients against mcp-null's echo tool (the cheapest server), no database (the system
# name only groups cells). The same concurrency, duration and warm-up for both, as in a run.
k6_bin="bench-scripts/loadgen/mcp-load/bin/k6"
# The build is a no-op when bin/k6 is current, and waits for a build already under way (the test
# command's background prewarm).
had_k6=$([[ -x "$k6_bin" ]] && echo 1)
start=$SECONDS
if bash bench-scripts/loadgen/mcp-load/build k6 >&2; then ok "build k6 from go.k6.io/k6 ($(( SECONDS - start )) s)"; else bad "build k6"; fi
[[ -n $had_k6 ]] || echo "# k6 build took $(( SECONDS - start )) s here (cold: module download + compile; reused from $k6_bin afterwards)"
for pair in client_ceiling:mcp-load client_ceiling_k6:k6; do
  workload="${pair%%:*}" parser="${pair#*:}"
  cell=$(mktemp -d)
  VARIANT=trivial THREADS=4 DURATION=2 WARMUP=1 CELL_DIR="$cell" \
    bash "$study/run" postgresql "$workload" > "$cell/stdout.txt" 2> "$cell/stderr.txt"
  rc=$?
  if [[ $rc -ne 0 ]]; then bad "$workload: run exited $rc: $(tail -n 3 "$cell/stderr.txt" | tr '\n' ' ')"; rm -rf "$cell"; continue; fi
  verdict=$(node_modules/.bin/node -e '
    const { parse } = await import(process.argv[1]);
    const fs = await import("node:fs");
    const ms = parse({ cellDir: process.argv[2], stdout: fs.readFileSync(process.argv[2] + "/stdout.txt", "utf8") });
    const get = (m) => ms.find((x) => x.metric === m)?.value;
    const [calls, errors, tput, cpu, p50] = ["calls", "errors", "throughput", "client_cpu_per_call", "latency_p50"].map(get);
    const good = calls > 0 && errors === 0 && tput > 0 && cpu > 0 && p50 > 0 && get("server_crashed") === undefined && get("direct_throughput") === undefined;
    console.log(`${good ? "ok" : "bad"} calls=${calls} errors=${errors} throughput=${tput}/s p50=${p50}ms client_cpu_per_call=${cpu}us`);
  ' "$root/pipeline/parsers/$parser.ts" "$cell" 2>&1)
  [[ "$verdict" == ok* ]] && ok "$workload (c=4 against mcp-null): ${verdict#ok }" || bad "$workload: $verdict"
  grep -q '"server": "mcp-null"' "$cell/faults.json" && ok "$workload: faults.json names mcp-null" || bad "$workload: faults.json: $(cat "$cell/faults.json")"
  rm -rf "$cell"
done
# A known variant on the wrong kind of workload is not a cell of this study: exit 3 with the reason.
for combo in "faucet-indexed client_ceiling" "trivial point_reads" "dbhub-baseline client_ceiling_k6"; do
  read -r v w <<< "$combo"
  why=$(VARIANT="$v" THREADS=1 bash "$study/run" postgresql "$w" 2>/dev/null)
  rc=$?
  [[ $rc -eq 3 && "$why" == *"$w"* && "$why" == *"$v"* ]] && ok "VARIANT=$v $w: exit 3 ($why)" || bad "VARIANT=$v $w: exit $rc, '$why'"
done
err=$(VARIANT=trivial2 bash "$study/run" postgresql client_ceiling 2>&1 >/dev/null)
[[ "$err" == *"unknown variant 'trivial2'"*"valid: "*"trivial"* ]] && ok "unknown variant names the valid ones, trivial included" || bad "unknown variant error: $err"
for s in postgresql sqlite; do
  if bash "$sys/$s/install" >&2; then ok "install $s"; else bad "install $s"; fi
done
pg_was_running=0
bash "$sys/postgresql/check" >/dev/null 2>&1 && pg_was_running=1
if bash "$sys/postgresql/start" >&2; then ok "start postgresql"; else bad "start postgresql"; finish; fi
stop_pg() { if [[ $pg_was_running -eq 0 ]]; then bash "$root/$sys/postgresql/stop" >&2 || true; fi; }
trap 'for s in faucet dbhub toolbox; do bash "$root/$servers/$s/stop" >/dev/null 2>&1 || true; done; stop_pg' EXIT

installed=()
for s in faucet dbhub toolbox; do
  start=$(date +%s)
  bash "$servers/$s/install" >&2
  rc=$?
  secs=$(( $(date +%s) - start ))
  case $rc in
    0) ok "install $s ($(bash "$servers/$s/version" 2>/dev/null), ${secs} s)"; installed+=("$s") ;;
    3) echo "skip - $s cannot be installed here" ;;
    *) bad "install $s (exit $rc after ${secs} s)" ;;
  esac
  [[ $s == faucet ]] && echo "# faucet install took ${secs} s (cold: empty Go caches download and compile ~1 GB of modules)"
done

for system in sqlite postgresql; do
  env_lines="$(bash "$sys/$system/env")" || { bad "$system env"; continue; }
  if ! (set -a; eval "$env_lines"; bash "$study/prepare" "$system") >&2; then bad "prepare $system"; continue; fi
  ok "prepare $system (generated ci data loaded into mcpdb_baseline and mcpdb_indexed)"
  for server in "${installed[@]}"; do
    for variant in "$server-baseline" "$server-indexed"; do
      cell=$(mktemp -d)
      (set -a; eval "$env_lines"; VARIANT="$variant" THREADS=1 DURATION=2 WARMUP=1 CELL_DIR="$cell" \
        bash "$study/run" "$system" filtered_queries > "$cell/stdout.txt" 2> "$cell/stderr.txt")
      rc=$?
      name="$system filtered_queries via $variant"
      if [[ $rc -ne 0 ]]; then bad "$name: run exited $rc: $(tail -n 3 "$cell/stderr.txt" | tr '\n' ' ')"; continue; fi
      grep -q "5 of 5 answers match" "$cell/stderr.txt" && ok "$name: answers match the direct driver" || bad "$name: answers were not checked"
      verdict=$(node_modules/.bin/node -e '
        const { parse } = await import(process.argv[1]);
        const fs = await import("node:fs");
        const ms = parse({ cellDir: process.argv[2], stdout: fs.readFileSync(process.argv[2] + "/stdout.txt", "utf8") });
        const get = (m) => ms.find((x) => x.metric === m)?.value;
        const calls = get("calls"), errors = get("errors"), overhead = get("mcp_overhead_p50");
        console.log(calls > 0 && errors === 0 && overhead !== undefined ? `ok calls=${calls} p50=${get("latency_p50")}ms direct_p50=${get("direct_latency_p50")}ms overhead_p50=${overhead}ms` : `bad calls=${calls} errors=${errors} overhead=${overhead}`);
      ' "$root/pipeline/parsers/mcp-load.ts" "$cell" 2>&1)
      [[ "$verdict" == ok* ]] && ok "$name: ${verdict#ok }" || bad "$name: $verdict"
      rm -rf "$cell"
    done
  done
  # MCPDB_DIRECT_TIMING=0 (quick): no direct.json and no overhead split, but the answers are still checked
  if [[ " ${installed[*]} " == *" faucet "* ]]; then
    cell=$(mktemp -d)
    (set -a; eval "$env_lines"; MCPDB_DIRECT_TIMING=0 VARIANT=faucet-indexed THREADS=1 DURATION=1 WARMUP=1 CELL_DIR="$cell" \
      bash "$study/run" "$system" point_reads > "$cell/stdout.txt" 2> "$cell/stderr.txt")
    rc=$?
    [[ $rc -eq 0 && ! -f "$cell/direct.json" ]] && grep -q "5 of 5 answers match" "$cell/stderr.txt" && grep -q '"direct_timed": false' "$cell/faults.json" \
      && ok "$system point_reads with MCPDB_DIRECT_TIMING=0: no direct timing, answers still checked" \
      || bad "$system MCPDB_DIRECT_TIMING=0: exit $rc, direct.json $( [[ -f $cell/direct.json ]] && echo present || echo absent): $(tail -n 3 "$cell/stderr.txt" | tr '\n' ' ')"
    rm -rf "$cell"
  fi
  (set -a; eval "$env_lines"; bash "$study/cleanup" "$system") >&2 && ok "cleanup $system" || bad "cleanup $system"
done

# Bad input: clear errors naming the valid values.
err=$(VARIANT=faucet-baseline bash "$study/run" postgresql no_such_workload 2>&1 >/dev/null)
[[ "$err" == *"valid: analytical client_ceiling client_ceiling_k6 concurrency_sweep conformance filtered_queries point_reads session_discovery"* ]] && ok "unknown workload names the valid ones" || bad "unknown workload error: $err"
err=$(VARIANT=nope-baseline bash "$study/run" postgresql point_reads 2>&1 >/dev/null)
[[ "$err" == *"valid: faucet-baseline"* ]] && ok "unknown server names the valid variants" || bad "unknown server error: $err"
err=$(MCPDB_DIRECT_TIMING=no VARIANT=faucet-indexed bash "$study/run" sqlite point_reads 2>&1 >/dev/null); rc=$?
[[ $rc -eq 2 && "$err" == *"MCPDB_DIRECT_TIMING must be 0 or 1"* ]] && ok "a bad MCPDB_DIRECT_TIMING names the valid values (exit 2)" || bad "MCPDB_DIRECT_TIMING error: exit $rc: $err"
# MCPDB_VARIANT_WORKLOADS (full runs toolboxsafe on point_reads on sqlite only).
err=$(MCPDB_VARIANT_WORKLOADS="toolboxsafe-indexed=point_reads@" VARIANT=toolboxsafe-indexed bash "$study/run" sqlite point_reads 2>&1 >/dev/null)
[[ "$err" == *"valid: variant=workload[,workload][@system[,system]]"* ]] && ok "a malformed MCPDB_VARIANT_WORKLOADS names the valid form" || bad "MCPDB_VARIANT_WORKLOADS error: $err"
out=$(MCPDB_VARIANT_WORKLOADS="toolboxsafe-indexed=conformance toolboxsafe-indexed=point_reads@postgresql" VARIANT=toolboxsafe-indexed bash "$study/run" sqlite point_reads 2>&1); rc=$?
[[ $rc -eq 3 && "$out" == *"not on point_reads for sqlite"* ]] && ok "a variant limited to other databases is skipped (exit 3) saying so" || bad "MCPDB_VARIANT_WORKLOADS @system: exit $rc: $out"
# conformance pins its variants (every server, every run): MCPDB_VARIANT_WORKLOADS does not limit it, and
# a variant it does not pin is skipped naming the pinned ones. (After cleanup there is no data, so a cell
# that is not skipped stops at the prepared-data check: exit 1, not 3.)
out=$(MCPDB_VARIANT_WORKLOADS="toolboxsafe-indexed=point_reads@postgresql" VARIANT=toolboxsafe-indexed bash "$study/run" sqlite conformance 2>&1); rc=$?
[[ $rc -ne 3 && "$out" != *"MCPDB_VARIANT_WORKLOADS"* ]] && ok "conformance of toolboxsafe runs whatever MCPDB_VARIANT_WORKLOADS says" || bad "conformance limited by MCPDB_VARIANT_WORKLOADS: exit $rc: $out"
out=$(VARIANT=faucet-baseline bash "$study/run" sqlite conformance 2>&1); rc=$?
[[ $rc -eq 3 && "$out" == *"runs as variants faucet-indexed,dbhub-indexed,toolbox-indexed,toolboxsafe-indexed only"* ]] && ok "conformance skips a variant it does not pin (exit 3), naming its variants" || bad "conformance on faucet-baseline: exit $rc: $out"
finish
