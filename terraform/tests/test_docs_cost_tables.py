"""docs/cloud.md's cost tables are generated from `npm run -s samebox -- estimate --profile <p>`, never
hand-copied: the committed tables match what the estimate prints today."""
from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from conftest import REPO, SCRIPTS

NODE = REPO / "node_modules" / ".bin" / "node"
GENERATOR = SCRIPTS / "docs_cost_tables.py"


def needs_pipeline():
    if not NODE.exists() or shutil.which("npm") is None:
        pytest.skip(f"no {NODE} or npm (run pipeline/bin/setup node): the estimate needs the pipeline")


def generator(*args):
    return subprocess.run([sys.executable, str(GENERATOR), *args], capture_output=True, text=True, timeout=600, cwd=REPO)


def uncommitted_runs() -> list[str]:
    """Run folders in data/runs that git does not track (e.g. the run `pipeline/bin/main` just made)."""
    out = subprocess.run(["git", "ls-files", "--others", "--exclude-standard", "--directory", "data/runs"],
                         capture_output=True, text=True, cwd=REPO)
    return [line for line in out.stdout.splitlines() if line.strip()] if out.returncode == 0 else []


def test_the_docs_cost_tables_match_the_estimate():
    needs_pipeline()
    extra = uncommitted_runs()
    if extra:
        # The estimate reads every run in data/runs, so a local run (the README's `main` before `test`) moves
        # it; the tables are the committed data's, and CI (a clean clone) checks them against exactly that.
        pytest.skip(f"data/runs holds runs git does not track ({', '.join(extra[:3])}): the tables are checked against committed runs only")
    result = generator("--check")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr


def test_a_stale_table_is_named_with_the_way_to_regenerate_it(tmp_path):
    needs_pipeline()
    docs = tmp_path / "cloud.md"
    docs.write_text((REPO / "docs" / "cloud.md").read_text().replace("| **total** |", "| **total (hand-edited)** |", 1))
    result = generator("--check", "--docs", str(docs))
    assert result.returncode == 1 and "docs_cost_tables.py --write" in result.stderr and "hand-edited" in result.stdout
    assert generator("--write", "--docs", str(docs)).returncode == 0
    assert generator("--check", "--docs", str(docs)).returncode == 0


def test_a_missing_block_is_refused_naming_the_profiles(tmp_path):
    docs = tmp_path / "cloud.md"
    docs.write_text("# no tables\n")
    result = generator("--check", "--docs", str(docs))
    assert result.returncode == 2 and "no generated block for smoke, ci, quick, full" in result.stderr


def first_runs_rows(text: str) -> list[list[str]]:
    block = text.split("<!-- first-runs begin", 1)[1].split("<!-- first-runs end -->", 1)[0]
    return [[c.strip() for c in line.strip().strip("|").split("|")] for line in block.splitlines()[1:]
            if line.startswith("| ") and not line.startswith("| step")]


def test_the_docs_walk_from_preflight_to_full_with_the_budget_each_needs():
    """docs/cloud.md walks a new account through preflight, smoke, ci, quick and full, each with the command to
    dispatch it; the figures are the estimate's (checked by --check above), and every command passes a budget at
    least its 'at most' (the default budget otherwise: bench.yml's, which the generator must know)."""
    import yaml
    sys.path.insert(0, str(SCRIPTS))
    import docs_cost_tables
    inputs = yaml.safe_load((REPO / ".github" / "workflows" / "bench.yml").read_text())[True]["workflow_dispatch"]["inputs"]
    assert float(inputs["budget_usd"]["default"]) == docs_cost_tables.DEFAULT_BUDGET_USD
    rows = first_runs_rows((REPO / "docs" / "cloud.md").read_text())
    assert [r[0] for r in rows] == ["1. preflight", "2. smoke", "3. ci", "4. quick", "5. full"]
    assert "preflight_only=yes" in rows[0][1] and rows[0][4] == "$0"
    for step, command, _boxes, _hours, _expected, at_most, _limit in rows[1:]:
        profile = step.split()[1]
        assert (profile == "smoke") == ("-f profile=" not in command), command
        budget = float(command.split("budget_usd=")[1].rstrip("`")) if "budget_usd=" in command else docs_cost_tables.DEFAULT_BUDGET_USD
        assert budget >= float(at_most.lstrip("$")), (step, command, at_most)
    smoke = rows[1]
    assert smoke[2] == "1" and float(smoke[4].lstrip("$")) <= 0.25 and float(smoke[3].split()[0]) <= 0.5, smoke


def test_a_hand_edited_walk_through_is_stale(tmp_path):
    needs_pipeline()
    docs = tmp_path / "cloud.md"
    docs.write_text((REPO / "docs" / "cloud.md").read_text().replace("| 2. smoke |", "| 2. smoke (edited) |", 1))
    result = generator("--check", "--docs", str(docs))
    assert result.returncode == 1 and "first-runs" in result.stderr
