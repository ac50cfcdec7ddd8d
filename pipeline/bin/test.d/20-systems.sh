#!/usr/bin/env bash
# Suite: bench-scripts system and oltp study verbs against the real servers and tools.
# Installs through the verbs (idempotent), starts PostgreSQL and MariaDB in a private state
# dir on private ports, runs every oltp workload once at a tiny size through the study
# verbs, checks the output is plausible, stops the servers and checks nothing listens.
# Also shellchecks bench-scripts/. Last line: "P passed, F failed".
# shellcheck disable=SC2317,SC2016  # helpers are called through t(); bash -c bodies are single-quoted on purpose
set -uo pipefail
cd "$(dirname "$0")/../../.." || exit 1
repo="$(pwd)"
systems="$repo/bench-scripts/systems"
study="$repo/bench-scripts/studies/oltp"

# shellcheck source=SCRIPTDIR/../test-lib.sh
. "$repo/pipeline/bin/test-lib.sh"

if [[ "$(id -u)" -ne 0 ]]; then
  bad "must run as root (the verbs install packages and run servers as postgres/mysql)"
  finish
fi

# Private state and ports: never touches a samebox server a developer has running.
SAMEBOX_STATE="$(mktemp -d /tmp/samebox-test-state.XXXXXX)"
# Private test ports; SAMEBOX_TEST_PG_PORT / SAMEBOX_TEST_MARIADB_PORT override them (several people testing on one machine).
export SAMEBOX_STATE SAMEBOX_PG_PORT="${SAMEBOX_TEST_PG_PORT:-54339}" SAMEBOX_MARIADB_PORT="${SAMEBOX_TEST_MARIADB_PORT:-33089}"
export THREADS=2 DURATION=3 WARMUP=1 SB_TABLES=2 SB_TABLE_SIZE=1000 PGBENCH_SCALE=1 REPORT_INTERVAL=1
# Log every pgbench transaction at this size whatever the machine's speed (auto sampling starts above ~100k
# transactions per cell, which a fast idle machine reaches in 3 s of select-only).
export PGBENCH_LOG_TARGET=100000000
cells="$SAMEBOX_STATE/cells"
cleanup_servers() {
  "$systems/postgresql/stop" >/dev/null 2>&1
  "$systems/mariadb/stop" >/dev/null 2>&1
  [[ ! -x "$SAMEBOX_STATE/copy-tree/bench-scripts/systems/pgcopy/stop" ]] \
    || "$SAMEBOX_STATE/copy-tree/bench-scripts/systems/pgcopy/stop" >/dev/null 2>&1
  rm -rf "$SAMEBOX_STATE"
}
trap cleanup_servers EXIT

# ---- static checks ----------------------------------------------------------------------
DEBIAN_FRONTEND=noninteractive
export DEBIAN_FRONTEND
if ! command -v shellcheck >/dev/null; then
  { apt-get update -q && apt-get install -y -q --no-install-recommends shellcheck; } >/dev/null 2>&1
fi
shellcheck_targets() {
  # Every bash file: verbs have no extension, so select by shebang or .sh.
  find bench-scripts -type f \( -name '*.sh' -o -perm -u+x \) ! -path '*/loadgen/*' -print0 \
    | while IFS= read -r -d '' f; do
        if [[ "$f" == *.sh || "$(head -n 1 "$f")" == '#!'*bash* ]]; then printf '%s\n' "$f"; fi
      done
  echo pipeline/bin/test.d/20-systems.sh
  echo pipeline/test/fixtures/raw/oltp/capture.sh
}
mapfile -t sc_files < <(shellcheck_targets)
# One shellcheck pass (it is slow: -x re-reads the sourced libs for every verb), judged
# twice: no warning or error anywhere under bench-scripts/, and not even an info/style
# note in this suite's own parts (lib, systems, oltp study, this file, fixture capture).
sc_rc=0
sc_out="$(shellcheck -x -f gcc "${sc_files[@]}" 2>&1)" || sc_rc=$?
# 0 = no findings, 1 = findings; anything else means shellcheck did not check (missing, bad args).
t "shellcheck ran over ${#sc_files[@]} files" bash -c '(( $1 <= 1 && $2 > 40 )) || { echo "exit $1: $3"; exit 1; }' _ \
  "$sc_rc" "${#sc_files[@]}" "$sc_out"
