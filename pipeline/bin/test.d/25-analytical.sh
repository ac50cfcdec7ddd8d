#!/usr/bin/env bash
# Suite: the analytical study (seed 001): pgwire-tp's Go tests against a real PostgreSQL, the workload catalog's consistency, every SQL
# system's client verb, and a tiny real run through the study verbs: a handful of workloads on
# sqlite, duckdb and postgresql (plus the pgwire path pointed at that PostgreSQL) whose answers
# must agree across engines, each cell keeping what it ran (SQL, the exact command timed), a wrong
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
# The study asks capabilities and dialects, never system names; a workload says what it needs.
assert "systems" not in st and "sql" in st["requires"], st.get("requires")
systems_dir = os.path.join(d, "..", "..", "systems")
systems = {}
for n in sorted(os.listdir(systems_dir)):
    p = os.path.join(systems_dir, n, "system.json")
    if os.path.exists(p):
        systems[n] = json.load(open(p))
runnable = {n: s for n, s in systems.items()
            if set(st["requires"]) <= set(s["capabilities"]) and s.get("sql", {}).get("dialect") in st["dialects"]}
assert {"postgresql", "duckdb", "sqlite", "mariadb", "pgwire"} <= set(runnable), sorted(runnable)
names = set(systems)
flavors = {s["sql"]["flavor"] for s in systems.values() if s.get("sql", {}).get("flavor")}
for w in ws:
    assert "systems" not in w and "unsupported" not in w, f"{w['name']}: names systems"
    for key in w.get("dialects", {}):
        base, _, flavor = key.partition(":")   # "<dialect>:<flavor>": an engine's own SQL (sql.flavor)
        assert base in st["dialects"] and (not flavor or flavor in flavors), f"{w['name']}: dialects key {key}"
    # a system that cannot run it says why (capability_notes), the reason of its skipped cell
    for n, s in runnable.items():
        for cap in set(w.get("requires", [])) - set(s["capabilities"]):
            why = s.get("capability_notes", {}).get(cap, "")
            assert why.strip(), f"{w['name']}: {n} lacks {cap} without a capability_notes reason"
# no system's name in the study's code or workload files (those spelt like a dialect or a
# capability, e.g. postgresql, pgwire, cannot be told apart here and are left out)
words = set(st["dialects"]) | {c for s in systems.values() for c in s["capabilities"]} | flavors
names = {n for n in names if n not in words}
assert "mariadb" in names, names
for root, _, files in os.walk(d):
    for f in files:
        if f.endswith((".json", ".sh", ".py")) or f in ("run", "prepare", "cleanup", "install", "versions"):
            if f in ("study.json", "claims.json"):
                continue  # documentation of the method, shown on the site
            text = open(os.path.join(root, f)).read()
            if f.endswith(".json"):
                # check.agreed_by is the checksum's provenance (which engines' answers agreed), not a plan
                doc = json.loads(text)
                doc.get("check", {}).pop("agreed_by", None)
                text = json.dumps(doc)
            for n in names:
                assert f'"{n}"' not in text and f"'{n}'" not in text and f"== {n}" not in text and f" {n})" not in text, f"{f} names system {n}"
print(len(hf), "hyperfine workloads,", len(ws) - len(hf), "throughput workloads;", len(runnable), "systems can run the study")
PY
}
t "workload catalog: >= 60 checked workloads, every category, no system names, reasons for skipped cells" catalog_ok

# The parser unit tests (pipeline/test/parsers-analytical.test.ts) run in suite 10, once.
out="$(mktemp)"

# ---- PostgreSQL up, pgwire-tp Go tests against it -------------------------------------------
t "postgresql/start (private state, port $SAMEBOX_PG_PORT)" "$systems/postgresql/start"
export PGWIRE_DSN="postgresql://bench:bench@127.0.0.1:$SAMEBOX_PG_PORT/sbtest"
(cd "$tpdir" && PGWIRE_TEST_DSN="$PGWIRE_DSN" "$GO" test -count=1 -json ./... >"$out" 2>&1)
go_rc=$?
grep -qE '"Action":"skip".*"Test":' "$out" && bad "go test pgwire-tp skipped the server test (PGWIRE_TEST_DSN not reached)"
count_go_json "go test pgwire-tp" "$go_rc" "$out"

