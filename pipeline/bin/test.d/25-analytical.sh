#!/usr/bin/env bash
# Suite: the analytical study (seed 001). Parser unit tests on real captured outputs (node:test),
# pgwire-tp's Go tests against a real PostgreSQL, the workload catalog's consistency, and a tiny
# real run through the study verbs: a handful of workloads on sqlite, duckdb and postgresql (plus
# the pgwire path pointed at that PostgreSQL) whose answers must agree across engines, a wrong
# answer that must exit 4, unsupported cells that must exit 3, a cold cell and a throughput cell.
# Starts PostgreSQL in a private state dir on a private port and stops it at the end.
# Last line: "P passed, F failed".
# shellcheck disable=SC2317  # helpers are called through t()
set -uo pipefail
cd "$(dirname "$0")/../../.." || exit 2
repo="$(pwd)"
systems="$repo/bench-scripts/systems"
study="$repo/bench-scripts/studies/analytical"
tpdir="$repo/bench-scripts/loadgen/pgwire-tp"

# shellcheck source=SCRIPTDIR/../test-lib.sh
. "$repo/pipeline/bin/test-lib.sh"
if [[ "$(id -u)" -ne 0 ]]; then
  bad "must run as root (the system verbs install packages and run servers)"
  finish
fi

SAMEBOX_STATE="$(mktemp -d /tmp/samebox-analytical-test.XXXXXX)"
# Private test port; SAMEBOX_TEST_PG_PORT overrides it (several people testing on one machine).
export SAMEBOX_STATE SAMEBOX_PG_PORT="${SAMEBOX_TEST_PG_PORT:-54359}"
export HF_RUNS=2 HF_WARMUP=1 REPEAT_SCALE=0.1 THREADS=4 DURATION=1 WARMUP=0
cells="$SAMEBOX_STATE/cells"
stop_all() {
  "$systems/postgresql/stop" >/dev/null 2>&1
  rm -rf "$SAMEBOX_STATE"
}
trap stop_all EXIT

# ---- install (idempotent) -------------------------------------------------------------------
t "setup node" pipeline/bin/setup node
t "setup tools (hyperfine, sqlite3, psql)" pipeline/bin/setup tools
for s in postgresql sqlite duckdb; do t "$s/install" "$systems/$s/install"; done
GO="$(command -v go || echo /usr/local/go/bin/go)"

# ---- catalog ----------------------------------------------------------------------------------
catalog_ok() {
  python3 "$study/lib/analytical.py" validate "$study/workloads" || return 1
  python3 - "$study" <<'PY'
import json, os, sys
d = sys.argv[1]
st = json.load(open(os.path.join(d, "study.json")))
assert st["name"] == "analytical" and st["seed"].startswith("001_")
ws = [json.load(open(os.path.join(d, "workloads", f))) for f in sorted(os.listdir(os.path.join(d, "workloads")))]
hf = [w for w in ws if w["tool"] == "hyperfine"]
assert len(hf) >= 60, f"only {len(hf)} hyperfine workloads"
cats = {w["category"] for w in hf}
for c in ["baseline", "micro", "star", "pg-favoured", "parquet", "vector"]:
    assert c in cats, f"no {c} workload"
for w in ws:
    assert set(w["systems"]) <= set(st["systems"]), w["name"]
    for s, why in w.get("unsupported", {}).items():
        assert why.strip(), f"{w['name']}: unsupported on {s} without a reason"
print(len(hf), "hyperfine workloads,", len(ws) - len(hf), "throughput workloads")
PY
}
t "workload catalog: >= 60 checked workloads, every category, reasons for unsupported cells" catalog_ok

# ---- parser unit tests (node:test on real outputs) ------------------------------------------
out="$(mktemp)"
node_modules/.bin/node --test --test-reporter=spec pipeline/test/parsers-analytical.test.ts >"$out" 2>&1
np=$(grep -E '^ℹ pass [0-9]+' "$out" | awk '{print $3}'); nf=$(grep -E '^ℹ fail [0-9]+' "$out" | awk '{print $3}')
pass=$((pass + ${np:-0})); fail=$((fail + ${nf:-0}))
echo "node:test parsers-analytical: ${np:-0} passed, ${nf:-0} failed"
if [[ -z "$np" || "${nf:-1}" != 0 ]]; then bad "node:test parsers-analytical"; tail -n 40 "$out" | sed 's/^/     | /'; fi