own_parts='^(bench-scripts/(lib|systems|studies/oltp)/|pipeline/bin/test.d/20-systems.sh|pipeline/test/fixtures/raw/oltp/)'
t "shellcheck: no warning or error in ${#sc_files[@]} bash files under bench-scripts/ (+ this suite)" \
  bash -c '! grep -E ": (warning|error): " <<< "$1"' _ "$sc_out"
t "shellcheck: no finding at all in lib/, systems/, studies/oltp/, this suite" \
  bash -c '! grep -E "$2" <<< "$1"' _ "$sc_out" "$own_parts"

t "system.json, study.json and workloads/*.json are consistent" python3 - "$systems" "$study" <<'PY'
import json, os, sys
systems_dir, study_dir = sys.argv[1], sys.argv[2]
verbs = ["install", "start", "check", "stop", "version", "env", "pids", "config"]
for name in sorted(os.listdir(systems_dir)):
    d = os.path.join(systems_dir, name)
    s = json.load(open(os.path.join(d, "system.json")))
    assert s["name"] == name, f"{name}/system.json name is {s['name']}"
    assert s["kind"] in ("server", "embedded", "external"), f"{name}: kind {s['kind']}"
    for v in verbs:
        assert os.access(os.path.join(d, v), os.X_OK), f"{name}/{v} missing or not executable"
    # a system says what it can do; nobody lists systems
    assert "sysbench_driver" not in s, f"{name}: sysbench_driver (now drivers.sysbench)"
    if "sysbench" in s.get("capabilities", []):
        assert s["drivers"]["sysbench"] in ("pgsql", "mysql"), f"{name}: drivers.sysbench"
st = json.load(open(os.path.join(study_dir, "study.json")))
assert st["name"] == "oltp" and st["seed"].startswith("002_")
assert "systems" not in st and "sysbench" in st["requires"], f"oltp study.json: requires {st.get('requires')}"
names = set()
for f in sorted(os.listdir(os.path.join(study_dir, "workloads"))):
    w = json.load(open(os.path.join(study_dir, "workloads", f)))
    assert w["name"] + ".json" == f, f"{f}: name {w['name']}"
    assert w["tool"] in ("sysbench", "pgbench"), f"{f}: tool {w['tool']}"
    assert "systems" not in w, f"{f}: lists systems (say what it requires instead)"
    assert w["tool"] != "pgbench" or "pgbench" in w.get("requires", []), f"{f}: a pgbench workload must require pgbench"
    names.add(w["name"])
assert names == set(st["workload_order"]), f"workload_order {st['workload_order']} != {sorted(names)}"
PY

# ---- install ------------------------------------------------------------------------------
for s in postgresql mariadb sqlite duckdb; do
  t "$s/install" "$systems/$s/install"
done
# An exited server stays a zombie until PID 1 reaps it (about once a second here): stops must not wait for that.
t "pid_alive: a zombie counts as exited, a live process as alive" bash -c '. bench-scripts/lib/common.sh
  f=$(mktemp); (sh -c "echo \$\$ > $f; exec sleep 0.1" & exec sleep 2) & sleep 0.5; z=$(cat "$f")
  [[ "$(awk "{print \$3}" "/proc/$z/stat")" == Z ]] || { echo "setup: $z is not a zombie"; exit 1; }
  ! pid_alive "$z" || { echo "zombie $z counted as alive"; exit 1; }
  pid_alive $$ || { echo "live $$ counted as gone"; exit 1; }'
t "oltp/install (sysbench)" "$study/install"

# mysql installs from Oracle's tarball on Ubuntu 24.04 only; elsewhere every verb that
# needs it says why in one line and exits 3, stop and pids succeed with nothing to do.
os_id="$(. /etc/os-release && echo "$ID:$VERSION_ID")"
if [[ "$os_id" != ubuntu:24.04 ]]; then
  expect_3() {
    local out rc=0
    out="$("$@" 2>/dev/null)" || rc=$?
    [[ $rc -eq 3 && "$(wc -l <<< "$out")" -eq 1 && "$out" == *"Ubuntu 24.04"* ]] \
      || { echo "exit $rc, stdout: $out"; return 1; }
  }
  for v in install start check version env config; do
    t "mysql/$v exits 3 with one line on $os_id" expect_3 "$systems/mysql/$v"
  done
  t "mysql/stop exits 0 when not installed" "$systems/mysql/stop"
  # sqlserver: Microsoft's SQL Server 2022 packages, Ubuntu 24.04 only (same rule as mysql).
  for v in install start check version env config; do
    t "sqlserver/$v exits 3 with one line on $os_id" expect_3 "$systems/sqlserver/$v"
  done
  t "sqlserver/stop exits 0 when not installed" "$systems/sqlserver/stop"
  t "sqlserver/pids prints nothing when not installed" bash -c '[[ -z "$("$1")" ]]' _ "$systems/sqlserver/pids"
  t "oltp/run on mysql exits 3 here" expect_3 "$study/run" mysql oltp_read_write