# ---- the client verb of every SQL system -------------------------------------------------------
# client exec|query FILE prints the argv (NUL-separated; leading NAME=VALUE words are environment)
# that runs FILE on the system; argv[0] after them must be the client binary itself (ELF), not a
# wrapper script that hyperfine would time with it.
client_argv_of() { # SYSTEM MODE FILE [DBNAME] -> lines
  local s="$1"; shift
  "$systems/$s/client" "$@" | tr '\0' '\n'
}
# null and a bad mode answer whether or not the system is installed here; exec says why when it is not.
client_verbs_ok() {
  local s n=0 out rc bin
  for s in "$systems"/*/; do
    s="$(basename "$s")"
    python3 -c 'import json,sys; sys.exit(0 if "sql" in json.load(open(sys.argv[1]))["capabilities"] else 1)' "$systems/$s/system.json" || continue
    [[ -x "$systems/$s/client" ]] || { echo "$s has capability sql but no client verb"; return 1; }
    rc=0; out="$("$systems/$s/client" null)" || rc=$?
    [[ $rc -eq 0 && ( "$out" == '\N' || "$out" == NULL ) ]] || { echo "$s: client null: exit $rc '$out'"; return 1; }
    rc=0; "$systems/$s/client" bogus /dev/null >/dev/null 2>&1 || rc=$?
    [[ $rc -eq 2 ]] || { echo "$s: client bogus: exit $rc, want 2"; return 1; }
    # exit 3: not available here (MySQL, SQL Server; mskql or pgvector never built), with its reason
    rc=0; out="$(client_argv_of "$s" exec "$SAMEBOX_STATE/x.sql" 2>/dev/null)" || rc=$?
    if [[ $rc -eq 3 ]]; then
      [[ -n "${out//[[:space:]]/}" ]] || { echo "$s: client exec: exit 3 without a reason"; return 1; }
      echo "  $s: not available here (exit 3): $out"; continue
    fi
    [[ $rc -eq 0 ]] || { echo "$s: client exec: exit $rc"; return 1; }
    bin="$(grep -v -m1 -E '^[A-Za-z_][A-Za-z0-9_]*=' <<<"$out")"
    [[ "$(head -c 4 "$bin" | od -An -c | tr -d ' ')" == '177ELF' ]] || { echo "$s: argv[0] '$bin' is not a native binary"; return 1; }
    grep -qF "$SAMEBOX_STATE/x.sql" <<<"$out" || { echo "$s: the SQL file is not in the argv"; return 1; }
    n=$((n + 1))
  done
  (( n >= 3 )) || { echo "only $n client verbs could be checked here"; return 1; }
}
client_runs_ok() { # the argv, run through env(1) as printed, answers a query on each engine (embedded: DBNAME is a file)
  local s out db
  printf 'SELECT 6 * 7, NULL;\n' > "$SAMEBOX_STATE/q.sql"
  for s in sqlite duckdb postgresql; do
    db=(); [[ $s == postgresql ]] || db=("$SAMEBOX_STATE/q.$s.db")
    out="$(client_argv_of "$s" query "$SAMEBOX_STATE/q.sql" "${db[@]}" | tr '\n' '\0' | xargs -0 env)" || { echo "$s: query failed"; return 1; }
    [[ "$out" == "42"$'\t''\N' ]] || { echo "$s answered '$out', want 42<TAB>\\N"; return 1; }
  done
}

# ---- study verbs: prepare -------------------------------------------------------------------
t "client verbs: argv of a native binary, null spelling, bad mode exits 2" client_verbs_ok
t "client verbs: sqlite, duckdb, postgresql answer 'SELECT 6 * 7, NULL' as 42<TAB>\\N" client_runs_ok
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
# what ran stays in the cell: the SQL, the workload file, the exact command hyperfine timed
for f in ("sql/setup.sql", "sql/batch.sql", "sql/check.sql", "sql/meta.json", "workload.json",
          "command.json", "command.txt", "check.json", "check.txt"):
    open(d + "/" + f).close()
c = json.load(open(d + "/command.json"))
# hyperfine ran the client binary itself (no wrapper script), as the timed_by line says
assert open(c["argv"][0], "rb").read(4) == b"\x7fELF", c["argv"][0]
assert c["timed_by"].startswith("hyperfine ") and f"'--runs' '{runs}'" in c["timed_by"], c["timed_by"]
assert any(d + "/sql/batch.sql" in a for a in c["argv"]), c["argv"]
assert all(v == "***" for k, v in c["env"].items() if "PASSWORD" in k or "PWD" in k), c["env"]
assert "bench:bench@" not in json.dumps(c), "a password in command.json"
assert open(d + "/command.txt").read().strip() == c["shell"] and '"$CELL_DIR"' in c["shell"], c["shell"]
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
  local b="$cells/pgwire.aggregate.no-cache/sql/batch.sql" hot="$cells/pgwire.aggregate.hot/sql/batch.sql"
  # no statement's text repeats, and with its whitespace folded each is the hot batch's statement
  [[ "$(sort -u "$b" | wc -l)" -eq "$(wc -l <"$b")" && "$(wc -l <"$b")" -gt 1 ]] || { echo "a statement's text repeats"; return 1; }
  cmp -s <(tr -s ' \t' '  ' <"$b") <(tr -s ' \t' '  ' <"$hot") || { echo "no-cache changed more than whitespace"; return 1; }
  ! grep -q '/\*' "$b" || { echo "a comment in the no-cache batch (mskql's lexer has none)"; return 1; }
}
t "run pgwire aggregate no-cache: every statement's text its own, only whitespace differs" nocache_ok
cold_ok() {
  run_ok postgresql aggregate cold || return 1
  grep -q '"drop_caches": "\(allowed\|denied\)"' "$cells/postgresql.aggregate.cold/cold.json" || return 1
  grep -q 'server restarted' "$cells/postgresql.aggregate.cold/cold.json"
}
t "run postgresql aggregate cold: restart between runs, cache drop recorded" cold_ok

# exit codes: 3 unsupported (one line saying why on stdout: the skip reason the pipeline records),
# 4 wrong answer (both checksums printed)
expect_3() {
  local o rc=0
  o="$(CELL_DIR="$cells/x3" "$study/run" "$@" 2>"$cells/x3.err")" || rc=$?
  [[ $rc -eq 3 && "$(wc -l <<<"$o")" -eq 1 && -n "$o" ]] || { echo "exit $rc: $o"; cat "$cells/x3.err"; return 1; }
  echo "  $o"
}
t "sqlite pq_aggregate is unsupported (exit 3, one line)" expect_3 sqlite pq_aggregate
parquet_reason() { # the reason names the capability and the system's capability_notes text
  local o
  o="$(CELL_DIR="$cells/x3p" "$study/run" sqlite pq_aggregate 2>/dev/null)"
  [[ "$o" == *parquet* && "$o" == *"$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["capability_notes"]["parquet"])' "$systems/sqlite/system.json")"* ]] || { echo "$o"; return 1; }
}
t "sqlite pq_aggregate: the reason names parquet and sqlite's capability_notes" parquet_reason
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
nocache_follows_result_cache() { # no-cache is rendered for a system with capability result-cache (mskql)
  local py="$study/lib/analytical.py" wl="$study/workloads/aggregate.json" o rc=0
  SYSTEM_CAPS="sql pgwire result-cache" python3 "$py" render "$wl" postgresql server no-cache "$cells/rc1" /nonexistent mskql >/dev/null || { echo "refused with a result cache"; return 1; }
  grep -q '"variant": "no-cache"' "$cells/rc1/meta.json" || { echo "meta.json without the variant"; return 1; }
  o="$(SYSTEM_CAPS="sql pgwire" python3 "$py" render "$wl" postgresql server no-cache "$cells/rc0" /nonexistent postgresql)" || rc=$?
  [[ $rc -eq 3 && "$o" == *"variant no-cache needs capability result-cache, which postgresql lacks (study.json variant_requires)"* ]] || { echo "exit $rc: $o"; return 1; }
}
t "no-cache follows capability result-cache: rendered for a system with it, exit 3 without" nocache_follows_result_cache
nocache_rerender() { # each run's rewrite replaces the last one's whitespace: texts differ between runs, never grow
  local py="$study/lib/analytical.py" b="$cells/rc1/batch.sql" orig one two
  orig="$(tr -s ' \t' '  ' <"$b")"
  python3 "$py" nocache "$b" seed-1 && one="$(cat "$b")"
  python3 "$py" nocache "$b" seed-2 && two="$(cat "$b")"
  [[ "$one" != "$two" && ${#one} -eq ${#two} ]] || { echo "run 2 kept run 1's text or grew it"; return 1; }
  [[ "$(tr -s ' \t' '  ' <<<"$two")" == "$orig" ]] || { echo "the statements changed beyond whitespace"; return 1; }
}
t "no-cache: each run's whitespace replaces the previous run's" nocache_rerender
flavor_sql() { # sql.flavor refines the dialect's SQL: mskql reads Parquet through CREATE FOREIGN TABLE
  local py="$study/lib/analytical.py" wl="$study/workloads/pq_aggregate.json"
  SYSTEM_SQL_FLAVOR=mskql SYSTEM_CAPS="sql parquet" python3 "$py" render "$wl" postgresql server hot "$cells/fl1" /pq mskql >/dev/null || return 1
  grep -qx "CREATE FOREIGN TABLE pq_events OPTIONS (FILENAME '/pq/events.parquet');" "$cells/fl1/setup.sql" || { cat "$cells/fl1/setup.sql"; return 1; }
  grep -q '"flavor": "mskql"' "$cells/fl1/meta.json" || { echo "meta.json lacks the flavor"; return 1; }
  SYSTEM_CAPS="sql parquet" python3 "$py" render "$wl" duckdb embedded hot "$cells/fl0" /pq duckdb >/dev/null || return 1
  grep -q "read_parquet('/pq/events.parquet')" "$cells/fl0/setup.sql" || { cat "$cells/fl0/setup.sql"; return 1; }
}
t "a flavor's SQL (postgresql:mskql) is merged over the dialect's; others keep theirs" flavor_sql
flavor_validate() { # an unknown flavor and a dialect-wide 'unsupported' are problems, named
  local d="$cells/wl-flavor" o
  mkdir -p "$d"
  python3 - "$study/workloads/pq_aggregate.json" "$d" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))
w["dialects"]["postgresql:nosuch"] = {"setup": []}
w["dialects"]["duckdb"] = {"unsupported": "no"}
json.dump(w, open(sys.argv[2] + "/pq_aggregate.json", "w"))
PY
  o="$(python3 "$study/lib/analytical.py" validate "$d")" && { echo "validate passed: $o"; return 1; }
  [[ "$o" == *"unknown SQL flavor 'nosuch'"*"valid: ['mskql']"* && "$o" == *"dialects.duckdb: 'unsupported' belongs to a flavor"* ]] || { echo "$o"; return 1; }
}
t "validate names an unknown flavor and an 'unsupported' outside a flavor" flavor_validate
canon_vectors() { # each engine prints vectors its own way; element by element they compare equal
  local py="$study/lib/analytical.py" a b
  a="$(printf '1\t[1,2.5,0.1]\n' | python3 "$py" canon '\N' 3)"
  b="$(printf '1\t[1.0, 2.50, 0.100000001]\n' | python3 "$py" canon '\N' 3)"
  [[ -n "$a" && "$a" == "$b" ]] || { echo "$a != $b"; return 1; }
  b="$(printf '1\t[1.0, 2.6, 0.1]\n' | python3 "$py" canon '\N' 3)"
  [[ "$a" != "$b" ]] || { echo "a different vector compared equal"; return 1; }
}
t "canon: vectors compare element by element ([1,2.5] = [1.0, 2.50])" canon_vectors
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
  [[ $rc -eq 2 && "$o" == *"unknown system 'oracle'"* && "$o" == *valid*postgresql* ]] || { echo "exit $rc: $o"; return 1; }
  for s in duckdb sqlite mariadb pgwire; do [[ "$o" == *"$s"* ]] || { echo "valid list lacks $s: $o"; return 1; }; done
  [[ "$o" != *mcp-* ]] || { echo "valid list names systems without sql: $o"; return 1; }
  rc=0; o="$("$study/run" sqlite no_such_workload 2>&1)" || rc=$?
  [[ $rc -eq 2 && "$o" == *"valid:"*"aggregate"* ]] || { echo "exit $rc: $o"; return 1; }
  rc=0; o="$(HF_RUNS=1 "$study/run" sqlite noop 2>&1)" || rc=$?
  [[ $rc -eq 2 && "$o" == *"HF_RUNS must be"* ]] || { echo "exit $rc: $o"; return 1; }
}
t "bad system, workload or HF_RUNS: one clear line, exit 2" bad_args

# HF_TARGET_S: a short batch gets more runs (up to HF_MAX_RUNS), chosen from the timed first warm-up run
target_runs() {
  local dir="$cells/duckdb.aggregate.target" o rc=0
  CELL_DIR="$dir" HF_TARGET_S=30 HF_MAX_RUNS=5 "$study/run" duckdb aggregate hot >"$dir.out" 2>&1 || { echo "exit $?"; cat "$dir.out"; return 1; }
  python3 - "$dir" <<'PY' || { cat "$dir.out"; return 1; }
import json, sys
d = sys.argv[1]
r = json.load(open(d + "/runs.json"))
# 30 s over a batch of well under 6 s: clamped to HF_MAX_RUNS
assert r["runs"] == 5 and r["max_runs"] == 5 and r["first_warmup_run_ms"] > 0, r
h = json.load(open(d + "/hyperfine.json"))["results"][0]
assert len(h["times"]) == 5, len(h["times"])
assert "'--runs' '5'" in json.load(open(d + "/command.json"))["timed_by"]
PY
  o="$(CELL_DIR="$dir" HF_TARGET_S=0.000001 "$study/run" duckdb aggregate hot 2>&1)" || { echo "$o"; return 1; }
  [[ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["runs"])' "$dir/runs.json")" == "$HF_RUNS" ]] || { echo "a tiny target must keep HF_RUNS: $(cat "$dir/runs.json")"; return 1; }
  o="$(CELL_DIR="$dir" HF_TARGET_S=fast "$study/run" duckdb aggregate hot 2>&1)" && rc=0 || rc=$?
  [[ $rc -eq 2 && "$o" == *"HF_TARGET_S must be"* ]] || { echo "exit $rc: $o"; return 1; }
}
t "HF_TARGET_S: short batches get more runs (runs.json, --runs), a bad value exits 2" target_runs

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
