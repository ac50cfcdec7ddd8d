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

echo "--- go test ${race[*]} ./..."
json=$(mktemp)
(cd "$mod" && go test "${race[@]}" -count=1 -timeout 300s -json ./...) > "$json"
count_go_json "go test $mod" "$?" "$json"
rm -f "$json"
finish
