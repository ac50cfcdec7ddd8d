"""The bench workflow's own steps, run here: the fan-out matrix, the tfvars, collecting what a box
uploaded (real `aws s3` against moto), and placing run folders for the one pull request."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REGION, REPO, SCRIPTS

PREFIX = "boxes/AROATESTROLE:i-0123456789abcdef0/"
VENV_BIN = Path(sys.executable).parent


def estimate(boxes_per_study):
    return {"profile": "full", "instance_type": "c6a.4xlarge", "studies": [
        {"study": study, "systems": ["postgresql", "sqlite"], "fits": True, "limit_minutes": 100,
         "boxes": [{"workloads": w, "limit_minutes": 90 + i} for i, w in enumerate(boxes)]}
        for study, boxes in boxes_per_study.items()]}


def run_script(name, *args, env=None, cwd=None):
    return subprocess.run([sys.executable, str(SCRIPTS / name), *args], capture_output=True, text=True,
                          timeout=120, env=env, cwd=cwd)


def test_matrix_has_one_entry_per_box_with_its_own_limit(tmp_path):
    est = tmp_path / "estimate.json"
    est.write_text(json.dumps(estimate({"oltp": [None], "analytical": [["a", "b"], ["c"]]})))
    result = run_script("bench_matrix.py", "--estimate", str(est), "--now", "2030-01-01T12:00:00Z")
    assert result.returncode == 0, result.stderr
    entries = json.loads(result.stdout.split("=", 1)[1])
    assert [e["run_id"] for e in entries] == ["20300101T120000Z-full-c6a-4xlarge-oltp",
                                             "20300101T120000Z-full-c6a-4xlarge-analytical-1of2",
                                             "20300101T120000Z-full-c6a-4xlarge-analytical-2of2"]
    assert [e["workloads"] for e in entries] == ["", "a,b", "c"]
    assert [e["max_minutes"] for e in entries] == [90, 90, 91]


def test_matrix_refuses_a_study_that_does_not_fit(tmp_path):
    est = estimate({"mcp-db": [None]})
    est["studies"][0]["fits"] = False
    (tmp_path / "e.json").write_text(json.dumps(est))
    result = run_script("bench_matrix.py", "--estimate", str(tmp_path / "e.json"))
    assert result.returncode == 2 and "mcp-db" in result.stderr


def test_tfvars_carry_the_share_and_reject_bad_names():
    ok = run_script("run_tfvars.py", "--study", "analytical", "--systems", "postgresql,sqlite",
                    "--workloads", "large_sort,window_rank", "--expires-at", "2030-01-01T18:00:00Z")
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout) == {"studies": ["analytical"], "systems": ["postgresql", "sqlite"],
                                     "workloads": ["large_sort", "window_rank"], "variants": [], "expires_at": "2030-01-01T18:00:00Z"}
    bad = run_script("run_tfvars.py", "--study", "analytical", "--systems", "postgresql", "--workloads", "x;y",
                     "--expires-at", "2030-01-01T18:00:00Z")
    assert bad.returncode == 2 and "invalid workload or variant" in bad.stderr


def collect(s3, moto_endpoint, script_env, tmp_path, bucket):
    env = dict(script_env, RUN_ID="20300101T120000Z-full-c6a-4xlarge-oltp", RESULTS_PREFIX=f"s3://{bucket}/{PREFIX}",
               INSTANCE_IDS="", MAX_MINUTES="0", AWS_REGION=REGION, GITHUB_OUTPUT=str(tmp_path / "out"),
               PATH=f"{VENV_BIN}:{os.environ['PATH']}", SAMEBOX_S3_CMD=f"{VENV_BIN}/aws --endpoint-url {moto_endpoint} s3",
               SAMEBOX_WAIT_ARGS=f"--endpoint-url {moto_endpoint} --interval-seconds 0.2 --timeout-minutes 0.02")
    result = subprocess.run(["bash", str(SCRIPTS / "collect_step.sh")], env=env, cwd=tmp_path,
                            capture_output=True, text=True, timeout=180)
    return result, tmp_path / "collected" / env["RUN_ID"]


def test_collect_after_a_box_died_keeps_what_its_periodic_sync_sent(s3, moto_endpoint, script_env, tmp_path):
    bucket = "results-dead"
    s3.create_bucket(Bucket=bucket)
    # What the periodic sync had sent before the box died: no done.json.
    s3.put_object(Bucket=bucket, Key=PREFIX + "run/manifest.json", Body=b'{"run_id": "x"}')
    s3.put_object(Bucket=bucket, Key=PREFIX + "run/cells/a/stdout.txt", Body=b"raw")
    s3.put_object(Bucket=bucket, Key=PREFIX + "logs/main.log", Body=b"log")
    result, dest = collect(s3, moto_endpoint, script_env, tmp_path, bucket)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (dest / "run" / "cells" / "a" / "stdout.txt").read_text() == "raw"
    assert (dest / "logs" / "main.log").is_file() and not (dest / "done.json").exists()
    assert "has_run_folder=true" in (tmp_path / "out").read_text()
    cost = run_script("run_cost.py", "--region", REGION, "--instance-type", "c6a.4xlarge", "--done", str(dest / "done.json"))
    assert json.loads(cost.stdout)["usd"] is None, "no marker, no made-up cost"


def test_collect_of_a_box_that_uploaded_nothing(s3, moto_endpoint, script_env, tmp_path):
    s3.create_bucket(Bucket="results-empty")
    result, _ = collect(s3, moto_endpoint, script_env, tmp_path, "results-empty")
    assert result.returncode == 0, result.stderr
    assert "has_run_folder=false" in (tmp_path / "out").read_text()


def test_place_runs_moves_every_folder_and_writes_one_description(tmp_path):
    matrix = [{"study": "oltp", "run_id": "20300101T120000Z-full-c6a-4xlarge-oltp", "max_minutes": 120, "systems": "", "workloads": ""},
              {"study": "mcp-db", "run_id": "20300101T120000Z-full-c6a-4xlarge-mcp-db", "max_minutes": 500, "systems": "", "workloads": ""}]
    incoming = tmp_path / "incoming"
    first = incoming / matrix[0]["run_id"]
    (first / "run").mkdir(parents=True)
    guard = {"mode": "strict", "flagged": 3, "reruns": 3, "noisy": 1,
             "before_run": {"busy": False, "reason": "", "host_probe_ms": 44.0, "host_slower": "the host probe ... slower",
                            "host_reference": {"run_id": "20291201T000000Z-full-c6a-4xlarge-oltp", "host_probe_ms": 40.0}}}
    (first / "run" / "manifest.json").write_text(json.dumps({"noise_guard": guard}))
    (first / "done.json").write_text(json.dumps({"status": "ok", "duration_s": 3000, "ami_id": "ami-1"}))
    (first / "cost.json").write_text(json.dumps({"usd": 0.51}))
    result = run_script("place_runs.py", "--incoming", str(incoming), "--matrix-json", json.dumps(matrix),
                        "--runs-dir", str(tmp_path / "data" / "runs"), "--body", str(tmp_path / "body.md"),
                        "--github-output", str(tmp_path / "out"))
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "data" / "runs" / matrix[0]["run_id"] / "manifest.json").is_file()
    body = (tmp_path / "body.md").read_text()
    assert ("| oltp | `20300101T120000Z-full-c6a-4xlarge-oltp` | ok | 50 min | 120 min | $0.51 | ami-1 | strict: 3 flagged, 1 noisy; "
            "**host 10 % slower** on the probe than `20291201T000000Z-full-c6a-4xlarge-oltp` |") in body
    assert "| mcp-db |" in body and "no done marker, no run folder" in body and any(line.startswith("| mcp-db |") and line.endswith("| unknown |") for line in body.splitlines())
    out = dict(line.split("=", 1) for line in (tmp_path / "out").read_text().splitlines())
    assert out["runs"] == "1" and out["branch"] == "20300101T120000Z-full-c6a-4xlarge"
    again = run_script("place_runs.py", "--incoming", str(incoming), "--matrix-json", json.dumps(matrix[:1]),
                       "--runs-dir", str(tmp_path / "data" / "runs"), "--body", str(tmp_path / "body.md"))
    # The folder was moved away, so the second call finds none to place and never overwrites.
    assert again.returncode == 0 and json.loads(again.stdout)["runs"] == "0"


NODE = REPO / "node_modules" / ".bin" / "node"


def full_matrix(tmp_path):
    """The real full-profile matrix: `samebox estimate --profile full` for every study, then the fan-out."""
    if not NODE.exists():
        pytest.skip(f"no {NODE} (run pipeline/bin/setup node): the full estimate needs the pipeline")
    est = subprocess.run([str(NODE), "--disable-warning=ExperimentalWarning", str(REPO / "pipeline" / "cli.ts"), "estimate",
                          "--profile", "full", "--instance-type", "c6a.4xlarge", "--region", REGION, "--json"],
                         capture_output=True, text=True, timeout=120, cwd=REPO)
    assert est.returncode == 0, est.stderr
    (tmp_path / "estimate.json").write_text(est.stdout)
    result = run_script("bench_matrix.py", "--estimate", str(tmp_path / "estimate.json"), "--now", "2030-01-01T12:00:00Z")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.split("=", 1)[1])


def test_pr_title_of_a_mixed_full_run_fits_github_limit(tmp_path):
    matrix = full_matrix(tmp_path)
    assert len(matrix) >= 10, f"the full profile fans out to {len(matrix)} boxes"
    incoming = tmp_path / "incoming"
    statuses = ["ok", "timeout", "failed"]
    for i, entry in enumerate(matrix[:-1]):  # the last box left no folder at all
        folder = incoming / entry["run_id"]
        (folder / "run").mkdir(parents=True)
        (folder / "run" / "manifest.json").write_text("{}")
        (folder / "done.json").write_text(json.dumps({"status": statuses[i % 3], "duration_s": 600}))
    result = run_script("place_runs.py", "--incoming", str(incoming), "--matrix-json", json.dumps(matrix),
                        "--runs-dir", str(tmp_path / "runs"), "--body", str(tmp_path / "body.md"),
                        "--github-output", str(tmp_path / "out"))
    assert result.returncode == 0, result.stderr
    out = dict(line.split("=", 1) for line in (tmp_path / "out").read_text().splitlines())
    assert len(out["title"]) <= 256, (len(out["title"]), out["title"])
    assert out["branch"] == "20300101T120000Z-full-c6a-4xlarge", "a share's -<k>of<n> is not part of the dispatch"
    assert f"{len(matrix)} boxes:" in out["title"] and "no done marker, no run folder" in out["title"]
    assert all(e["study"] in (tmp_path / "body.md").read_text() for e in matrix)


def test_pr_title_of_17_boxes_each_ending_differently_fits_github_limit(tmp_path):
    """The issue's case: 17 boxes (the full matrix when it was filed), here every one ending another way the flow
    knows, with the longest study names: the title still counts boxes per status within GitHub's 256 characters."""
    statuses = ["ok", "timeout", "failed", "cells_failed", "error", "interrupted", "clone_failed", "invalid_input"]
    outcomes = ["never started", "gone", "expired", "silent", "launch failed", "cancelled", "done, invalid run folder"]
    matrix, incoming = [], tmp_path / "incoming"
    for i in range(17):
        study = ["mcp-servers", "analytical", "mcp-db"][i % 3]
        entry = {"study": study, "run_id": f"20300101T120000Z-full-c6a-12xlarge-{study}-{i + 1}of17", "max_minutes": 599,
                 "systems": "", "workloads": ""}
        if i < len(statuses):
            folder = incoming / entry["run_id"]
            (folder / "run").mkdir(parents=True)
            (folder / "run" / "manifest.json").write_text("{}")
            (folder / "done.json").write_text(json.dumps({"status": statuses[i], "duration_s": 600}))
        elif i - len(statuses) < len(outcomes):
            entry["outcome"] = outcomes[i - len(statuses)]
        matrix.append(entry)
    result = run_script("place_runs.py", "--incoming", str(incoming), "--matrix-json", json.dumps(matrix),
                        "--runs-dir", str(tmp_path / "runs"), "--body", str(tmp_path / "body.md"), "--github-output", str(tmp_path / "out"))
    assert result.returncode == 0, result.stderr
    out = dict(line.split("=", 1) for line in (tmp_path / "out").read_text().splitlines())
    assert len(out["title"]) <= 256 and out["title"].startswith("data: cloud run 20300101T120000Z-full-c6a-12xlarge (17 boxes: "), out["title"]
    assert out["runs"] == str(len(statuses)) and len((tmp_path / "body.md").read_text().splitlines()) >= 17 + 4


