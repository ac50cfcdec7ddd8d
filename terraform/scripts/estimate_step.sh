#!/usr/bin/env bash
# The bench workflow's estimate step (also run by pipeline/bin/test.d/51-workflow-steps.sh on a
# clean clone): prints the per-study estimate into the job summary, keeps it as estimate.json for
# the matrix, and fails the job, before anything is launched, when a study cannot fit one box or
# the boxes could cost more than the budget.
#   env: PROFILE STUDIES SYSTEMS INSTANCE_TYPE BUDGET_USD AWS_REGION [GITHUB_STEP_SUMMARY]
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
summary=${GITHUB_STEP_SUMMARY:-/dev/stdout}
if ! [[ "${BUDGET_USD:-}" =~ ^[0-9]+(\.[0-9]+)?$ ]] || [[ "$BUDGET_USD" =~ ^0+(\.0+)?$ ]]; then
  echo "::error::budget_usd '${BUDGET_USD:-}' is not a positive number of dollars, e.g. 15 or 12.50"
  exit 2
fi
samebox() { node_modules/.bin/node --disable-warning=ExperimentalWarning pipeline/cli.ts "$@"; }
args=(--profile "$PROFILE" --studies "$STUDIES" --systems "$SYSTEMS" --instance-type "$INSTANCE_TYPE" --region "$AWS_REGION")
samebox estimate "${args[@]}" --json > estimate.json || { echo "::error::the estimate failed (see above)"; exit 1; }
{
  echo "## Estimate before launch"
  echo
  samebox estimate "${args[@]}"
  echo
  echo "Budget: \$$BUDGET_USD for the sum of every box's hard limit."
} >> "$summary" || true
err=$(mktemp)
if ! samebox estimate "${args[@]}" --budget-usd "$BUDGET_USD" >/dev/null 2>"$err"; then
  echo "::error::$(tail -n 1 "$err" | sed 's/^samebox: //') — nothing was launched"
  echo "**Refused:** $(tail -n 1 "$err" | sed 's/^samebox: //')" >> "$summary"
  exit 1
fi
echo "estimate within budget: $(python3 -c 'import json; e=json.load(open("estimate.json")); print(e["total"])')"
