#!/usr/bin/env bash
# Suite: the payments study (seed 004, Reserva). The reserva load generator's Go unit tests (round-trip
# sequence, client checks, error classification, invariant check, data generator, flags, the loop on an
# in-memory bank), then real engines: the ci profile through
# the samebox CLI on PostgreSQL and MariaDB (4 cells, into a temporary data dir), and the study verbs
# directly: a cell whose invariant is broken on purpose (test hook) must fail with the reason, bad
# input (unknown variant, concurrency 0, a scale the data was not prepared at, unknown workload) must
# exit 2 with one line, MySQL must be skipped (exit 3) where it cannot be installed.
# Servers run in a private state dir on private ports and are stopped at the end.
# Last line: "P passed, F failed".
# shellcheck disable=SC2317  # helpers are called through t()
set -uo pipefail
cd "$(dirname "$0")/../../.." || exit 2
repo="$(pwd)"
systems="$repo/bench-scripts/systems"
study="$repo/bench-scripts/studies/payments"
mod="$repo/bench-scripts/loadgen/reserva"

# shellcheck source=SCRIPTDIR/../test-lib.sh
. "$repo/pipeline/bin/test-lib.sh"
if [[ "$(id -u)" -ne 0 ]]; then
  bad "must run as root (the system verbs install packages and run servers)"
  finish
fi
export PATH="$PATH:/usr/local/go/bin"
tmp="$(mktemp -d /tmp/samebox-payments-test.XXXXXX)"
chmod 0755 "$tmp"   # the server users (postgres, mysql) must reach their data dirs below it
export SAMEBOX_STATE="$tmp/state" SAMEBOX_PG_PORT="${SAMEBOX_PAYMENTS_TEST_PG_PORT:-54387}" SAMEBOX_MARIADB_PORT="${SAMEBOX_PAYMENTS_TEST_MARIADB_PORT:-33087}"
stop_all() {
  "$systems/postgresql/stop" >/dev/null 2>&1
  "$systems/mariadb/stop" >/dev/null 2>&1
  rm -rf "$tmp"
}
trap stop_all EXIT
node=(node_modules/.bin/node --disable-warning=ExperimentalWarning)

# ---- unit tests ---------------------------------------------------------------------------------
t "reserva: go vet" bash -c "cd '$mod' && go vet ./..."
t "reserva: go test -race (round trips, checks, error classes, invariants, generator, flags, loop)" \
  bash -c "cd '$mod' && go test -race -count=1 -timeout 120s ./..."
t "reserva: install verb builds, and is quick when built" bash -c "'$study/install' && s=\$(date +%s) && '$study/install' && (( \$(date +%s) - s < 5 ))"
# The parser test (pipeline/test/parsers-payments.test.ts) runs in suite 10, once.

# ---- the ci profile through the CLI on PostgreSQL and MariaDB -------------------------------------
pipeline_ci() {
  local data="$tmp/data" out run
  mkdir -p "$data/runs" "$data/published"
  out="$(SAMEBOX_DATA_DIR="$data" "${node[@]}" pipeline/cli.ts run --profile ci --studies payments --systems postgresql,mariadb 2>&1)" \
    || { echo "$out" | tail -20; return 1; }
  run="$(find "$data/runs" -mindepth 1 -maxdepth 1 -type d | head -1)"
  python3 - "$run" <<'PY'
import csv, json, sys, os
run = sys.argv[1]
m = json.load(open(os.path.join(run, "manifest.json")))
cells = [c for c in m["cells"] if c["study"] == "payments"]
assert len(cells) == 4, [c["id"] for c in cells]
bad = [(c["id"], c["status"], c["reason"]) for c in cells if c["status"] != "ok"]
assert not bad, bad
rows = list(csv.DictReader(open(os.path.join(run, "records.csv"))))
for system in ("postgresql", "mariadb"):
    for variant in ("as-published", "parity"):
        got = {r["metric"]: float(r["value"]) for r in rows if r["system"] == system and r["variant"] == variant and not r["t"]}
        assert got.get("tps", 0) > 0, (system, variant, "no transfers")
        assert got["invariant_violations"] == 0
        for k in ("latency_p99", "rt4_transfer_write_p50", "actions_per_s", "server_cpu_ms_per_1k_transfers", "mem_load"):
            assert k in got, (system, variant, k)
        series = [r for r in rows if r["system"] == system and r["variant"] == variant and r["metric"] == "tps_series"]
        assert any(float(r["t"]) <= 0 for r in series) and any(float(r["t"]) >= 1 for r in series), "series without warm-up or measured seconds"
print("4 cells ok")
PY
}
t "ci profile via samebox run: 4 cells ok on postgresql and mariadb, with series, latency, CPU and invariants" pipeline_ci

