# shellcheck shell=bash
# Shared by the bash test suites in pipeline/bin/test.d (source it; it is not a suite itself).
# Counts checks and ends with the "P passed, F failed" line pipeline/bin/test sums.

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
finish() {
  echo "${pass} passed, ${fail} failed"
  [[ $fail -eq 0 ]]
  exit
}
