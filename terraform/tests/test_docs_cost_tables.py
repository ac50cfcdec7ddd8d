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