COMMITTED_RUN = "20261123T102446Z-quick-vm"  # a small committed run folder: the real schema, real records


def finish_run(tmp_path, with_done):
    """collect's last step on a real run folder laid out as the download leaves it: collected/<id>/run/."""
    if not NODE.exists():
        pytest.skip(f"no {NODE} (run pipeline/bin/setup node): validate needs the pipeline")
    dest = tmp_path / "collected" / COMMITTED_RUN
    shutil.copytree(REPO / "data" / "runs" / COMMITTED_RUN, dest / "run")
    if with_done:
        (dest / "done.json").write_text(json.dumps({"status": "ok", "duration_s": 1500}))
    env = dict(os.environ, RUN_ID=COMMITTED_RUN, AWS_REGION=REGION, INSTANCE_TYPE="c6a.4xlarge")
    result = subprocess.run(["bash", str(SCRIPTS / "finish_run.sh")], env=env, cwd=tmp_path,
                            capture_output=True, text=True, timeout=180)
    return result, json.loads((dest / "run" / "manifest.json").read_text())


def test_collect_validates_a_real_run_folder_and_stores_its_cost(tmp_path):
    result, manifest = finish_run(tmp_path, with_done=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"{COMMITTED_RUN}: valid" in result.stdout
    assert manifest["cost"]["usd"] == round(0.612 * 1500 / 3600, 4) and manifest["cost"]["billed_seconds"] == 1500


def test_a_box_without_done_marker_gets_a_schema_valid_cost(tmp_path):
    result, manifest = finish_run(tmp_path, with_done=False)
    assert result.returncode == 0, result.stdout + result.stderr
    cost = manifest["cost"]
    assert cost["usd"] is None and "no readable done marker" in cost["reason"]
    # What the synced manifest proves (start to end), a lower bound: never a made-up minimum.
    assert cost["billed_seconds"] == pytest.approx(manifest["duration_s"], abs=1)


def yaml_load(name):
    import yaml
    return yaml.safe_load((REPO / ".github" / "workflows" / name).read_text())


def bench_jobs():
    import yaml
    return yaml.safe_load((REPO / ".github" / "workflows" / "bench.yml").read_text())["jobs"]


def test_cancel_terminates_the_dispatch_instead_of_waiting(tmp_path):
    collect = yaml_load("collect.yml")
    # cancel is collect's cancel_dispatch: every box of the dispatch terminated, nothing more launched
    step = next(s for s in collect["jobs"]["tick"]["steps"] if s.get("name") == "Cancel a dispatch")
    assert "cancel --dispatch \"$DISPATCH\"" in step["run"] and step["env"]["DISPATCH"] == "${{ inputs.cancel_dispatch }}"
    assert bench_jobs()["plan"]["outputs"]["dispatch"] == "${{ steps.matrix.outputs.dispatch }}"
    # the dispatch the plan step outputs is the prefix of every run id of the matrix (the boxes' tag)
    est = tmp_path / "estimate.json"
    est.write_text(json.dumps(estimate({"oltp": [None], "analytical": [["a"], ["b"]]})))
    result = run_script("bench_matrix.py", "--estimate", str(est), "--now", "2030-01-01T12:00:00Z", "--github-output", str(tmp_path / "out"))
    assert result.returncode == 0, result.stderr
    out = dict(line.split("=", 1) for line in (tmp_path / "out").read_text().splitlines())
    assert out["dispatch"] == "20300101T120000Z-full-c6a-4xlarge"
    assert all(e["run_id"].startswith(out["dispatch"] + "-") for e in json.loads(out["matrix"]))


def test_smoke_profile_is_one_box_for_cents_and_the_dispatch_default(tmp_path):
    if not NODE.exists():
        pytest.skip(f"no {NODE} (run pipeline/bin/setup node): the estimate needs the pipeline")
    inputs = yaml_inputs()
    assert inputs["profile"]["default"] == "smoke" and inputs["budget_usd"]["default"] == "5"
    est = subprocess.run([str(NODE), "--disable-warning=ExperimentalWarning", str(REPO / "pipeline" / "cli.ts"), "estimate",
                          "--profile", "smoke", "--instance-type", "c6a.4xlarge", "--region", REGION, "--json"],
                         capture_output=True, text=True, timeout=120, cwd=REPO)
    assert est.returncode == 0, est.stderr
    figures = json.loads(est.stdout)
    assert figures["total"]["expected_hours"] <= 0.5 and figures["total"]["usd_expected"] <= 0.25, figures["total"]
    (tmp_path / "estimate.json").write_text(est.stdout)
    result = run_script("bench_matrix.py", "--estimate", str(tmp_path / "estimate.json"), "--now", "2030-01-01T12:00:00Z")
    assert result.returncode == 0, result.stderr
    entries = json.loads(result.stdout.split("=", 1)[1])
    assert [(e["study"], e["systems"]) for e in entries] == [("oltp", "postgresql")], "one box, one study, one system"
    assert entries[0]["max_minutes"] <= 60
    ok = run_script("validate_inputs.py", "--studies", "all", "--systems", "all", "--profile", "smoke",
                    "--instance-type", "c6a.4xlarge", "--publish", "yes")
    assert ok.returncode == 0, ok.stderr


def yaml_inputs():
    import yaml
    return yaml.safe_load((REPO / ".github" / "workflows" / "bench.yml").read_text())[True]["workflow_dispatch"]["inputs"]


def test_preflight_runs_first_and_alone_when_asked():
    jobs = bench_jobs()
    names = [s.get("name", s.get("uses", "")) for s in jobs["plan"]["steps"]]
    preflight = next(i for i, n in enumerate(names) if n.startswith("Preflight"))
    assert preflight > names.index("One box per study"), "the preflight checks the planned peak"
    script = jobs["plan"]["steps"][preflight]["run"]
    assert "terraform/scripts/preflight.py" in script and '--boxes "$boxes"' in script
    # terraform plan with the real backend, for the first box as the launch step applies it
    assert "--terraform-plan" in script and '--box-role-id "$BOX_ROLE_ID"' in script and '--study "${first[0]}"' in script
    assert any(str(s.get("uses", "")).startswith("hashicorp/setup-terraform@") for s in jobs["plan"]["steps"][:preflight])
    assert jobs["plan"]["outputs"]["launch"] == "${{ inputs.preflight_only != 'yes' }}"
    # nothing after the plan launches, waits, cleans or publishes when only the preflight was asked for
    for name, job in jobs.items():
        if name != "plan":
            assert "needs.plan.outputs.launch == 'true'" in job["if"], (name, job.get("if"))
    assert yaml_inputs()["preflight_only"]["default"] == "no"


def test_one_share_can_be_rerun_alone(tmp_path):
    est = tmp_path / "estimate.json"
    est.write_text(json.dumps(estimate({"oltp": [None], "analytical": [["a", "b"], ["c"]]})))
    result = run_script("bench_matrix.py", "--estimate", str(est), "--now", "2030-01-02T12:00:00Z", "--share", "analytical-2of2")
    assert result.returncode == 0, result.stderr
    entries = json.loads(result.stdout.split("=", 1)[1])
    assert [(e["run_id"], e["workloads"]) for e in entries] == [("20300102T120000Z-full-c6a-4xlarge-analytical-2of2", "c")]
    bad = run_script("bench_matrix.py", "--estimate", str(est), "--share", "analytical-3of2")
    assert bad.returncode == 2 and "share 'analytical-3of2' is not one of this plan's: oltp, analytical-1of2, analytical-2of2" in bad.stderr


def workflow_steps():
    import yaml
    for path in sorted((REPO / ".github" / "workflows").glob("*.yml")):
        for name, job in yaml.safe_load(path.read_text())["jobs"].items():
            yield path.name, name, job.get("steps", [])


def test_pip_installs_only_into_a_venv_never_the_runners_python():
    for workflow, job, steps in workflow_steps():
        for step in steps:
            for line in str(step.get("run", "")).splitlines():
                if "pip install" in line:
                    assert "python3 -m venv" in line and "venv/bin/pip install" in line, (workflow, job, line)
                    assert "python3 -m pip" not in line, (workflow, job, line)


def test_every_job_installs_before_it_assumes_the_aws_role():
    """npm and pip take minutes: done under the role, they spend its session on nothing AWS."""
    for workflow, job, steps in workflow_steps():
        role = next((i for i, s in enumerate(steps) if str(s.get("uses", "")).startswith("aws-actions/configure-aws-credentials@")), None)
        installs = [i for i, s in enumerate(steps) if str(s.get("name", "")).startswith("Install")]
        if role is not None:
            assert all(i < role for i in installs), (workflow, job, [steps[i]["name"] for i in installs])
