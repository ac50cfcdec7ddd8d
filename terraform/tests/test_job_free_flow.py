"""The job-free bench flow's shell steps, run as the workflows run them: bench's/collect's launch step
(terraform replaced by a recorder, dispatch records in moto's S3), and collect's job for one dispatch on a
real committed run folder (real `aws s3` against moto), with a box that never started; the workflows'
shape: no job waits on a box, collect is scheduled and dispatchable, one launcher at a time."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
import yaml

from conftest import REGION, REPO, SCRIPTS

import dispatch

VENV_BIN = Path(sys.executable).parent
NODE = REPO / "node_modules" / ".bin" / "node"
FAKE_TERRAFORM = """#!/usr/bin/env bash
echo "$* run_id=${TF_VAR_run_id:-} profile=${TF_VAR_profile:-} type=${TF_VAR_instance_type:-} max=${TF_VAR_max_minutes:-}" >> "$TF_LOG_FILE"
case "$1" in
  apply) [[ "$TF_VAR_run_id" == *fail* ]] && { echo "Error: launch refused" >&2; exit 1; }; cp run.auto.tfvars.json "$TF_LOG_FILE.$TF_VAR_run_id.tfvars";;
  output) if [[ "$2" == -raw ]]; then printf 's3://results-x/boxes/AROATEST:i-0123456789abcdef0/'; else echo '["i-0123456789abcdef0"]'; fi;;
