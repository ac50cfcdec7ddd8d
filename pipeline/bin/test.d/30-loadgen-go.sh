#!/usr/bin/env bash
# Go load generators: vet, build, and `go test -race` for bench-scripts/loadgen/mcp-load
# (MCP client, mcp-trivial server, closed/open loop, flags). Counts every Go test and subtest
# from `go test -json` and prints "P passed, F failed" last.
# k6 (built from go.k6.io/k6 for the calibration comparison) is NOT built here: it takes
# 5-7 minutes on a 2-core box; `bench-scripts/loadgen/mcp-load/build k6` builds it on demand.
set -uo pipefail
cd "$(dirname "$0")/../../.."
export PATH="$PATH:/usr/local/go/bin"
mod=bench-scripts/loadgen/mcp-load

if ! command -v go >/dev/null; then
  echo "30-loadgen-go: go not found on PATH or in /usr/local/go (CI images ship it)"
  echo "0 passed, 1 failed"; exit 1
fi
# -race needs cgo and a C compiler; without gcc run the tests without it.
race=()
if command -v gcc >/dev/null; then race=(-race); fi

fail_extra=0
echo "--- go vet"
(cd "$mod" && go vet ./...) || fail_extra=$((fail_extra + 1))
echo "--- build"
bash "$mod/build" || fail_extra=$((fail_extra + 1))

echo "--- go test ${race[*]} ./..."
json=$(mktemp)
(cd "$mod" && go test "${race[@]}" -count=1 -timeout 300s -json ./...) > "$json"
rc=$?
# Print a readable summary: failures with their output, then package results.
python3 - "$json" <<'PY'
import json, sys
passed = failed = 0
out = {}
pkg_fail = []
for line in open(sys.argv[1]):
    try:
        e = json.loads(line)
    except ValueError:
        print(line, end="")   # build errors are plain text
        continue
    key = (e.get("Package"), e.get("Test"))
    if e.get("Action") == "output":
        out.setdefault(key, []).append(e.get("Output", ""))
    elif e.get("Action") in ("pass", "fail") and e.get("Test"):
        if e["Action"] == "pass":
            passed += 1
        else:
            failed += 1
            print("FAIL", e["Package"], e["Test"])
            print("".join(out.get(key, [])[-30:]), end="")
    elif e.get("Action") in ("pass", "fail", "skip") and not e.get("Test"):
        print(f'{e["Action"]:4} {e["Package"]} {e.get("Elapsed", "")}')
        if e["Action"] == "fail":
            pkg_fail.append(e["Package"])
    elif e.get("Action") == "build-fail" or e.get("Action") == "build-output":
        print(e.get("Output", ""), end="")
with open(sys.argv[1] + ".counts", "w") as f:
    f.write(f"{passed} {failed} {len(pkg_fail)}")
PY
read -r p f pf < "$json.counts"
rm -f "$json" "$json.counts"
# A package that failed without a failing test (build error, panic in init) counts as one failure.
if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=$(( pf > 0 ? pf : 1 )); fi
f=$((f + fail_extra))
echo "$p passed, $f failed"
[ "$f" -eq 0 ]