# ---- PostgreSQL up, pgwire-tp Go tests against it -------------------------------------------
t "postgresql/start (private state, port $SAMEBOX_PG_PORT)" "$systems/postgresql/start"
export PGWIRE_DSN="postgresql://bench:bench@127.0.0.1:$SAMEBOX_PG_PORT/sbtest"
(cd "$tpdir" && PGWIRE_TEST_DSN="$PGWIRE_DSN" "$GO" test -count=1 -v ./... >"$out" 2>&1)
gp=$(grep -c -- '^--- PASS' "$out"); gf=$(grep -c -- '^--- FAIL' "$out")
grep -q -- '^--- SKIP' "$out" && { bad "go test skipped the server test"; }
pass=$((pass + gp)); fail=$((fail + gf))
echo "go test pgwire-tp: $gp passed, $gf failed"
if ! grep -q '^ok' "$out"; then bad "go test pgwire-tp"; tail -n 30 "$out" | sed 's/^/     | /'; fi

# ---- study verbs: prepare -------------------------------------------------------------------
for s in postgresql duckdb sqlite pgwire; do t "analytical/prepare $s" "$study/prepare" "$s"; done

# run_ok SYSTEM WORKLOAD [VARIANT]: exit 0, answer matched, hyperfine exported the runs
run_ok() {
  local dir="$cells/$1.$2.${3:-hot}"
  CELL_DIR="$dir" "$study/run" "$1" "$2" "${3:-hot}" >"$dir.out" 2>&1 || { echo "exit $?"; cat "$dir.out"; return 1; }
  python3 - "$dir" "$HF_RUNS" <<'PY' || { cat "$dir.out"; return 1; }
import json, sys
d, runs = sys.argv[1], int(sys.argv[2])
a = json.load(open(d + "/answer.json"))
assert a["match"] is True and a["checksum"] == a["expected"], a
h = json.load(open(d + "/hyperfine.json"))["results"]
assert len(h) == 1 and len(h[0]["times"]) == runs and all(c == 0 for c in h[0]["exit_codes"]), h
assert all(t > 0 for t in h[0]["times"])
PY
}
same_answer() { # WORKLOAD: the checksum is identical on every engine that ran it
  local w="$1" sums
  sums="$(for s in sqlite duckdb postgresql; do python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["checksum"])' "$cells/$s.$w.hot/answer.json"; done | sort -u)"
  [[ "$(wc -l <<<"$sums")" -eq 1 ]] || { echo "checksums differ: $sums"; return 1; }
}
mkdir -p "$cells"
for w in noop aggregate join window_functions left_join_nulls scalar_functions update wc_correlated_subq; do
  for s in sqlite duckdb postgresql; do t "run $s $w" run_ok "$s" "$w"; done
  t "$w: same answer on sqlite, duckdb, postgresql" same_answer "$w"
done
t "run duckdb pq_aggregate (Parquet read)" run_ok duckdb pq_aggregate
t "run pgwire aggregate (psql against PGWIRE_DSN)" run_ok pgwire aggregate
nocache_ok() {
  run_ok pgwire aggregate no-cache || return 1
  local b="$cells/pgwire.aggregate.no-cache/sql/batch.sql"
  # every statement carries a comment, and no comment repeats across statements
  [[ "$(grep -c '/\* nc:' "$b")" -eq "$(wc -l <"$b")" ]] || { echo "statements without a no-cache comment"; return 1; }
  [[ "$(grep -o '/\* nc:[^*]*\*/' "$b" | sort | uniq -d | wc -l)" -eq 0 ]] || { echo "repeated no-cache comment"; return 1; }
}
t "run pgwire aggregate no-cache: unique comment on every statement" nocache_ok
cold_ok() {
  run_ok postgresql aggregate cold || return 1
  grep -q '"drop_caches": "\(allowed\|denied\)"' "$cells/postgresql.aggregate.cold/cold.json" || return 1
  grep -q 'server restarted' "$cells/postgresql.aggregate.cold/cold.json"
}
t "run postgresql aggregate cold: restart between runs, cache drop recorded" cold_ok

