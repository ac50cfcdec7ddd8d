#!/usr/bin/env bash
# Suite: adding a study is copying one folder, as 55 proves it for a system. In a private
# copy of bench-scripts/ and of the profiles, the oltp study folder is copied under a new name; inside
# the copy only study.json's name and title change, and outside it only the ci profile gains an entry
# for it (checked file by file: the count is the README's). Then the real CLI plans it (the same cells
# as oltp, under the new name), `samebox publish` publishes it from records made for it (a committed
# oltp run of data/runs/, its cells and records renamed to the copy, into a private data dir) and the
# site builds its pages from the published files alone: the copied folder is deleted before the build,
# and the repository's bench-scripts/ has no such study, so every fact the pages show of it (title,
# seed attribution, claims, headline metric, presets) came through publish.
# Last line: "P passed, F failed".
# shellcheck disable=SC2317  # helpers are called through t()
set -uo pipefail
cd "$(dirname "$0")/../../.." || exit 2
repo="$(pwd)"
# shellcheck source=SCRIPTDIR/../test-lib.sh
. "$repo/pipeline/bin/test-lib.sh"
node=("$repo/node_modules/.bin/node" --disable-warning=ExperimentalWarning)
orig=oltp
copy=oltp-copy
title="OLTP, copied as a new study"
tmp="$(mktemp -d /tmp/samebox-copy-study.XXXXXX)"
trap 'rm -rf "$tmp"' EXIT
bench="$tmp/bench-scripts" profiles="$tmp/profiles"
export SAMEBOX_BENCH_SCRIPTS="$bench" SAMEBOX_PROFILES_DIR="$profiles" SAMEBOX_DATA_DIR="$tmp/data" \
  SAMEBOX_SITE_DIR="$tmp/site" SAMEBOX_STATE="$tmp/state" SAMEBOX_BASE=/ SAMEBOX_OUT_DIR="$tmp/dist"
mkdir -p "$SAMEBOX_DATA_DIR/runs"

# ---- the copy: one folder, and one profile entry ---------------------------------------------------
cp -a "$repo/bench-scripts" "$bench"
cp -a "$repo/pipeline/profiles" "$profiles"
listing() { (cd "$tmp" && find bench-scripts profiles -type f ! -path '*/loadgen/*/bin/*' -print0 | LC_ALL=C sort -z | xargs -0 sha256sum); }
listing > "$tmp/before.txt"
cp -a "$bench/studies/$orig" "$bench/studies/$copy"
python3 - "$bench/studies/$copy/study.json" "$profiles/ci.json" "$orig" "$copy" "$title" <<'PY'
import json, sys
study, ci, orig, copy, title = sys.argv[1:]
d = json.load(open(study)); d.update(name=copy, title=title)
open(study, "w").write(json.dumps(d, indent=2, ensure_ascii=False) + "\n")
p = json.load(open(ci)); p["studies"][copy] = p["studies"][orig]
open(ci, "w").write(json.dumps(p, indent=2, ensure_ascii=False) + "\n")
PY
listing > "$tmp/after.txt"
outside="$(diff "$tmp/before.txt" "$tmp/after.txt" | grep '^[<>]' | grep -v "^> [0-9a-f]*  bench-scripts/studies/$copy/" | sed 's/^[<>] [0-9a-f]*  //' | sort -u)"
n_outside="$(printf '%s' "$outside" | grep -c . || true)"
echo "     files outside studies/$copy changed: $n_outside (${outside//$'\n'/, })"
t "outside the copied folder only the ci profile changed" test "$outside" = "profiles/ci.json"
# README: "Adding a study" states the count ("... files outside the folder: N ...").
readme_count="$(grep -o 'files outside the folder: [0-9]*' "$repo/README.md" | head -n 1 | grep -o '[0-9]*$')"
t "README's adding-a-study count of files outside the folder ($readme_count) is the copy's real count ($n_outside)" test "${readme_count:-none}" = "$n_outside"

# ---- the plan: oltp's cells under the new name ---------------------------------------------------
cells_of() { "${node[@]}" "$repo/pipeline/cli.ts" run --profile ci --studies "$1" --dry-run 2>&1 | grep -E "^$1\." | sed "s/^$1\./STUDY./" | sort; }
cells_of "$copy" > "$tmp/copy-cells.txt"
cells_of "$orig" > "$tmp/orig-cells.txt"
t "samebox plans the copy: oltp's cells under its name ($(wc -l < "$tmp/copy-cells.txt") cells)" \
  bash -c "[[ -s '$tmp/copy-cells.txt' ]] && diff '$tmp/orig-cells.txt' '$tmp/copy-cells.txt'"