# ---- the study verbs directly ---------------------------------------------------------------------
export ACCOUNTS=2000 THREADS=4 DURATION=2 WARMUP=1 WORKLOAD=transfers
t "postgresql start" "$systems/postgresql/start"
t "mariadb start" "$systems/mariadb/start"
t "prepare postgresql (2000 accounts)" "$study/prepare" postgresql
t "prepare mariadb (2000 accounts)" "$study/prepare" mariadb
same_data() {
  local a b
  a="$("$study/prepare" postgresql 2>/dev/null | jq -r .fingerprint)"
  b="$("$study/prepare" mariadb 2>/dev/null | jq -r .fingerprint)"
  [[ -n "$a" && "$a" == "$b" ]] || { echo "fingerprints differ: '$a' vs '$b'"; return 1; }
}
t "the same generated data on both engines (fingerprint)" same_data

# expect_exit CODE PATTERN CMD...: CMD exits CODE and its stderr (or stdout for 3) is one line matching PATTERN.
expect_exit() {
  local code="$1" pattern="$2" rc=0 err lines
  shift 2
  err="$("$@" 2>&1 >/dev/null)" || rc=$?
  [[ "$code" == 3 ]] && err="$("$@" 2>/dev/null)"
  lines="$(printf '%s\n' "$err" | grep -c .)"
  if (( rc != code )) || (( lines != 1 )) || ! grep -Eq "$pattern" <<<"$err"; then
    echo "exit $rc (want $code), $lines line(s) (want 1): $err"
    return 1
  fi
}
cell() { local d="$tmp/cells/$1"; mkdir -p "$d"; echo "$d"; }
for sys in postgresql mariadb; do
  broken() {
    local d rc=0 err
    d="$(cell "$1-broken")"
    err="$(CELL_DIR="$d" VARIANT=parity RESERVA_BREAK_INVARIANT=1 "$study/run" "$1" transfers 2>&1 >/dev/null)" || rc=$?
    (( rc == 1 )) || { echo "exit $rc, want 1"; return 1; }
    tail -1 <<<"$err" | grep -q "invariant violated on $1/parity: sum of balances is .* (difference +1)" || { echo "$err" | tail -3; return 1; }
    jq -e '.invariants.ok == false and .invariant_broken_on_purpose == true' "$d/reserva.json" >/dev/null
  }
  t "$sys: a cell with the invariant broken on purpose fails with the reason" broken "$sys"
  healthy() {
    local d
    d="$(cell "$1-after")"
    CELL_DIR="$d" VARIANT=as-published "$study/run" "$1" transfers >/dev/null 2>&1 || return 1
    jq -e '.invariants.ok and .transfers > 0' "$d/reserva.json" >/dev/null && test -f "$d/.measure-start" -a -f "$d/.measure-end"
  }
  t "$sys: the next cell passes again (the hook undoes itself) and marks the measured window" healthy "$sys"
  t "$sys: unknown variant exits 2 with one line" expect_exit 2 "VARIANT='fast' is not valid \(valid: as-published, parity\)" env VARIANT=fast "$study/run" "$sys" transfers
  t "$sys: concurrency 0 exits 2 with one line" expect_exit 2 "THREADS='0' is not valid" env VARIANT=parity THREADS=0 "$study/run" "$sys" transfers
  t "$sys: a scale the data was not prepared at exits 2 with one line" expect_exit 2 "prepared with 2000 accounts .*not 3000" env VARIANT=parity ACCOUNTS=3000 "$study/run" "$sys" transfers
done
t "unknown workload exits 2 with one line" expect_exit 2 "unknown workload 'transfer' \(valid: transfers\)" env VARIANT=parity "$study/run" postgresql transfer
t "unknown system exits 2 with one line" expect_exit 2 "unknown system 'oracle'" env VARIANT=parity "$study/run" oracle transfers
mysql_skipped() {
  if "$systems/mysql/env" >/dev/null 2>&1; then echo "mysql is installed here: not a skip case"; return 0; fi
  expect_exit 3 "mysql .* not installed" env VARIANT=parity "$study/run" mysql transfers
}
t "mysql: skipped with the reason where it cannot be installed (exit 3)" mysql_skipped
t "cleanup postgresql" "$study/cleanup" postgresql
t "cleanup mariadb" "$study/cleanup" mariadb
not_prepared() { expect_exit 2 "holds no payments data: run prepare first" env VARIANT=parity "$study/run" postgresql transfers; }
t "after cleanup a run exits 2: not prepared" not_prepared
finish