fi

# ---- servers ------------------------------------------------------------------------------
declare -A port=([postgresql]=$SAMEBOX_PG_PORT [mariadb]=$SAMEBOX_MARIADB_PORT)

# listeners PORT: the local addresses listening on PORT (from /proc, no extra tools).
listeners() {
  local hex
  hex="$(printf '%04X' "$1")"
  awk -v hex="$hex" '$4 == "0A" { split($2, a, ":"); if (a[2] == hex) print a[1] }' /proc/net/tcp /proc/net/tcp6
}
only_loopback() {
  local l
  l="$(listeners "$1")"
  [[ -n "$l" ]] || { echo "nothing listens on $1"; return 1; }
  [[ "$(sort -u <<< "$l")" == 0100007F ]] || { echo "listening on $1 at: $l (want only 127.0.0.1 = 0100007F)"; return 1; }
}
nothing_listens() { [[ -z "$(listeners "$1")" ]] || { echo "still listening on $1: $(listeners "$1")"; return 1; }; }
version_ok() {
  local v
  v="$("$1")" || return 1
  [[ "$v" =~ ^[0-9]+\.[0-9]+(\.[0-9]+)?$ ]] || { echo "version: '$v'"; return 1; }
}
env_ok() {
  local out k
  out="$("$1")" || return 1
  for k in DB_HOST DB_PORT DB_USER DB_PASSWORD DB_NAME DB_SOCKET; do
    grep -q "^$k=." <<< "$out" || { echo "no $k in: $out"; return 1; }
  done
  # the sysbench driver is system.json's drivers.sysbench now, not an env line
  ! grep -q "^SYSBENCH_DRIVER=" <<< "$out" || { echo "env still prints SYSBENCH_DRIVER: $out"; return 1; }
  grep -qx "DB_PORT=$2" <<< "$out" || { echo "DB_PORT is not $2: $out"; return 1; }
}
pids_alive() {
  local pids p
  pids="$("$1")" || return 1
  [[ -n "$pids" ]] || { echo "no pid"; return 1; }
  for p in $pids; do kill -0 "$p" || return 1; done
}
expected_buffer_mib="$(awk '/^MemTotal:/ { printf "%d", int($2 * 0.25 / 1024) }' /proc/meminfo)"
config_has() {
  local out
  out="$("$1")" || return 1
  grep -qx "$2" <<< "$out" || { echo "config lacks '$2' in:"; echo "$out"; return 1; }
}

for s in postgresql mariadb; do
  t "$s/start" "$systems/$s/start"
  t "$s/start again is a no-op" "$systems/$s/start"
  t "$s/check" "$systems/$s/check"
  t "$s/version is X.Y[.Z]" version_ok "$systems/$s/version"
  t "$s/env has every key, port ${port[$s]}" env_ok "$systems/$s/env" "${port[$s]}"
  t "$s/pids are alive" pids_alive "$systems/$s/pids"
  t "$s listens on 127.0.0.1:${port[$s]} only" only_loopback "${port[$s]}"
done
t "postgresql/config: shared_buffers = 25 % of RAM" config_has "$systems/postgresql/config" "shared_buffers=${expected_buffer_mib}MB"
t "postgresql/config: work_mem 256MB" config_has "$systems/postgresql/config" "work_mem=256MB"
t "mariadb/config: innodb_buffer_pool_size = 25 % of RAM" \
  config_has "$systems/mariadb/config" "innodb_buffer_pool_size=$(( expected_buffer_mib * 1024 * 1024 ))"
t "mariadb/config: innodb_log_file_size 256M" config_has "$systems/mariadb/config" "innodb_log_file_size=268435456"

