# shellcheck shell=bash
# Shared by the bash test suites in pipeline/bin/test.d (source it; it is not a suite itself): the one
# counter. Every suite adds to pass/fail here — its own checks through t()/ok()/bad(), and the counts of
# the test runners it calls through count_node, count_go_json and count_pytest — and ends with finish,
# whose "P passed, F failed" line pipeline/bin/test sums. A runner whose summary is missing (it crashed
# before printing one) or that exited non-zero with no failure counted adds one failure, so a suite
# never reads green by losing its counts.

pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
# t NAME CMD...: CMD's exit status decides; its output is shown only on failure.
t() {
  local name="$1" out
  shift
  if out="$("$@" 2>&1)"; then ok "$name"; else bad "$name"; printf '%s\n' "$out" | tail -n 15 | sed 's/^/     | /'; fi
}

# _add LABEL RC P F: adds a runner's counts; a missing count or a non-zero exit with no failure is one failure.
_add() {
  local label="$1" rc="$2" p="$3" f="$4"
  if [[ -z "$p" ]]; then echo "FAIL $label: the runner printed no counts (exit $rc)"; p=0; f=1;
  elif [[ "$rc" -ne 0 && "${f:-0}" -eq 0 ]]; then echo "FAIL $label: exit $rc with no failing test"; f=1; fi
  pass=$((pass + p)); fail=$((fail + ${f:-0}))
  echo "$label: $p passed, ${f:-0} failed"
}

# count_node LABEL RC LOG: node:test's own summary ("ℹ pass N", "ℹ fail N"; the spec reporter's last ones).
count_node() {
  local p f
  p=$(grep -oE '^ℹ pass [0-9]+' "$3" | tail -n 1 | awk '{print $3}')
  f=$(grep -oE '^ℹ fail [0-9]+' "$3" | tail -n 1 | awk '{print $3}')
  _add "$1" "$2" "$p" "$f"
}

# count_pytest LABEL RC LOG: pytest's summary line ("N passed, M failed, K errors"); errors count as failures.
count_pytest() {
  local summary p f e
  summary=$(grep -E '^(=+ )?[0-9]+ (passed|failed|errors?)' "$3" | tail -n 1)
  p=$(grep -oE '[0-9]+ passed' <<<"$summary" | grep -oE '[0-9]+'); f=$(grep -oE '[0-9]+ failed' <<<"$summary" | grep -oE '[0-9]+')
  e=$(grep -oE '[0-9]+ errors?' <<<"$summary" | grep -oE '[0-9]+')
  [[ -n "$summary" ]] && p=${p:-0}
  _add "$1" "$2" "$p" "$(( ${f:-0} + ${e:-0} ))"
}

# count_go_json LABEL RC FILE: `go test -json` events, one per test (subtests included); prints each failing
# test's output and the package results. A package that failed without a failing test (build error, panic in
# init) counts as one failure.
count_go_json() {
  local p f pf
  python3 - "$3" <<'PY' || { _add "$1" "$2" "" ""; return; }
import json, sys
passed = failed = 0
out, pkg_fail = {}, []
for line in open(sys.argv[1]):
    try:
        e = json.loads(line)
    except ValueError:
        print(line, end="")   # build errors are plain text
        continue
    key, action = (e.get("Package"), e.get("Test")), e.get("Action")
    if action == "output":
        out.setdefault(key, []).append(e.get("Output", ""))
    elif action in ("pass", "fail") and e.get("Test"):
        if action == "pass":
            passed += 1
        else:
            failed += 1
            print("FAIL", e["Package"], e["Test"])
            print("".join(out.get(key, [])[-30:]), end="")
    elif action in ("pass", "fail", "skip") and not e.get("Test"):
        print(f'{action:4} {e["Package"]} {e.get("Elapsed", "")}')
        if action == "fail":
            pkg_fail.append(e["Package"])
    elif action in ("build-fail", "build-output"):
        print(e.get("Output", ""), end="")
with open(sys.argv[1] + ".counts", "w") as f:
    f.write(f"{passed} {failed} {len(pkg_fail)}")
PY
  read -r p f pf < "$3.counts"
  rm -f "$3.counts"
  if [[ "$2" -ne 0 && "$f" -eq 0 && "$pf" -gt 0 ]]; then f=$pf; fi
  _add "$1" "$2" "$p" "$f"
}

finish() {
  echo "${pass} passed, ${fail} failed"
  [[ $fail -eq 0 ]]
  exit
}
