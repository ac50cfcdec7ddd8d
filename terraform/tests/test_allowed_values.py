"""terraform/allowed.json is the one list: the workflow and Terraform agree with it,
and the workflows keep the hardening rules (pinned actions, minimal permissions,
inputs only through env)."""
from __future__ import annotations

import json
import re

import pytest
import yaml

from conftest import REPO, TERRAFORM

ALLOWED = json.loads((TERRAFORM / "allowed.json").read_text())
# the systems are the folders of bench-scripts/systems (a system is one folder), as validate_inputs.py derives them
ALLOWED["systems"] = sorted(p.parent.name for p in (REPO / "bench-scripts" / "systems").glob("*/system.json"))
WORKFLOWS = sorted((REPO / ".github" / "workflows").glob("*.yml"))


def load_workflow(name: str) -> dict:
    data = yaml.safe_load((REPO / ".github" / "workflows" / name).read_text())
    data["on"] = data.pop(True, data.get("on"))  # YAML 1.1 reads the key `on` as true
    return data


def variable_block(path, name: str) -> str:
    text = path.read_text()
    match = re.search(r'variable "%s" \{.*?\n\}' % re.escape(name), text, re.S)
    assert match, f"variable {name} not found in {path}"
    return match.group(0)


def test_bench_choices_match_allowed_json():
    inputs = load_workflow("bench.yml")["on"]["workflow_dispatch"]["inputs"]
    assert inputs["instance_type"]["options"] == ALLOWED["instance_types"]
    assert inputs["instance_type"]["default"] == ALLOWED["default_instance_type"]
    assert sorted(inputs["profile"]["options"]) == sorted(ALLOWED["profiles"])
    assert "topology" not in inputs, "split topology was removed: inputs, docs and manifest say single"
    assert inputs["studies"]["default"] == "all" and inputs["systems"]["default"] == "all"
    assert float(inputs["budget_usd"]["default"]) > 0


@pytest.mark.parametrize("profile", sorted((REPO / "pipeline" / "profiles").glob("*.json")), ids=lambda p: p.stem)
def test_every_study_and_system_of_every_profile_is_allowed(profile):
    """A study or system a profile runs but allowed.json lacks could never be dispatched (sqlserver was)."""
    studies = json.loads(profile.read_text())["studies"]
    assert profile.stem in ALLOWED["profiles"]
    for study, spec in studies.items():
        assert study in ALLOWED["studies"], f"{profile.name}: study {study} is not in terraform/allowed.json"
        for system in spec["systems"]:
            assert system in ALLOWED["systems"], f"{profile.name}: system {system} ({study}) is not a folder of bench-scripts/systems"


def test_allowed_json_names_only_files_that_exist():
    for path in re.findall(r"[\w./-]+\.(?:py|tf|json|yml|sh)", ALLOWED["_comment"]):
        assert (REPO / path).exists(), f"allowed.json's comment names {path}, which does not exist"


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_workflows_install_like_setup_never_npm_ci(path):
    """npm ci refuses our lock file (optional per-platform packages); setup's install works."""
    text = path.read_text()
    assert "npm ci" not in text and "npm install" not in text
    runs = [step.get("run", "") for job in load_workflow(path.name)["jobs"].values() for step in job.get("steps", [])]
    if any("npm run" in r or "pipeline/cli.ts" in r for r in runs):
        assert any("pipeline/bin/setup node" in r for r in runs), f"{path.name} runs node code without pipeline/bin/setup node"


def test_reaper_does_not_skip_silently():
    job = load_workflow("reaper.yml")["jobs"]["reap"]
    assert "if" not in job, "an unconfigured reaper must say so in every run, not skip the job"
    check = job["steps"][0]
    assert "::warning::" in check["run"] and "SAMEBOX_REAPER_ROLE_ARN" in check["run"]


