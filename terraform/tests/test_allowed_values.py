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
# the studies and systems are the folders of bench-scripts/studies and bench-scripts/systems (one folder each),
# derived here independently of validate_inputs.py, which the test below compares
ALLOWED["studies"] = sorted(p.parent.name for p in (REPO / "bench-scripts" / "studies").glob("*/study.json"))
ALLOWED["systems"] = sorted(p.parent.name for p in (REPO / "bench-scripts" / "systems").glob("*/system.json"))
WORKFLOWS = sorted((REPO / ".github" / "workflows").glob("*.yml"))


SCRIPTS_DIR = TERRAFORM / "scripts"


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
        assert study in ALLOWED["studies"], f"{profile.name}: study {study} is not a folder of bench-scripts/studies"
        for system in spec["systems"]:
            assert system in ALLOWED["systems"], f"{profile.name}: system {system} ({study}) is not a folder of bench-scripts/systems"


def test_studies_and_systems_come_from_the_folders_not_allowed_json():
    """A copied study folder is a valid cloud input with no edit of allowed.json (issue 19), as systems already were."""
    import validate_inputs
    raw = json.loads((TERRAFORM / "allowed.json").read_text())
    assert "studies" not in raw and "systems" not in raw, "allowed.json must not list studies or systems: they come from the folders"
    allowed = validate_inputs.load_allowed()
    assert allowed["studies"] == ALLOWED["studies"] and allowed["systems"] == ALLOWED["systems"]
    assert {"oltp", "analytical", "mcp-db", "payments", "mcp-servers"} <= set(allowed["studies"])


def test_a_copied_study_folder_is_a_valid_input(tmp_path):
    import validate_inputs
    studies = tmp_path / "studies"
    for name in ("oltp", "oltp-copy", "Bad Name"):
        (studies / name).mkdir(parents=True)
        (studies / name / "study.json").write_text("{}")
    (studies / "no-study-json").mkdir()
    allowed = validate_inputs.load_allowed(studies_dir=studies)
    assert allowed["studies"] == ["oltp", "oltp-copy"], "only folders with a study.json, of the safe name shape"
    assert validate_inputs.check_list("studies", "oltp-copy", allowed["studies"]) == ["oltp-copy"]
    with pytest.raises(validate_inputs.InputError, match="valid values are oltp, oltp-copy"):
        validate_inputs.check_list("studies", "tpcc", allowed["studies"])


def test_allowed_json_listing_studies_is_refused(tmp_path):
    import validate_inputs
    path = tmp_path / "allowed.json"
    path.write_text(json.dumps({**json.loads((TERRAFORM / "allowed.json").read_text()), "studies": ["oltp"]}))
    with pytest.raises(validate_inputs.InputError, match="derived from the folders of bench-scripts/studies"):
        validate_inputs.load_allowed(path)


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
    elif key in ("studies", "systems"):
        assert f"bench-scripts/{key}" in message
        marker = {"studies": "study.json", "systems": "system.json"}[key]
        derived = f'fileset("${{path.module}}/../../bench-scripts/{key}", "*/{marker}")'
        assert derived in (TERRAFORM / "run" / "variables.tf").read_text(), f"the run module does not derive {key} from the folders"
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


def test_every_box_is_cleaned_up_without_a_job_waiting():
    bench, collect = load_workflow("bench.yml"), load_workflow("collect.yml")
    # a failed launch is terminated by run id on the spot; a collected dispatch's leftovers by dispatch
    launch_step = (SCRIPTS_DIR / "launch_step.sh").read_text()
    assert 'reaper.py" --region "$AWS_REGION" --run-id "$run_id"' in launch_step
    close = next(s for s in collect["jobs"]["collect"]["steps"] if s.get("name", "").startswith("Close the dispatch"))
    assert "dispatch.py" in close["run"] and "close --dispatch" in close["run"]
    assert close["if"] == "steps.collect.outputs.collected == 'true'"
    assert "reaper.reap(" in (SCRIPTS_DIR / "dispatch.py").read_text()


def test_bench_validates_and_estimates_before_launching():
    jobs = load_workflow("bench.yml")["jobs"]
    assert jobs["launch"]["needs"] == "plan"
    runs = [s["run"] for s in jobs["plan"]["steps"] if "run" in s]
    assert "validate_inputs.py" in runs[0]
    order = [next(i for i, r in enumerate(runs) if word in r) for word in ("estimate_step.sh", "bench_matrix.py", "preflight.py", "dispatch.py")]
    assert order == sorted(order), "estimate, matrix, preflight, then the dispatch is recorded"


def test_collect_opens_one_pull_request_with_a_token_that_triggers_ci():
    jobs = load_workflow("collect.yml")["jobs"]
    assert jobs["collect"]["strategy"]["matrix"]["dispatch"] == "${{ fromJSON(needs.tick.outputs.ready) }}"
    assert "SAMEBOX_PR_TOKEN" in json.dumps(jobs["collect"]), "the data PR needs a token that triggers CI"
