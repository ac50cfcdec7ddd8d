#!/usr/bin/env bash
# The collect workflow's download of one box, once it is final: what it uploaded, incrementally or
# at the end, into collected/<run-id>/{run/,logs/,done.json}. A box that died still gives every cell its
# periodic sync sent. Outputs has_run_folder=true|false.
#   env: RUN_ID RESULTS_PREFIX [GITHUB_OUTPUT]   SAMEBOX_S3_CMD replaces `aws s3` (tests).
set -uo pipefail
out=${GITHUB_OUTPUT:-/dev/null}
s3() { if [[ -n "${SAMEBOX_S3_CMD:-}" ]]; then $SAMEBOX_S3_CMD "$@"; else aws s3 "$@"; fi; }
dest="collected/$RUN_ID"
mkdir -p "$dest/logs"
# No wait: the collect workflow's tick already found the box final (done marker, gone, never
# started or expired). The marker is copied when there is one.
if ! s3 cp --only-show-errors "${RESULTS_PREFIX}done.json" "$dest/done.json" 2>/dev/null; then
  rm -f "$dest/done.json"
  echo "::warning::$RUN_ID: no done marker; downloading whatever the box synced"
fi
s3 cp --recursive --only-show-errors "${RESULTS_PREFIX}logs/" "$dest/logs/" || true
s3 cp --recursive --only-show-errors "${RESULTS_PREFIX}run/" "$dest/run/" || true
if [[ -f "$dest/run/manifest.json" ]]; then
  echo "has_run_folder=true" >> "$out"
  echo "$RUN_ID: run folder downloaded ($(find "$dest/run" -type f | wc -l) files)"
else
  echo "has_run_folder=false" >> "$out"
  echo "::warning::$RUN_ID: the box uploaded no run folder (its logs are in the collected-<dispatch> artifact)"
fi
