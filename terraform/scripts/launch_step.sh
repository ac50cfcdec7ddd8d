#!/usr/bin/env bash
# Launch the shares `dispatch.py tick` chose (bench right after its plan, collect on every tick), one
# terraform state per run (runs/<run-id>.tfstate), then record each launch in the dispatch
# (instance, results prefix, expiry) and exit: no job waits on a box. Every box boots the image the dispatch recorded (ami_id). A failed apply is recorded
# (the share is reported "launch failed" in the PR), terminated by run id, and the step fails at the end.
#   env: LAUNCH (tick's JSON list) STATE_BUCKET AWS_REGION, TF_VAR_{region,repository_url,results_bucket,
#        box_instance_profile,box_role_id,box_security_group_id,subnet_id,expiry_role_arn}
#   SAMEBOX_DISPATCH_ARGS adds arguments to dispatch.py / reaper.py (tests: --endpoint-url)
set -uo pipefail
scripts=$(cd "$(dirname "$0")" && pwd)
run_dir="$scripts/../run"
# shellcheck disable=SC2206
extra=(${SAMEBOX_DISPATCH_ARGS:-})
count=$(python3 -c 'import json, os; print(len(json.loads(os.environ["LAUNCH"] or "[]")))') || { echo "::error::LAUNCH is not tick's JSON list"; exit 2; }
(( count > 0 )) || { echo "nothing to launch now"; exit 0; }
failed=0
for (( i = 0; i < count; i++ )); do
  # One line per field, in this order (every value was checked by validate_inputs / bench_matrix).
  mapfile -t f < <(python3 -c 'import json, os, sys
e = json.loads(os.environ["LAUNCH"])[int(sys.argv[1])]
for k in ("dispatch", "run_id", "study", "systems", "workloads", "variants", "max_minutes", "profile", "instance_type", "commit"):
    print(e[k])
print(e.get("ami_id", ""))' "$i")
  dispatch=${f[0]} run_id=${f[1]} max_minutes=${f[6]}
  echo "::group::launch $run_id (${f[8]}, limit $max_minutes min)"
  expires_at=$(date -u -d "+$(( max_minutes + 30 )) minutes" +%Y-%m-%dT%H:%M:%SZ)
  ok=0
  if python3 "$scripts/run_tfvars.py" --study "${f[2]}" --systems "${f[3]}" --workloads "${f[4]}" --variants "${f[5]}" \
       --expires-at "$expires_at" > "$run_dir/run.auto.tfvars.json" \
     && (cd "$run_dir" && terraform init -input=false -reconfigure \
           -backend-config="bucket=$STATE_BUCKET" -backend-config="key=runs/$run_id.tfstate" -backend-config="region=$AWS_REGION" \
         && TF_VAR_run_id=$run_id TF_VAR_max_minutes=$max_minutes TF_VAR_profile=${f[7]} TF_VAR_instance_type=${f[8]} \
            TF_VAR_commit=${f[9]} TF_VAR_ami_id=${f[10]} terraform apply -auto-approve -input=false); then
    prefix=$(cd "$run_dir" && terraform output -raw results_prefix) \
      && instance=$(cd "$run_dir" && terraform output -json instance_ids | python3 -c 'import json, sys; print(json.load(sys.stdin)[0])') \
      && python3 "$scripts/dispatch.py" --region "$AWS_REGION" --state-bucket "$STATE_BUCKET" "${extra[@]}" launched \
           --dispatch "$dispatch" --run-id "$run_id" --instance-id "$instance" --results-prefix "$prefix" --max-minutes "$max_minutes" \
      && ok=1
  fi
  if (( ok )); then
    echo "$run_id: launched $instance, results under $prefix, expires $expires_at"
  else
    failed=$((failed + 1))
    echo "::error::$run_id: the launch failed (terraform above); recorded as 'launch failed', anything it started is terminated"
    python3 "$scripts/dispatch.py" --region "$AWS_REGION" --state-bucket "$STATE_BUCKET" "${extra[@]}" launched \
      --dispatch "$dispatch" --run-id "$run_id" --max-minutes "$max_minutes" --failed >/dev/null || true
    python3 "$scripts/reaper.py" --region "$AWS_REGION" --run-id "$run_id" "${extra[@]}" >/dev/null || true
  fi
  rm -f "$run_dir/run.auto.tfvars.json"
  echo "::endgroup::"
done
echo "$((count - failed)) of $count launched"
(( failed == 0 ))
