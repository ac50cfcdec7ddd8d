#!/usr/bin/env bash
# The workflows' own install, build and launch-planning steps, run on a clean clone of HEAD the way
# GitHub runs them (bash --noprofile --norc -eo pipefail; scripts read from the YAML, not copied):
#   ci:     the install step (pipeline/bin/setup node, never npm ci)
#   pages:  the build step with a project-site base path
#   bench:  input check, the estimate step (summary written; a run over budget refused before launch),
#           the fan-out matrix
#   reaper, collect: the "not configured" warning instead of a silent skip
#   bench:  one share re-run alone (the share input) and a bad share refused naming the valid ones
# Needs the pytest venv of 50-infra-lint.sh for PyYAML (built there; skipped with the reason if absent).
# Checks are functions run through t(), which shellcheck cannot follow.
# shellcheck disable=SC2317
set -uo pipefail
cd "$(dirname "$0")/../../.." || exit 1
# shellcheck source=pipeline/bin/test-lib.sh
source pipeline/bin/test-lib.sh

py=${SAMEBOX_TOOLS_DIR:-$HOME/.cache/samebox-tools}/venv-tests/bin/python
if [[ ! -x "$py" ]]; then
  echo "skip: no $py (run pipeline/bin/test.d/50-infra-lint.sh once to build it)"
  finish
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/samebox-workflow-steps.XXXXXX")
clone="$work/clone"
git clone -q --no-hardlinks "$PWD" "$clone" || { bad "clean clone of HEAD"; finish; }
ok "clean clone of $(git -C "$clone" rev-parse --short HEAD)"

step() { # <workflow> <job> <step name>: the step's run script
  "$py" terraform/tests/workflow_step.py ".github/workflows/$1" "$2" "$3"
}
run_step() { # <workflow> <job> <step name> [VAR=value...]: run it in the clone as GitHub would
  local script
  script=$(step "$1" "$2" "$3") || return 2
  shift 3
  (cd "$clone" && nice -n 5 env "$@" bash --noprofile --norc -eo pipefail -c "$script")
}

ci_install() {
  run_step ci.yml test "Install (the same install as pipeline/bin/setup everywhere)" && "$clone/node_modules/.bin/node" --version
}
t "ci: install step on a clean clone" ci_install

pages_build() {
  run_step pages.yml build Build SAMEBOX_SITE_URL=https://example.github.io SAMEBOX_BASE=/samebox/ || return 1
  [[ -f "$clone/site/dist/index.html" ]] || { echo "no site/dist/index.html"; return 1; }
  grep -q 'href="/samebox/' "$clone/site/dist/index.html" || { echo "links do not use the base path /samebox/"; return 1; }
}
t "pages: build step with a project-site base" pages_build

bench_plan() {
  local out="$work/github_output" summary="$work/summary.md"
  : > "$out"; : > "$summary"
  run_step bench.yml plan "Check the inputs against terraform/allowed.json and the profile" \
    INPUT_STUDIES=all INPUT_SYSTEMS=all INPUT_PROFILE=full INPUT_INSTANCE_TYPE=c6a.4xlarge INPUT_PUBLISH=yes GITHUB_OUTPUT="$out" || return 1
  local studies systems
  studies=$(sed -n 's/^studies=//p' "$out"); systems=$(sed -n 's/^systems=//p' "$out")
  [[ -n "$studies" && -n "$systems" ]] || { echo "no studies/systems in GITHUB_OUTPUT"; return 1; }
  run_step bench.yml plan "Estimate, and refuse a run over the budget" PROFILE=full STUDIES="$studies" SYSTEMS="$systems" \
    INSTANCE_TYPE=c6a.4xlarge BUDGET_USD=100000 AWS_REGION=us-east-1 GITHUB_STEP_SUMMARY="$summary" || { cat "$summary"; return 1; }
  grep -q '^| study | cells |' "$summary" || { echo "no estimate table in the job summary"; return 1; }
  run_step bench.yml plan "One box per study" GITHUB_OUTPUT="$out" || return 1
  local matrix
  matrix=$(sed -n 's/^matrix=//p' "$out")
  echo "$matrix" | "$py" -c '
import json, sys
entries = json.load(sys.stdin)
studies = sys.argv[1].split(",")
assert sorted({e["study"] for e in entries}) == sorted(studies), (entries, studies)
assert all(30 <= e["max_minutes"] <= 600 for e in entries), entries
print(f"{len(entries)} boxes for {len(studies)} studies")' "$studies"
}
t "bench: input check, estimate in the summary, matrix" bench_plan

