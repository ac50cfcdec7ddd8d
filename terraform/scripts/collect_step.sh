#!/usr/bin/env bash
# The bench workflow's collect step for one box: wait for its done marker (returns at once when
# the box already finished or is gone), then download what it uploaded, incrementally or at the
# end, into collected/<run-id>/{run/,logs/,done.json}. A box that died still gives every cell its
# periodic sync sent. Outputs has_run_folder=true|false.
#   env: RUN_ID RESULTS_PREFIX INSTANCE_IDS MAX_MINUTES AWS_REGION [GITHUB_OUTPUT]
#   SAMEBOX_S3_CMD replaces `aws s3` (tests), SAMEBOX_WAIT_ARGS adds wait_for_done arguments.
set -uo pipefail
out=${GITHUB_OUTPUT:-/dev/null}
s3() { if [[ -n "${SAMEBOX_S3_CMD:-}" ]]; then $SAMEBOX_S3_CMD "$@"; else aws s3 "$@"; fi; }
dest="collected/$RUN_ID"
mkdir -p "$dest/logs"
ids=()
for id in ${INSTANCE_IDS:-}; do ids+=(--instance-id "$id"); done
code=0
# shellcheck disable=SC2086
python3 "$(dirname "$0")/wait_for_done.py" --uri "$RESULTS_PREFIX" --region "$AWS_REGION" "${ids[@]}" \
  --timeout-minutes "$(( MAX_MINUTES + 15 ))" --interval-seconds 60 --started-within-minutes 15 ${SAMEBOX_WAIT_ARGS:-} > "$dest/done.json" || code=$?
if (( code != 0 )); then
  rm -f "$dest/done.json"
  echo "::warning::$RUN_ID: no done marker (wait_for_done exit $code); downloading whatever the box synced"
fi
s3 cp --recursive --only-show-errors "${RESULTS_PREFIX}logs/" "$dest/logs/" || true
s3 cp --recursive --only-show-errors "${RESULTS_PREFIX}run/" "$dest/run/" || true
if [[ -f "$dest/run/manifest.json" ]]; then
  echo "has_run_folder=true" >> "$out"
  echo "$RUN_ID: run folder downloaded ($(find "$dest/run" -type f | wc -l) files)"
else
  echo "has_run_folder=false" >> "$out"
  echo "::warning::$RUN_ID: the box uploaded no run folder (see the run-$RUN_ID artifact's logs)"
fi
