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

echo "--- go test ${race[*]} ./..."
json=$(mktemp)
(cd "$mod" && go test "${race[@]}" -count=1 -timeout 300s -json ./...) > "$json"
count_go_json "go test $mod" "$?" "$json"
rm -f "$json"
finish