# ---- records made for it: the newest committed oltp run, renamed to the copy ----------------------
run_id="20260101T000000Z-copy-a-study"
t "a run of the copy made from a committed oltp run (records renamed, nothing else)" \
  python3 - "$repo/data/runs" "$SAMEBOX_DATA_DIR/runs/$run_id" "$orig" "$copy" <<'PY'
import json, os, sys
runs, out, orig, copy = sys.argv[1:]
def has_oltp(d):
    m = json.load(open(os.path.join(runs, d, "manifest.json")))
    return m if any(c["study"] == orig and c["status"] == "ok" for c in m["cells"]) and os.path.exists(os.path.join(runs, d, "records.jsonl")) else None
src = next(d for d in sorted(os.listdir(runs), reverse=True) if has_oltp(d))
m = has_oltp(src); run_id = os.path.basename(out)
ren = lambda s: copy + s[len(orig):] if s.startswith(orig + ".") else s
cells = [dict(c, study=copy, id=ren(c["id"]), log=c["log"].replace(f"cells/{orig}.", f"cells/{copy}.")) for c in m["cells"] if c["study"] == orig]
for key in ("study_installs", "sequential"):
    if isinstance(m.get(key), dict) and orig in m[key]: m[key] = {copy: m[key][orig]}
m["config"]["studies"] = {copy: m["config"]["studies"][orig]}
m["order"]["visits"] = [dict(v, study=copy) for v in m["order"].get("visits", []) if v["study"] == orig]
summary = {k: 0 for k in m["summary"]}
for c in cells: summary[c["status"]] = summary.get(c["status"], 0) + 1
m.update(run_id=run_id, studies=[copy], cells=cells, summary=summary, status="complete")
os.makedirs(out)
json.dump(m, open(os.path.join(out, "manifest.json"), "w"), indent=1)
with open(os.path.join(runs, src, "records.jsonl")) as f, open(os.path.join(out, "records.jsonl"), "w") as g:
    for line in f:
        r = json.loads(line)
        if r["study"] == orig: g.write(json.dumps(dict(r, study=copy, run_id=run_id)) + "\n")
print(f"from {src}: {len(cells)} cells")
PY

# ---- publish, then the site from the published files only -----------------------------------------
t "samebox publish publishes the copy" "${node[@]}" "$repo/pipeline/cli.ts" publish
t "studies.json carries the copy's title, seed attribution, claims, headline metric and presets" \
  python3 - "$SAMEBOX_SITE_DIR/src/generated/studies.json" "$copy" "$title" <<'PY'
import json, sys
f, copy, title = sys.argv[1:]
s = next(x for x in json.load(open(f))["studies"] if x["name"] == copy)
assert s["title"] == title, s["title"]
assert s["seed_attribution"]["source"], "no seed attribution"
assert s["claims"]["claims"], "no claims"
assert s["headline_metrics"] == {"select_random_points": "qps"}, s.get("headline_metrics")
assert [p["id"] for p in s["explore_presets"]] == [f"{copy}-latency", f"{copy}-series"], s["explore_presets"]
assert all(p["sql"].startswith("SELECT") for p in s["explore_presets"])
PY
rm -rf "$bench"   # the site may not read the copied folder: it is gone
echo "--- copy-a-study: astro build"
if timeout 900 "${node[@]}" node_modules/astro/bin/astro.mjs build > "$tmp/build.log" 2>&1; then ok "the site builds with the copy's folder gone"; else bad "the site builds with the copy's folder gone"; tail -n 20 "$tmp/build.log" | sed 's/^/     | /'; fi
attribution="$(python3 -c "import json,sys,html; print(html.escape(json.load(open('$repo/bench-scripts/studies/$orig/study.json'))['seed_attribution']['source'], quote=False))")"
page="$SAMEBOX_OUT_DIR/studies/$copy/index.html"
t "/studies/$copy/ exists with the copy's title and its seed attribution" \
  bash -c "grep -qF '$title' '$page' && grep -qF '$attribution' '$page'"
claim="$(python3 -c "import json; print(json.load(open('$repo/bench-scripts/studies/$orig/claims.json'))['claims'][0]['id'])")"
t "/reproduce/$copy/ exists and judges the copy's claims (claim $claim)" \
  grep -qF "data-claim=\"$claim\"" "$SAMEBOX_OUT_DIR/reproduce/$copy/index.html"
t "/board/$copy/ exists" test -s "$SAMEBOX_OUT_DIR/board/$copy/index.html"
t "Explore offers the copy's presets" grep -qF "value=\"$copy-latency\"" "$SAMEBOX_OUT_DIR/explore/index.html"
t "no site source reads bench-scripts/ (only src/generated and public/data)" \
  bash -c "! grep -rnE \"(['\\\"])bench-scripts\\1|join\\([^)]*bench-scripts\" '$repo/site/src' '$repo/astro.config.mjs'"
finish