esac
"""


def entry(run_id, dispatch_name):
    return {"dispatch": dispatch_name, "run_id": run_id, "study": "oltp", "systems": "postgresql", "workloads": "", "variants": "",
            "max_minutes": 45, "profile": "smoke", "instance_type": "c6a.4xlarge", "commit": "0" * 40}


def test_launch_step_applies_each_share_in_its_own_state_and_records_it(s3, moto_endpoint, script_env, tmp_path):
    s3.create_bucket(Bucket="state-launch")
    name = "20300101T120000Z-smoke-c6a-4xlarge"
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "terraform").write_text(FAKE_TERRAFORM)
    (fake / "terraform").chmod(0o755)
    log = tmp_path / "terraform.log"
    launch = [entry(f"{name}-oltp", name), entry(f"{name}-failing", name)]
    env = dict(script_env, LAUNCH=json.dumps(launch), STATE_BUCKET="state-launch", AWS_REGION=REGION, TF_LOG_FILE=str(log),
               PATH=f"{fake}:{VENV_BIN}:{os.environ['PATH']}", SAMEBOX_DISPATCH_ARGS=f"--endpoint-url {moto_endpoint}")
    result = subprocess.run(["bash", str(SCRIPTS / "launch_step.sh")], env=env, capture_output=True, text=True, timeout=180)
    assert result.returncode == 1, "a failed launch fails the step"
    assert "::error::" + f"{name}-failing: the launch failed" in result.stdout and "1 of 2 launched" in result.stdout
    calls = log.read_text()
    assert f"-backend-config=key=runs/{name}-oltp.tfstate" in calls and f"-backend-config=key=runs/{name}-failing.tfstate" in calls
    assert f"apply -auto-approve -input=false run_id={name}-oltp profile=smoke type=c6a.4xlarge max=45" in calls
    tfvars = json.loads(Path(f"{log}.{name}-oltp.tfvars").read_text())
    assert tfvars["studies"] == ["oltp"] and tfvars["systems"] == ["postgresql"]
    ok = dispatch.get_json(s3, "state-launch", f"runs/dispatches/{name}/{name}-oltp.json")
    assert ok["instance_id"] == "i-0123456789abcdef0" and ok["results_prefix"].startswith("s3://results-x/boxes/")
    launched_at, expires_at = dispatch.parse_time(ok["launched_at"]), dispatch.parse_time(ok["expires_at"])
    assert expires_at - launched_at == timedelta(minutes=75), "the expiry is the limit plus 30 min from the launch"
    assert dispatch.get_json(s3, "state-launch", f"runs/dispatches/{name}/{name}-failing.json")["failed"] is True


def test_launch_step_with_nothing_to_launch(script_env):
    env = dict(script_env, LAUNCH="[]", STATE_BUCKET="x", AWS_REGION=REGION)
    result = subprocess.run(["bash", str(SCRIPTS / "launch_step.sh")], env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and "nothing to launch now" in result.stdout


COMMITTED_RUN = "20261123T102446Z-quick-vm"  # a small committed run folder: the real schema, real records


def test_collect_of_a_dispatch_costs_validates_and_reports_a_box_that_never_started(ec2, s3, moto_endpoint, script_env, tmp_path):
    if not NODE.exists():
        pytest.skip(f"no {NODE} (run pipeline/bin/setup node): validate needs the pipeline")
    name = "20261123T102446Z-quick"
    state, results = "state-collect", "results-collect"
    for bucket in (state, results):
        s3.create_bucket(Bucket=bucket)
    shares = [{"study": "vm", "systems": "postgresql", "workloads": "", "variants": "", "run_id": COMMITTED_RUN, "max_minutes": 60},
              {"study": "vmtwo", "systems": "postgresql", "workloads": "", "variants": "", "run_id": f"{name}-vmtwo", "max_minutes": 60}]
    # the price the dispatch looked up when recorded (ec2_price.lookup), not the table's 0.612
    listed = {"usd_per_hour": 0.5, "price_date": "2026-11-23", "price_source": "AWS Price List API (pricing:GetProducts, AmazonEC2)",
              "instance_type": "c6a.4xlarge", "region": REGION}
    dispatch.record(s3, state, name, shares, {"profile": "quick", "instance_type": "c6a.4xlarge", "commit": "0" * 40, "publish": "yes",
                                              "price": listed})
    ami = ec2.describe_images()["Images"][0]["ImageId"]
    now = datetime.now(timezone.utc)
    for share, started in ((shares[0], True), (shares[1], False)):
        instance = ec2.run_instances(ImageId=ami, InstanceType="c6a.4xlarge", MinCount=1, MaxCount=1, TagSpecifications=[
            {"ResourceType": "instance", "Tags": [{"Key": "Project", "Value": "samebox"}, {"Key": "samebox:dispatch", "Value": name}]}])["Instances"][0]["InstanceId"]
        prefix = f"boxes/AROATEST:{instance}/"
        launched_at = now - timedelta(minutes=40)
        dispatch.put_json(s3, state, f"runs/dispatches/{name}/{share['run_id']}.json", {
            "run_id": share["run_id"], "instance_id": instance, "results_prefix": f"s3://{results}/{prefix}",
            "launched_at": dispatch.stamp(launched_at), "expires_at": dispatch.stamp(launched_at + timedelta(minutes=90))})
        if started:
            s3.put_object(Bucket=results, Key=prefix + "started.json", Body=b"{}")
            s3.put_object(Bucket=results, Key=prefix + "done.json", Body=json.dumps({"status": "ok", "duration_s": 1500}).encode())
            s3.put_object(Bucket=results, Key=prefix + "logs/box.log", Body=b"log")
            for path in (REPO / "data" / "runs" / COMMITTED_RUN).rglob("*"):
                if path.is_file():
                    key = prefix + "run/" + path.relative_to(REPO / "data" / "runs" / COMMITTED_RUN).as_posix()
                    s3.put_object(Bucket=results, Key=key, Body=path.read_bytes())
    out = tmp_path / "out"
    env = dict(script_env, DISPATCH=name, STATE_BUCKET=state, AWS_REGION=REGION, GITHUB_OUTPUT=str(out),
               PATH=f"{VENV_BIN}:{os.environ['PATH']}", SAMEBOX_DISPATCH_ARGS=f"--endpoint-url {moto_endpoint}",
               SAMEBOX_S3_CMD=f"{VENV_BIN}/aws --endpoint-url {moto_endpoint} s3")
    result = subprocess.run(["bash", str(SCRIPTS / "collect_dispatch.sh")], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    outputs = dict(line.split("=", 1) for line in out.read_text().splitlines())
    assert outputs["collected"] == "true" and outputs["publish"] == "yes" and outputs["instance_type"] == "c6a.4xlarge"
    assert f"{COMMITTED_RUN}: valid" in result.stdout
    assert f"::warning::{name}-vmtwo: never started" in result.stdout
    matrix = json.loads((tmp_path / "collected" / "matrix.json").read_text())
    assert [m["outcome"] for m in matrix] == ["done", "never started"]
    manifest = json.loads((tmp_path / "collected" / COMMITTED_RUN / "run" / "manifest.json").read_text())
    assert manifest["cost"]["billed_seconds"] == 1500 and manifest["cost"]["usd"] == round(0.5 * 1500 / 3600, 4)
    assert manifest["cost"]["usd_per_hour"] == 0.5 and manifest["cost"]["price_source"].startswith("AWS Price List API")
    placed = subprocess.run([sys.executable, str(SCRIPTS / "place_runs.py"), "--incoming", "collected", "--matrix-json", json.dumps(matrix),
                             "--runs-dir", "runs", "--body", "body.md", "--github-output", "place"], cwd=tmp_path, capture_output=True, text=True)
    assert placed.returncode == 0, placed.stderr
    body = (tmp_path / "body.md").read_text()
    assert f"| vmtwo | `{name}-vmtwo` | never started, no run folder |" in body and f"| vm | `{COMMITTED_RUN}` | ok |" in body
    # close: leftovers terminated (the box that never started), the dispatch never collected twice
    closed = dispatch.close(s3, ec2, state, name, "collected")
    assert len(closed["terminated"]) == 2 and dispatch.open_dispatches(s3, state) == []
    again = subprocess.run(["bash", str(SCRIPTS / "collect_dispatch.sh")], env=dict(env, GITHUB_OUTPUT=str(tmp_path / "again")),
                           cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0 and "collected=false" in (tmp_path / "again").read_text()


def workflow(name):
    return yaml.safe_load((REPO / ".github" / "workflows" / name).read_text())


def test_no_job_waits_on_a_box():
    bench, collect = workflow("bench.yml"), workflow("collect.yml")
    assert set(bench["jobs"]) == {"plan", "launch"}, "bench plans, launches and exits"
    for wf in (bench, collect):
        for job in wf["jobs"].values():
            assert job["timeout-minutes"] <= 60, job
            scripts = " ".join(s.get("run", "") for s in job["steps"])
            assert "wait_for_done" not in scripts
    assert bench["jobs"]["launch"]["concurrency"]["group"] == collect["jobs"]["tick"]["concurrency"]["group"] == "samebox-launch"
    assert bench["jobs"]["launch"]["concurrency"]["cancel-in-progress"] is False
    triggers = collect[True]
    assert triggers["schedule"] and "cancel_dispatch" in triggers["workflow_dispatch"]["inputs"]
    assert "launch_step.sh" in " ".join(s.get("run", "") for s in collect["jobs"]["tick"]["steps"])
    # the dispatch is recorded by the plan job (a launch job replaced in the concurrency queue loses nothing)
    record = next(s for s in bench["jobs"]["plan"]["steps"] if s.get("name", "").startswith("Record the dispatch"))
    assert record["if"] == "inputs.preflight_only != 'yes'" and "dispatch.py" in record["run"]
    assert "--share" in next(s["run"] for s in bench["jobs"]["plan"]["steps"] if s.get("name") == "One box per study")


@pytest.mark.parametrize("workflow_name,job", [("collect.yml", "tick"), ("bench.yml", "launch")])
def test_the_tick_step_as_github_runs_it_survives_an_error_annotation(workflow_name, job, ec2, s3, moto_endpoint, script_env, tmp_path):
    """The tick prints ::error:: for a box found never started; the step reads its result with jq, which
    choked on those lines when they shared stdout with the JSON (the tick's first report failed the job)."""
    name = "20300101T120000Z-smoke-c6a-4xlarge"
    state = "state-tick-" + job
    s3.create_bucket(Bucket=state)
    s3.create_bucket(Bucket="results-tick")
    share = {"study": "oltp", "systems": "postgresql", "workloads": "", "variants": "", "run_id": f"{name}-oltp", "max_minutes": 45}
    dispatch.record(s3, state, name, [share], {"profile": "smoke", "instance_type": "c6a.4xlarge", "commit": "0" * 40, "publish": "yes"})
    ami = ec2.describe_images()["Images"][0]["ImageId"]
    instance = ec2.run_instances(ImageId=ami, InstanceType="c6a.4xlarge", MinCount=1, MaxCount=1, TagSpecifications=[
        {"ResourceType": "instance", "Tags": [{"Key": "Project", "Value": "samebox"}, {"Key": "samebox:dispatch", "Value": name}]}])["Instances"][0]["InstanceId"]
    launched_at = datetime.now(timezone.utc) - timedelta(minutes=20)
    dispatch.put_json(s3, state, f"runs/dispatches/{name}/{share['run_id']}.json", {
        "run_id": share["run_id"], "instance_id": instance, "results_prefix": f"s3://results-tick/boxes/AROATEST:{instance}/",
        "launched_at": dispatch.stamp(launched_at), "expires_at": dispatch.stamp(launched_at + timedelta(minutes=75))})
    step = next(s for s in workflow(workflow_name)["jobs"][job]["steps"] if "tick --max-boxes" in s.get("run", ""))
    script = step["run"].replace("python3 -m pip install --quiet -r terraform/scripts/requirements.txt\n", "")
    (tmp_path / "terraform").symlink_to(REPO / "terraform")
    out, summary = tmp_path / "out", tmp_path / "summary"
    env = dict(script_env, AWS_ENDPOINT_URL=moto_endpoint, AWS_REGION=REGION, STATE_BUCKET=state, MAX_BOXES="3",
               TF_VAR_results_bucket="results-tick", TF_VAR_box_role_id="AROATEST", GITHUB_OUTPUT=str(out), GITHUB_STEP_SUMMARY=str(summary),
               PATH=f"{VENV_BIN}:{os.environ['PATH']}")
    result = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script], env=env, cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"::error::{name}-oltp: never started" in result.stdout
    outputs = dict(line.split("=", 1) for line in out.read_text().splitlines())
    assert json.loads(outputs["ready"]) == [name] and json.loads(outputs["launch"]) == []
    assert "0 to launch now" in summary.read_text()