bench_refuses_over_budget() {
  local summary="$work/refused.md" output
  : > "$summary"
  output=$(run_step bench.yml plan "Estimate, and refuse a run over the budget" PROFILE=ci STUDIES=oltp SYSTEMS=postgresql \
    INSTANCE_TYPE=c6a.4xlarge BUDGET_USD=0.01 AWS_REGION=us-east-1 GITHUB_STEP_SUMMARY="$summary" 2>&1) && { echo "not refused"; return 1; }
  grep -q '::error::refused: the boxes may cost up to' <<<"$output" || { echo "$output"; return 1; }
  grep -q '^\*\*Refused:\*\*' "$summary"
}
t "bench: a run over the budget is refused before launch" bench_refuses_over_budget

reaper_unconfigured() {
  local output
  output=$(run_step reaper.yml reap "Check the reaper role is configured" ROLE= REGION= GITHUB_OUTPUT="$work/reaper_out") || return 1
  grep -q '::warning::reaper not configured' <<<"$output" && grep -q 'configured=false' "$work/reaper_out"
}
t "reaper: says when it is not configured" reaper_unconfigured

bench_share_alone() { # the real plan steps with share=<study>-2of<n>: one box, that share's workloads
  local out="$work/share_output" summary="$work/share_summary.md" share matrix bad
  : > "$out"; : > "$summary"
  run_step bench.yml plan "Estimate, and refuse a run over the budget" PROFILE=full STUDIES=analytical SYSTEMS=postgresql,duckdb \
    INSTANCE_TYPE=c6a.4xlarge BUDGET_USD=100000 AWS_REGION=us-east-1 GITHUB_STEP_SUMMARY="$summary" || return 1
  run_step bench.yml plan "One box per study" GITHUB_OUTPUT="$out" 2>/dev/null || return 1
  share=$(sed -n 's/^matrix=//p' "$out" | "$py" -c 'import json, sys; e = json.load(sys.stdin)[1]; print(e["run_id"].split("-analytical-")[1] and "analytical-" + e["run_id"].split("-analytical-")[1])')
  : > "$out"
  run_step bench.yml plan "One box per study" SHARE="$share" GITHUB_OUTPUT="$out" 2>/dev/null || return 1
  matrix=$(sed -n 's/^matrix=//p' "$out")
  echo "$matrix" | "$py" -c '
import json, sys
entries = json.load(sys.stdin)
assert len(entries) == 1 and entries[0]["run_id"].endswith("-" + sys.argv[1]) and entries[0]["workloads"], entries
print("one share:", entries[0]["run_id"], entries[0]["workloads"])' "$share"
  bad=$(run_step bench.yml plan "One box per study" SHARE=nosuch GITHUB_OUTPUT="$work/bad_out" 2>&1) && { echo "share nosuch not refused"; return 1; }
  grep -q "share 'nosuch' is not one of this plan's: analytical-1of" <<<"$bad" || { echo "$bad"; return 1; }
}
t "bench: one share re-run alone (share input), a bad share named" bench_share_alone

collect_unconfigured() {
  local output
  output=$(run_step collect.yml tick "Check the repository is configured" BENCH_ROLE= AWS_REGION= STATE_BUCKET= \
    GITHUB_OUTPUT="$work/collect_out") || return 1
  grep -q '::warning::collect not configured' <<<"$output" && grep -q 'ok=false' "$work/collect_out"
}
t "collect: says when it is not configured" collect_unconfigured

rm -rf "$work"
finish
