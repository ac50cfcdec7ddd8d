#!/usr/bin/env bash
# Suite: adding a system is copying one folder. In a private copy of bench-scripts/ the
# postgresql folder is copied under a new name; only the copy's system.json changes (name, label and
# another port). Nothing else in the tree is edited (checked file by file). A private profile takes the
# ci profile of every study whose needs the copy meets (asked of the catalog: capabilities and
# dialect) with the copy as its only system, and the real CLI runs it against a real PostgreSQL
# cluster in a private state dir. Then: the copy plans exactly the cells postgresql plans, every cell
# is ok or skipped only for a reason no install can fix (the same ones postgresql has), the server
# really listened on the copy's port with its own data dir, and the README's "adding a system" file
# count is the copy's real file count.
# Last line: "P passed, F failed".
# shellcheck disable=SC2317  # helpers are called through t()
set -uo pipefail
cd "$(dirname "$0")/../../.." || exit 2
repo="$(pwd)"
# shellcheck source=SCRIPTDIR/../test-lib.sh
. "$repo/pipeline/bin/test-lib.sh"
if [[ "$(id -u)" -ne 0 ]]; then
  bad "must run as root (the system verbs install packages and run servers)"
  finish
fi
export PATH="$PATH:/usr/local/go/bin"
node=("$repo/node_modules/.bin/node" --disable-warning=ExperimentalWarning)
copy=pgcopy
copy_port="${SAMEBOX_COPY_TEST_PORT:-54393}"
tmp="$(mktemp -d /tmp/samebox-copy-test.XXXXXX)"
chmod 0755 "$tmp"   # the postgres user must reach its data dir below it
bench="$tmp/bench-scripts"
# The copy's own port comes from its system.json: no port override may leak in from the caller.
unset SAMEBOX_PG_PORT SAMEBOX_MARIADB_PORT
export SAMEBOX_STATE="$tmp/state" SAMEBOX_BENCH_SCRIPTS="$bench" SAMEBOX_DATA_DIR="$tmp/data"
mkdir -p "$SAMEBOX_DATA_DIR/runs"
cleanup() {
  [[ -x "$bench/systems/$copy/stop" ]] && "$bench/systems/$copy/stop" >/dev/null 2>&1
  rm -rf "$tmp"
}
trap cleanup EXIT

# ---- the copy: one folder, one file edited inside it ---------------------------------------------
# cp -a keeps the load generators already built in loadgen/*/bin (gitignored), so nothing rebuilds.
cp -a "$repo/bench-scripts" "$bench"
# beside it what the checkout has next to bench-scripts/ (the verbs find Node 24 as ../node_modules/.bin/node)
ln -s "$repo/node_modules" "$tmp/node_modules"
listing() { (cd "$bench" && find . -type f ! -path './loadgen/*/bin/*' -print0 | LC_ALL=C sort -z | xargs -0 sha256sum); }
listing > "$tmp/before.txt"
cp -a "$bench/systems/postgresql" "$bench/systems/$copy"
python3 - "$bench/systems/postgresql/system.json" "$bench/systems/$copy/system.json" "$copy" "$copy_port" <<'PY'
import json, sys
src, dst, name, port = sys.argv[1:]
d = json.load(open(src))
d.update(name=name, label="PostgreSQL (a copy on another port)", port=int(port))
open(dst, "w").write(json.dumps(d, indent=2, ensure_ascii=False) + "\n")
PY
listing > "$tmp/after.txt"
changed="$(diff "$tmp/before.txt" "$tmp/after.txt" | grep '^[<>]' | grep -v "^> [0-9a-f]*  ./systems/$copy/" || true)"
t "no file outside systems/$copy changed (the copy needs no other edit)" test -z "$changed"
copy_files="$(find "$bench/systems/$copy" -type f | wc -l)"
t "the copy is one folder of $copy_files files" test "$copy_files" -gt 3
# README: "Adding a system" states the count ("... one folder (N files) ...").
readme_count="$(grep -o 'one folder ([0-9]* files)' "$repo/README.md" | head -n 1 | grep -o '[0-9]*')"
t "README's adding-a-system file count ($readme_count) is the copy's real count ($copy_files)" test "${readme_count:-none}" = "$copy_files"