@pytest.mark.parametrize("name,key", [
    ("instance_type", "instance_types"), ("profile", "profiles"),
    ("studies", "studies"), ("systems", "systems"), ("region", "regions"),
])
def test_run_module_validates_against_allowed_json(name, key):
    block = variable_block(TERRAFORM / "run" / "variables.tf", name)
    assert f"local.allowed.{key}" in block
    message = re.search(r'error_message\s*=\s*"([^"]*)"', block).group(1)
    if key in ("instance_types", "profiles"):  # short lists are named; the long ones point at the file
        for value in ALLOWED[key]:
            assert value in message, f"{name}'s error message does not name {value}"
    elif key == "systems":
        assert "bench-scripts/systems" in message
    else:
        assert "terraform/allowed.json" in message


def test_run_module_default_instance_type():
    block = variable_block(TERRAFORM / "run" / "variables.tf", "instance_type")
    assert f'default     = "{ALLOWED["default_instance_type"]}"' in block


def test_bootstrap_launch_policy_reads_the_same_list():
    iam = (TERRAFORM / "bootstrap" / "iam.tf").read_text()
    assert re.search(r'variable\s*=\s*"ec2:InstanceType"\s*\n\s*values\s*=\s*local\.allowed\.instance_types', iam)


def test_default_instance_type_is_priced_in_the_default_region():
    prices = (REPO / "data" / "prices" / "ec2-on-demand.csv").read_text()
    assert re.search(r"us-east-1,%s,[0-9.]+,yes" % re.escape(ALLOWED["default_instance_type"]), prices)


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_actions_are_pinned_to_commit_shas(path):
    uses = re.findall(r"uses:\s*(\S+)(.*)", path.read_text())
    assert uses
    for ref, comment in uses:
        if ref.startswith("./"):
            continue
        assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", ref), f"{path.name}: {ref} is not pinned to a SHA"
        assert re.search(r"#\s*v\d", comment), f"{path.name}: {ref} lacks its tag comment"


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_permissions_are_explicit_per_job(path):
    workflow = load_workflow(path.name)
    assert workflow.get("permissions") == {}, "top-level permissions must be {} so jobs grant only what they use"
    for name, job in workflow["jobs"].items():
        assert "permissions" in job, f"job {name} has no permissions block"
        assert "write-all" not in json.dumps(job["permissions"])


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_no_expression_is_spliced_into_a_script(path):
    workflow = load_workflow(path.name)
    for name, job in workflow["jobs"].items():
        for step in job.get("steps", []):
            assert "${{" not in step.get("run", ""), f"job {name}, step {step.get('name')}: pass values via env"


def test_bench_never_overlaps_and_always_cleans_up():
    workflow = load_workflow("bench.yml")
    assert workflow["concurrency"]["cancel-in-progress"] is False
    cleanup = workflow["jobs"]["cleanup"]
    assert cleanup["if"].startswith("always()")
    reap = next(s for s in cleanup["steps"] if "reaper.py" in s.get("run", ""))
    assert reap["if"] == "always()" and "--run-id" in reap["run"]
    destroy = next(s for s in cleanup["steps"] if "terraform destroy" in s.get("run", ""))
    assert destroy.get("continue-on-error") is True  # the tag sweep must still run


def test_bench_validates_and_estimates_before_launching():
    jobs = load_workflow("bench.yml")["jobs"]
    assert jobs["box"]["needs"] == "plan"
    runs = [s["run"] for s in jobs["plan"]["steps"] if "run" in s]
    assert "validate_inputs.py" in runs[0]
    assert any("estimate_step.sh" in r for r in runs) and any("bench_matrix.py" in r for r in runs)
    assert jobs["box"]["strategy"]["matrix"]["include"] == "${{ fromJSON(needs.plan.outputs.matrix) }}"


def test_bench_waits_longer_than_one_hosted_job_allows_and_collects_whatever_happened():
    jobs = load_workflow("bench.yml")["jobs"]
    assert jobs["box"]["timeout-minutes"] <= 360 and jobs["collect"]["timeout-minutes"] <= 360
    assert jobs["box"]["timeout-minutes"] + jobs["collect"]["timeout-minutes"] >= 600 + 15 + 60, "a 600-min box must be waited for"
    # collect runs after failed boxes but never after a cancel (the cancel job terminates them instead)
    assert "!cancelled()" in jobs["collect"]["if"] and jobs["publish"]["if"].startswith("always()")
    assert "SAMEBOX_PR_TOKEN" in json.dumps(jobs["publish"]), "the data PR needs a token that triggers CI"
