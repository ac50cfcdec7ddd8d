#!/usr/bin/env bash
# The collect workflow's job for one dispatch whose every box is final (dispatch.py tick's `ready`):
# download each launched box (collect_step.sh), store its cost and validate it (finish_run.sh), and
# write collected/matrix.json for place_runs.py, each share with its outcome ("never started",
# "gone", "expired", "launch failed", "cancelled": what a box without a done marker says in the PR).
# A run folder that fails validation is left out of the PR (its share says why), never published.
#   env: DISPATCH STATE_BUCKET AWS_REGION [GITHUB_OUTPUT: collected=true|false, profile, instance_type, publish]
#    SAMEBOX_DISPATCH_ARGS (tests: --endpoint-url), SAMEBOX_S3_CMD, SAMEBOX_NODE
set -uo pipefail
scripts=$(cd "$(dirname "$0")" && pwd)
# shellcheck disable=SC2206
extra=(${SAMEBOX_DISPATCH_ARGS:-})
mkdir -p collected
python3 "$scripts/dispatch.py" --region "$AWS_REGION" --state-bucket "$STATE_BUCKET" "${extra[@]}" show --dispatch "$DISPATCH" \
  > collected/dispatch.json || { echo "::error::$DISPATCH: cannot read the dispatch"; exit 2; }
out=${GITHUB_OUTPUT:-/dev/null}
if [[ "$(python3 -c 'import json; print(json.load(open("collected/dispatch.json")).get("closed") or "")')" != "" ]]; then
  echo "$DISPATCH: already collected (a tick before this one); nothing to do"
  echo "collected=false" >> "$out"
  exit 0
fi
export INSTANCE_TYPE LISTED_PRICE=collected/price.json
INSTANCE_TYPE=$(python3 -c 'import json; print(json.load(open("collected/dispatch.json"))["instance_type"])')
# the price looked up when the dispatch was recorded ({} for a dispatch recorded without one)
python3 -c 'import json; json.dump(json.load(open("collected/dispatch.json")).get("price") or {}, open("collected/price.json", "w"))'
python3 -c 'import json
v = json.load(open("collected/dispatch.json"))
for key in ("profile", "instance_type", "publish"):
    print(f"{key}={v[key]}")' >> "$out"
outcomes=collected/outcomes.txt
: > "$outcomes"
while IFS=$'\t' read -r run_id prefix status; do
  outcome=$status
  if [[ -n "$prefix" ]]; then
    step_out=$(mktemp)
    RUN_ID=$run_id RESULTS_PREFIX=$prefix GITHUB_OUTPUT=$step_out bash "$scripts/collect_step.sh"
    has=$(sed -n 's/^has_run_folder=//p' "$step_out"); rm -f "$step_out"
    if [[ "$has" == true ]] && ! RUN_ID=$run_id bash "$scripts/finish_run.sh"; then
      echo "::error::$run_id: the run folder does not validate; it is left out of the pull request (the artifact keeps it)"
      mv "collected/$run_id/run" "collected/$run_id/run.invalid"
      outcome="$status, invalid run folder"
    fi
  fi
  [[ "$status" == "done" ]] || echo "::warning::$run_id: $status"
  printf '%s\t%s\n' "$run_id" "$outcome" >> "$outcomes"
done < <(python3 -c 'import json
for s in json.load(open("collected/dispatch.json"))["shares"]:
    launched = s.get("launched") or {}
    print(s["run_id"], "" if launched.get("failed") else launched.get("results_prefix", ""), s["status"], sep="\t")')
python3 - "$outcomes" <<'PY'
import json, sys
outcome = dict(line.rstrip("\n").split("\t", 1) for line in open(sys.argv[1]) if line.strip())
view = json.load(open("collected/dispatch.json"))
matrix = [{k: s[k] for k in ("study", "systems", "workloads", "run_id", "max_minutes")} | {"outcome": outcome[s["run_id"]]} for s in view["shares"]]
json.dump(matrix, open("collected/matrix.json", "w"), indent=2)
print(f"{len(matrix)} shares: " + ", ".join(f"{m['run_id']} {m['outcome']}" for m in matrix))
PY
echo "collected=true" >> "$out"