# exit codes: 3 unsupported (one line saying why), 4 wrong answer (both checksums printed)
expect_3() {
  local o rc=0
  o="$(CELL_DIR="$cells/x3" "$study/run" "$@" 2>&1)" || rc=$?
  [[ $rc -eq 3 && "$(wc -l <<<"$o")" -eq 1 && -n "$o" ]] || { echo "exit $rc: $o"; return 1; }
}
t "sqlite pq_aggregate is unsupported (exit 3, one line)" expect_3 sqlite pq_aggregate
pgvector_or_3() {
  local have o rc=0
  have="$(PGPASSWORD=bench psql -XAt -h 127.0.0.1 -p "$SAMEBOX_PG_PORT" -U bench -d sbtest \
    -c "SELECT count(*) FROM pg_available_extensions WHERE name = 'vector'")"
  if [[ "$have" == 1 ]]; then run_ok postgresql vec_filter; return; fi
  o="$(CELL_DIR="$cells/x3v" "$study/run" postgresql vec_filter 2>&1)" || rc=$?
  [[ $rc -eq 3 && "$o" == *pgvector* ]] || { echo "exit $rc: $o"; return 1; }
}
t "postgresql vec_filter: runs with pgvector, else exit 3 naming pgvector" pgvector_or_3
t "sqlite has no result cache: no-cache variant exits 3" expect_3 sqlite aggregate no-cache
t "pgwire cannot be restarted: cold exits 3" expect_3 pgwire aggregate cold
wrong_answer() {
  local wl="$SAMEBOX_STATE/aggregate.json" o rc=0
  python3 - "$study/workloads/aggregate.json" "$wl" <<'PY'
import json, sys
w = json.load(open(sys.argv[1])); w["check"]["checksum"] = "sha256:" + "0" * 64
json.dump(w, open(sys.argv[2], "w"))
PY
  o="$(CELL_DIR="$cells/wrong" "$study/run" sqlite "$wl" 2>&1)" || rc=$?
  [[ $rc -eq 4 ]] || { echo "exit $rc, want 4: $o"; return 1; }
  if ! grep -q "expected sha256:0000" <<<"$o" || ! grep -q "got      sha256:[0-9a-f]\{64\}" <<<"$o"; then echo "$o"; return 1; fi
  [[ ! -f "$cells/wrong/hyperfine.json" ]] || { echo "a wrong answer was still timed"; return 1; }
}
t "a wrong answer exits 4, prints both checksums and is not timed" wrong_answer
bad_args() {
  local o rc=0
  o="$("$study/run" oracle aggregate 2>&1)" || rc=$?
  [[ $rc -eq 2 && "$o" == *"valid: postgresql duckdb sqlite mariadb pgwire"* ]] || { echo "exit $rc: $o"; return 1; }
  rc=0; o="$("$study/run" sqlite no_such_workload 2>&1)" || rc=$?
  [[ $rc -eq 2 && "$o" == *"valid:"*"aggregate"* ]] || { echo "exit $rc: $o"; return 1; }
  rc=0; o="$(HF_RUNS=1 "$study/run" sqlite noop 2>&1)" || rc=$?
  [[ $rc -eq 2 && "$o" == *"HF_RUNS must be"* ]] || { echo "exit $rc: $o"; return 1; }
}
t "bad system, workload or HF_RUNS: one clear line, exit 2" bad_args

tp_ok() {
  local dir="$cells/tp.$1.$2"
  CELL_DIR="$dir" "$study/run" "$1" "$2" >"$dir.out" 2>&1 || { cat "$dir.out"; return 1; }
  python3 - "$dir/pgwire-tp.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["connections"] == 4 and r["queries"] > 0 and r["qps"] > 0 and r["errors"] == 0, r
assert 0 < r["latency_ms"]["p50"] <= r["latency_ms"]["p99"] <= r["latency_ms"]["max"], r
PY
}
t "throughput postgresql tp_mixed_rw (4 connections, 1 s)" tp_ok postgresql tp_mixed_rw
t "throughput pgwire tp_point_lookup" tp_ok pgwire tp_point_lookup
t "throughput on sqlite exits 3" expect_3 sqlite tp_point_lookup

# ---- cleanup --------------------------------------------------------------------------------
for s in postgresql duckdb sqlite pgwire; do t "analytical/cleanup $s" "$study/cleanup" "$s"; done
schema_gone() {
  local n
  n="$(PGPASSWORD=bench psql -XAt -h 127.0.0.1 -p "$SAMEBOX_PG_PORT" -U bench -d sbtest -c "SELECT count(*) FROM information_schema.schemata WHERE schema_name = 'analytical'")"
  [[ "$n" == 0 ]] || { echo "schema analytical still there"; return 1; }
}
t "cleanup dropped the analytical schema" schema_gone
t "postgresql/stop" "$systems/postgresql/stop"
finish
