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
    assert inputs["topology"]["options"] == ALLOWED["topologies"]
    assert inputs["studies"]["default"].split(",") == ALLOWED["studies"]
    assert inputs["systems"]["default"].split(",") == ALLOWED["systems"]


@pytest.mark.parametrize("name,key", [
    ("instance_type", "instance_types"), ("topology", "topologies"), ("profile", "profiles"),
    ("studies", "studies"), ("systems", "systems"), ("region", "regions"),
])
def test_run_module_validates_against_allowed_json(name, key):
    block = variable_block(TERRAFORM / "run" / "variables.tf", name)
    assert f"local.allowed.{key}" in block
    message = re.search(r'error_message\s*=\s*"([^"]*)"', block).group(1)
    if key != "regions":  # the region message points at the file instead of listing five
        for value in ALLOWED[key]:
            assert value in message, f"{name}'s error message does not name {value}"


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


def test_bench_validates_before_launching():
    jobs = load_workflow("bench.yml")["jobs"]
    assert jobs["run"]["needs"] == "validate"
    first_run_step = next(s for s in jobs["validate"]["steps"] if "run" in s)
    assert "validate_inputs.py" in first_run_step["run"]
