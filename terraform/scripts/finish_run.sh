#!/usr/bin/env bash
# The collect workflow's last step for one box: store its cost in the manifest (run_cost.py prices it
# from the done marker, at the price the dispatch looked up when there is one; without one, usd null and the seconds the synced run proves; `samebox cost`
# writes it, the pipeline being manifest.json's one writer, never over a cost already there), then validate the run
# folder against the schemas. `samebox validate` wants the folder named by the run id, and the
# download is collected/<run-id>/run/, so a copy named <run-id> is validated (the folder that is
# published is the same bytes). Writes collected/<run-id>/cost.json.
#   env: RUN_ID AWS_REGION INSTANCE_TYPE [LISTED_PRICE: the dispatch's price lookup, a JSON file]   SAMEBOX_NODE replaces node_modules/.bin/node (tests)
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
dest="collected/$RUN_ID"
[[ -f "$dest/run/manifest.json" ]] || { echo "::error::$RUN_ID: no $dest/run/manifest.json to validate"; exit 2; }
listed=()
[[ -n "${LISTED_PRICE:-}" ]] && listed=(--listed-price "$LISTED_PRICE")
python3 "$repo/terraform/scripts/run_cost.py" --region "$AWS_REGION" --instance-type "$INSTANCE_TYPE" "${listed[@]}" \
  --done "$dest/done.json" --manifest "$dest/run/manifest.json" > "$dest/cost.json"
cat "$dest/cost.json"
"${SAMEBOX_NODE:-$repo/node_modules/.bin/node}" --disable-warning=ExperimentalWarning "$repo/pipeline/cli.ts" cost "$dest/run" --block "$dest/cost.json"
check=$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/samebox-validate.XXXXXX")
trap 'rm -rf "$check"' EXIT
cp -a "$dest/run" "$check/$RUN_ID"
"${SAMEBOX_NODE:-$repo/node_modules/.bin/node}" --disable-warning=ExperimentalWarning "$repo/pipeline/cli.ts" validate "$check/$RUN_ID"
