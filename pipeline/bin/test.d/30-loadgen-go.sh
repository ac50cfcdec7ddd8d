#!/usr/bin/env bash
# Go load generators: vet, build, and `go test -race` for bench-scripts/loadgen/mcp-load
# (MCP client, mcp-trivial server, closed/open loop, flags). Counts every Go test and subtest
# from `go test -json` (test-lib.sh count_go_json) and prints "P passed, F failed" last.
# k6 (built from go.k6.io/k6 for the calibration comparison) is NOT built here: it takes
# 5-7 minutes on a 2-core box; `bench-scripts/loadgen/mcp-load/build k6` builds it on demand.
set -uo pipefail
cd "$(dirname "$0")/../../.." || exit 1
# shellcheck source=pipeline/bin/test-lib.sh
source pipeline/bin/test-lib.sh
export PATH="$PATH:/usr/local/go/bin"
mod=bench-scripts/loadgen/mcp-load

if ! command -v go >/dev/null; then
  bad "go not found on PATH or in /usr/local/go (CI images ship it)"; finish
fi
# -race needs cgo and a C compiler; without gcc run the tests without it.
race=()
if command -v gcc >/dev/null; then race=(-race); fi

t "go vet ./... ($mod)" bash -c "cd '$mod' && go vet ./..."
t "build ($mod/build)" bash "$mod/build"

# lib/steady.sh hands the warm-up rule to mcp-load: STEADY_DRIFT reaches it as --warmup-drift, and a
# bad value is refused naming the variable and what is valid.
steady_snippet='. bench-scripts/lib/common.sh; . bench-scripts/lib/steady.sh; WARMUP=1 WARMUP_MAX=5; steady_args seconds; echo "${STEADY_ARGS[*]}"'
drift_ok=$(STEADY_DRIFT=0.05 bash -c "$steady_snippet" 2>&1)
drift_bad=$(STEADY_DRIFT=2 bash -c "$steady_snippet" 2>&1)
t "steady.sh: STEADY_DRIFT=0.05 becomes mcp-load's --warmup-drift 0.05" grep -qF -- '--warmup-drift 0.05' <<<"$drift_ok"
t "steady.sh: STEADY_DRIFT=2 is refused naming what is valid" grep -qF "STEADY_DRIFT='2' is not valid (valid: 0 = not checked" <<<"$drift_bad"

# steady_warmup (oltp's sysbench/pgbench): ONE run of the tool, judged window by window and stopped once
# steady. The fake tool runs as oltp's does (a function wrapping timeout, piped through tee and sed -u),
# so it is a grandchild of the warm-up's pipeline. A low first window then steady ones: stopped after its
# 4th window (not a restart per judgement, which takes 8 s) with nothing of it left running; never steady:
# stopped before WARMUP_MAX, steady=false, the same when the wall clock jumps an hour at every reading
# (the rule reads a clock that does not jump); no window, or a tool that ends before the warm-up is
# decided: failure; WARMUP_MAX=0: one fixed run of WARMUP seconds.
stream_dir=$(mktemp -d)
cat > "$stream_dir/samebox-fake-tool" <<'SH'
#!/usr/bin/env bash
# samebox-fake-tool SECONDS MODE: a throughput line a second (steady: 50 then 100s; alt: 50, 100, 50, ...;
# short: two windows then exit; none: nothing); on TERM it prints a last, partial window (never judged).
trap 'echo "tps: 7"; exit 0' TERM
[[ "$2" == none ]] && exit 0
for (( i = 1; i <= $1; i++ )); do
  sleep 1 & wait $!
  if (( i == 1 )) || [[ "$2" == alt && $(( i % 2 )) == 1 ]]; then echo "tps: 50"; else echo "tps: 100"; fi
  [[ "$2" == short && $i == 2 ]] && exit 0
done
SH
chmod +x "$stream_dir/samebox-fake-tool"
# shellcheck disable=SC2016  # expanded by the inner bash
stream() {
  FAKE_TOOL="$stream_dir/samebox-fake-tool" MODE="$1" OUT="$stream_dir/$1${JUMP:+-jump}.json" WARMUP_MAX="${2:-6}" bash -c '
    . bench-scripts/lib/common.sh; . bench-scripts/lib/steady.sh; WARMUP=1 STEADY_TOL=0.1
    if [[ -n "${JUMP:-}" ]]; then
      # a wall clock stepped an hour ahead at every reading
      date() { local n; n=$(cat "$OUT.n" 2>/dev/null || echo 0); echo $(( n + 1 )) > "$OUT.n"; echo "$(( $(command date +%s) + 3600 * n )).0"; }
    fi
    run_bounded() { timeout --foreground --kill-after=10 "$1" "${@:2}"; }
    fake() { run_bounded $(( $1 + 30 )) "$FAKE_TOOL" "$1" "$MODE" 2>&1 | tee -a "$OUT.txt" | sed -u -n "s/^tps: \([0-9.]*\)\$/\1/p"; }
    rc=0; steady_warmup fake "$OUT" 2>/dev/null || rc=$?; echo "rc=$rc"'
}
steady_rc=$(stream steady)
left=$(pgrep -f "$stream_dir/samebox-fake-tool" || true)
alt_rc=$(stream alt)
jump_rc=$(JUMP=1 stream alt)
none_rc=$(stream none)
short_rc=$(stream short)
fixed_rc=$(stream fixed 0)
t "steady.sh: low first window then steady -> one run, stopped after its 4th window (3.5-5.5 s), steady" \
  jq -e '.mode == "steady" and .steady == true and .window_rates == [50,100,100,100] and .warmup_s >= 3.5 and .warmup_s < 5.5' "$stream_dir/steady.json"
t "steady.sh: the tool is stopped once steady (rc 0, no process of it left)" test "$steady_rc/$left" = "rc=0/"
t "steady.sh: never steady -> stopped within WARMUP_MAX, steady=false, 5 whole windows" \
  jq -e '.steady == false and .warmup_s <= 6 and .window_rates == [50,100,50,100,50]' "$stream_dir/alt.json"
t "steady.sh: never steady while the wall clock jumps an hour at every reading -> the same 5 windows, rc 0" \
  bash -c '[[ "$1" == rc=0 ]] && jq -e ".steady == false and .warmup_s <= 6 and .window_rates == [50,100,50,100,50]" "$2"' _ "$jump_rc" "$stream_dir/alt-jump.json"
t "steady.sh: no window, or a tool that ends before the warm-up is decided, fails (rc 1)" \
  test "$alt_rc/$none_rc/$short_rc" = "rc=0/rc=1/rc=1"
t "steady.sh: WARMUP_MAX=0 -> one fixed run of WARMUP s to its end, not judged" \
  jq -e '.mode == "fixed" and .steady == null and .warmup_s >= 1' "$stream_dir/fixed.json"
t "steady.sh: WARMUP_MAX=0 ran the tool once (rc 0, 1 window)" test "$fixed_rc/$(grep -c '^tps' "$stream_dir/fixed.json.txt")" = "rc=0/1"
rm -rf "$stream_dir"

echo "--- go test ${race[*]} ./..."
json=$(mktemp)
(cd "$mod" && go test "${race[@]}" -count=1 -timeout 300s -json ./...) > "$json"
count_go_json "go test $mod" "$?" "$json"
rm -f "$json"
finish