# ---- oltp study ---------------------------------------------------------------------------
for s in postgresql mariadb; do
  t "oltp/prepare $s" "$study/prepare" "$s"
done

sysbench_plausible() {
  local dir="$1" tps
  tps="$(sed -n 's/^ *transactions: *[0-9]* *(\([0-9.]*\) per sec.)/\1/p' "$dir/stdout.txt")"
  awk -v x="$tps" 'BEGIN { exit !(x > 0) }' || { echo "no positive tps: '$tps'"; cat "$dir/stdout.txt"; return 1; }
  grep -q '95th percentile: *[0-9.]*[1-9]' "$dir/stdout.txt" || { echo "no 95th percentile"; return 1; }
  grep -q '^Latency histogram' "$dir/stdout.txt" || { echo "no histogram"; return 1; }
  grep -Eq '^\[ [0-9]+s \] thds: 2 tps: [0-9.]+ qps: ' "$dir/stdout.txt" || { echo "no per-interval line"; return 1; }
  # The warm-up is one run stopped once steady (lib/steady.sh): its per-window reports, no final summary.
  grep -Eq '^\[ [0-9]+s \] thds: 2 tps: [0-9.]+ ' "$dir/warmup.txt" || { echo "no warm-up report"; return 1; }
  python3 -c 'import json, sys; w = json.load(open(sys.argv[1])); sys.exit(0 if w["mode"] == "steady" and w["window_rates"] else 1)' \
    "$dir/warmup.json" || { echo "no steady-state warmup.json"; return 1; }
}
pgbench_plausible() {
  local dir="$1" tps lines
  tps="$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$dir/stdout.txt")"
  awk -v x="$tps" 'BEGIN { exit !(x > 0) }' || { echo "no positive tps: '$tps'"; cat "$dir/stdout.txt"; return 1; }
  grep -Eq '^progress: [0-9.]+ s, [0-9.]+ tps, lat [0-9.]+ ms' "$dir/stdout.txt" || { echo "no progress line"; return 1; }
  grep -q '^statement latencies in milliseconds' "$dir/stdout.txt" || { echo "no -r statement latencies"; return 1; }
  lines="$(cat "$dir"/pgbench_log.* | awk 'NF >= 6 && $3 ~ /^[0-9]+$/ { n++ } END { print n + 0 }')"
  (( lines > 0 )) || { echo "no per-transaction log lines in $dir"; ls "$dir"; return 1; }
  [[ "$(cat "$dir/pgbench_log_sampling_rate.txt")" == 1 ]] || { echo "sampling rate not 1 at this size"; return 1; }
}
row_count() {
  case "$1" in
    postgresql) PGPASSWORD=bench "$("$systems/postgresql/env" | sed -n 's/^PG_BIN=//p')/psql" -X -At \
                  -h 127.0.0.1 -p "$SAMEBOX_PG_PORT" -U bench -d sbtest -c 'SELECT count(*) FROM sbtest1' ;;
    mariadb) mariadb --no-defaults --protocol=TCP -h 127.0.0.1 -P "$SAMEBOX_MARIADB_PORT" -ubench -pbench \
                  -N -B sbtest -e 'SELECT count(*) FROM sbtest1' ;;
  esac
}
count_is() { local n; n="$(row_count "$1" 2>&1)"; [[ "$n" == "$2" ]] || { echo "sbtest1 has '$n' rows, want $2"; return 1; }; }
# run_cell DIR COMMAND...: the command's stdout and stderr into DIR; on failure its exit code, the
# tail of its stderr and of the warm-up output, so a failed cell says why in the suite's log.
run_cell() {
  local dir="$1" rc=0
  shift
  "$@" > "$dir/stdout.txt" 2> "$dir/stderr.txt" || rc=$?
  (( rc == 0 )) && return 0
  echo "exit $rc; stderr:"; tail -n 8 "$dir/stderr.txt"
  [[ ! -s "$dir/warmup.txt" ]] || { echo "warmup.txt:"; tail -n 5 "$dir/warmup.txt"; }
  return "$rc"
}
export systems
export -f row_count count_is pgbench_plausible run_cell
expect_skip() { local rc=0; "$study/run" "$@" >/dev/null 2>&1 || rc=$?; [[ $rc -eq 3 ]] || { echo "exit $rc"; return 1; }; }