# ---- the private profile: the ci settings of every study the copy can run --------------------------
cat > "$tmp/make-profile.ts" <<'TS'
import { readFileSync, writeFileSync } from "node:fs";
const [repo, copy, out] = process.argv.slice(2);
const { loadStudy, loadSystem, studyMismatch } = await import(`${repo}/pipeline/lib/catalog.ts`);
const ci = JSON.parse(readFileSync(`${repo}/pipeline/profiles/ci.json`, "utf8"));
const sys = loadSystem(copy);
const studies: Record<string, unknown> = {};
for (const [name, sp] of Object.entries(ci.studies as Record<string, Record<string, unknown>>)) {
  if (studyMismatch(sys, loadStudy(name)) === null) studies[name] = { ...sp, systems: [copy] };
}
writeFileSync(out, JSON.stringify({ name: "copy-ci", description: `ci profile of every study ${copy} can run`, repetitions: 1, studies }, null, 1));
process.stdout.write(Object.keys(studies).join(",") + "\n");
TS
studies="$("${node[@]}" "$tmp/make-profile.ts" "$repo" "$copy" "$tmp/copy-ci.json")"
t "the copy qualifies for oltp, analytical, mcp-db and payments by its capabilities (got: $studies)" \
  bash -c "[[ ',$studies,' == *,oltp,* && ',$studies,' == *,analytical,* && ',$studies,' == *,mcp-db,* && ',$studies,' == *,payments,* ]]"

# the same plan as postgresql's (dry runs of the same profile with the original in the copy's place)
sed "s/\"$copy\"/\"postgresql\"/g" "$tmp/copy-ci.json" > "$tmp/orig-ci.json"
cells_of() { "${node[@]}" "$repo/pipeline/cli.ts" run --profile "$1" --dry-run 2>&1 | grep -E '^[a-z-]+\.[a-z0-9_]+\.' | sed "s/\.$2\./.SYS./" | sort; }
cells_of "$tmp/copy-ci.json" "$copy" > "$tmp/copy-cells.txt"
cells_of "$tmp/orig-ci.json" postgresql > "$tmp/orig-cells.txt"
t "the copy plans exactly postgresql's cells ($(wc -l < "$tmp/copy-cells.txt") cells)" \
  bash -c "[[ -s '$tmp/copy-cells.txt' ]] && diff '$tmp/orig-cells.txt' '$tmp/copy-cells.txt'"

# ---- the run ---------------------------------------------------------------------------------------
run_id="20260101T000000Z-copy-a-system"
start=$SECONDS
"${node[@]}" "$repo/pipeline/cli.ts" run --profile "$tmp/copy-ci.json" --run-id "$run_id" > "$tmp/run.out" 2> "$tmp/run.err"
rc=$?
echo "     copy-ci run: exit $rc in $(( SECONDS - start )) s: $(tail -n 1 "$tmp/run.out")"
manifest="$SAMEBOX_DATA_DIR/runs/$run_id/manifest.json"
t "the run completed (exit 0)" bash -c "[[ $rc == 0 ]] || { tail -n 20 '$tmp/run.out' '$tmp/run.err'; exit 1; }"
cat > "$tmp/check.py" <<'PY'
import json, sys
m = json.load(open(sys.argv[1])); what = sys.argv[2]; copy = sys.argv[3]
if what == "outcomes":   # ok, or skipped for a reason no install here fixes
    bad = [f"{c['id']} {c['status']} {c['reason']}" for c in m["cells"] if c["status"] != "ok"
           and not (c["status"] == "skipped" and ("pgvector" in c["reason"] or c["reason"].startswith("unsupported: ")))]
    print("\n".join(bad)); sys.exit(1 if bad else 0)
if what == "ok-count":
    n = sum(c["status"] == "ok" for c in m["cells"]); print(n); sys.exit(0 if n >= 20 else 1)
if what == "port":
    port = m["systems"][copy]["config"].get("port"); print(port); sys.exit(0 if port == sys.argv[4] else 1)
sys.exit(f"unknown check {what}")
PY
t "every cell is ok, or skipped for a reason no install here fixes (cloud-only extension, capability the engine lacks)" \
  python3 "$tmp/check.py" "$manifest" outcomes "$copy"
t "most cells measured (ok >= 20)" python3 "$tmp/check.py" "$manifest" ok-count "$copy"
t "the server ran on the copy's port ($copy_port)" python3 "$tmp/check.py" "$manifest" port "$copy" "$copy_port"
t "the copy kept its data in its own state dir ($copy, not postgresql)" \
  bash -c "[[ -d '$SAMEBOX_STATE/$copy' && ! -e '$SAMEBOX_STATE/postgresql' ]]"
t "records name the copy" bash -c "grep -q '\"system\":\"$copy\"' '$SAMEBOX_DATA_DIR/runs/$run_id/records.jsonl'"
finish