for wl_json in "$study"/workloads/*.json; do
  workload="$(basename "$wl_json" .json)"
  tool="$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["tool"])' "$wl_json")"
  for s in postgresql mariadb; do
    if ! python3 -c 'import json, sys; w, s = (json.load(open(p)) for p in sys.argv[1:3]); sys.exit(0 if set(w.get("requires", [])) <= set(s["capabilities"]) else 1)' \
         "$wl_json" "$systems/$s/system.json"; then
      t "oltp/run $s $workload exits 3 ($s lacks a capability it requires)" expect_skip "$s" "$workload"
      continue
    fi
    dir="$cells/$s.$workload"
    mkdir -p "$dir"
    t "oltp/run $s $workload" env CELL_DIR="$dir" bash -c 'run_cell "$1" "${@:2}"' _ "$dir" "$study/run" "$s" "$workload"
    t "  $s $workload output is plausible" "${tool}_plausible" "$dir"
    if [[ "$workload" == oltp_insert ]]; then
      t "  $s oltp_insert left the tables at $SB_TABLE_SIZE rows" count_is "$s" "$SB_TABLE_SIZE"
    fi
  done
done

# WARMUP=0 WARMUP_MAX=0: no warm-up run (the steady-state warm-up off), no warmup.txt; pgbench then logs every transaction.
dir="$cells/postgresql.pgbench_select_only.nowarm"
mkdir -p "$dir"
t "oltp/run postgresql pgbench_select_only with WARMUP=0 WARMUP_MAX=0" env CELL_DIR="$dir" WARMUP=0 WARMUP_MAX=0 \
  bash -c 'run_cell "$1" "$2" postgresql pgbench_select_only' _ "$dir" "$study/run"
t "  no warm-up: plausible, no warm-up output (warmup.txt empty, no warmup.json)" bash -c 'pgbench_plausible "$1" && [[ ! -s "$1/warmup.txt" && ! -e "$1/warmup.json" ]]' _ "$dir"
t "  measured-window markers written" bash -c '[[ -f "$1/.measure-start" && -f "$1/.measure-end" ]]' _ "$dir"

# Bad input: a clear one-line error naming the variable and what is valid, never exit 3.
bad_input() {
  local expect="$1" out rc=0
  shift
  out="$(env "$@" 2>&1 >/dev/null)" || rc=$?
  [[ $rc -ne 0 && $rc -ne 3 && "$out" == *"$expect"* ]] || { echo "exit $rc: $out"; return 1; }
}
t "run with THREADS=abc fails naming THREADS" bad_input "THREADS='abc' is not a whole number" THREADS=abc "$study/run" postgresql oltp_read_only
t "run with an unknown workload lists the valid ones" bad_input "valid: oltp_insert,oltp_read_only" "$study/run" postgresql nosuch
t "run with an unknown system lists the valid ones" bad_input "unknown system 'oracle' (valid for oltp: mariadb,mysql,postgresql)" "$study/run" oracle oltp_read_only
t "run on a system without the study's capability exits 3 naming it" bash -c 'out="$("$1/run" sqlite oltp_read_only 2>/dev/null)"; rc=$?; [[ $rc -eq 3 && "$out" == *"lacks capability '"'"'sysbench'"'"'"* ]] || { echo "exit $rc: $out"; exit 1; }' _ "$study"
t "oltp/run wrote command.txt without the password" bash -c 'f="$1/postgresql.oltp_read_only/command.txt"; grep -q "^sysbench oltp_read_only .*--pgsql-password=\$DB_PASSWORD" "$f" && grep -q "^# measured run" "$f" && ! grep -q "password=bench" "$f" || { cat "$f"; exit 1; }' _ "$cells"
t "SAMEBOX_PG_PORT=80 is refused" bad_input "not a usable TCP port" SAMEBOX_PG_PORT=80 "$systems/postgresql/env"

for s in postgresql mariadb; do
  t "oltp/cleanup $s" "$study/cleanup" "$s"
  t "  $s: sbtest1 is gone" bash -c '! "$@"' _ count_is "$s" "$SB_TABLE_SIZE"
done

# ---- a copy of the postgresql folder is a second system ------------------------------
# A private bench-scripts tree (copies of lib/, studies/oltp/, systems/postgresql/) with the folder
# copied to a new name whose system.json has another port and nothing else edited: it runs beside
# the original (own state dir, own port; SAMEBOX_PG_PORT stays the original's) and runs oltp.
copy_port="${SAMEBOX_TEST_PGCOPY_PORT:-54349}"
copy_tree="$SAMEBOX_STATE/copy-tree/bench-scripts"
mkdir -p "$copy_tree/systems" "$copy_tree/studies"
cp -r "$repo/bench-scripts/lib" "$copy_tree/lib"
cp -r "$study" "$copy_tree/studies/oltp"
cp -r "$systems/postgresql" "$copy_tree/systems/pgcopy"
python3 - "$copy_tree/systems/pgcopy/system.json" "$copy_port" <<'PY'
import json, sys
p = sys.argv[1]
d = json.load(open(p))
d["name"], d["port"] = "pgcopy", int(sys.argv[2])
json.dump(d, open(p, "w"), indent=2)
PY
copy="$copy_tree/systems/pgcopy"
copy_study="$copy_tree/studies/oltp"
t "copy pgcopy/start beside the original" "$copy/start"
t "  pgcopy/env: port $copy_port (system.json), socket under \$SAMEBOX_STATE/pgcopy" bash -c \
  'out="$("$1")"; grep -qx "DB_PORT=$2" <<< "$out" && grep -qx "DB_SOCKET=$3/pgcopy/run" <<< "$out" || { echo "$out"; exit 1; }' \
  _ "$copy/env" "$copy_port" "$SAMEBOX_STATE"
t "  pgcopy listens on 127.0.0.1:$copy_port only" only_loopback "$copy_port"
t "  the original still answers on ${port[postgresql]}" "$systems/postgresql/check"
t "  pgcopy has its own data dir" bash -c '[[ -f "$1/pgcopy/data/PG_VERSION" && -f "$1/postgresql/data/PG_VERSION" ]]' _ "$SAMEBOX_STATE"
t "  oltp/prepare pgcopy" "$copy_study/prepare" pgcopy
for workload in oltp_read_only pgbench_select_only; do
  dir="$cells/pgcopy.$workload"
  mkdir -p "$dir"
  t "  oltp/run pgcopy $workload" env CELL_DIR="$dir" bash -c 'run_cell "$1" "$2" pgcopy "$3"' _ "$dir" "$copy_study/run" "$workload"
done
t "  pgcopy oltp_read_only output is plausible" sysbench_plausible "$cells/pgcopy.oltp_read_only"
t "  pgcopy pgbench_select_only output is plausible" pgbench_plausible "$cells/pgcopy.pgbench_select_only"
t "  oltp/cleanup pgcopy" "$copy_study/cleanup" pgcopy
t "  pgcopy/stop" "$copy/stop"
t "  nothing listens on $copy_port" nothing_listens "$copy_port"
t "  the original still answers after the copy stopped" "$systems/postgresql/check"

# ---- stop ---------------------------------------------------------------------------------
for s in postgresql mariadb; do
  pids="$("$systems/$s/pids")"
  t "$s/stop" "$systems/$s/stop"
  # exited: gone, or a zombie PID 1 has not reaped yet (pid_alive; it holds no port, no file, no memory)
  t "  $s: server process gone" bash -c '. bench-scripts/lib/common.sh; for p in $1; do ! pid_alive "$p" || exit 1; done' _ "$pids"
  t "  $s: nothing listens on ${port[$s]}" nothing_listens "${port[$s]}"
  t "  $s/stop again exits 0" "$systems/$s/stop"
  t "  $s/check now fails" bash -c '! "$1"' _ "$systems/$s/check"
  t "  $s/pids now prints nothing" bash -c '[[ -z "$("$1")" ]]' _ "$systems/$s/pids"
done
t "oltp/run against a stopped server fails (not skipped)" bad_input "run systems/mariadb/start first" \
  "$study/run" mariadb oltp_read_only

# ---- embedded -----------------------------------------------------------------------------
for s in sqlite duckdb; do
  t "$s/start" "$systems/$s/start"
  t "$s/check" "$systems/$s/check"
  t "$s/version is X.Y.Z" version_ok "$systems/$s/version"
  t "$s/env has DB_PATH" bash -c '[[ "$("$1")" == *"DB_PATH=/"* ]]' _ "$systems/$s/env"
  t "$s/pids prints nothing" bash -c '[[ -z "$("$1")" ]]' _ "$systems/$s/pids"
  t "$s/stop" "$systems/$s/stop"
done

finish
