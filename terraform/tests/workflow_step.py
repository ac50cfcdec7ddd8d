#!/usr/bin/env python3
"""Print the `run:` script of one step of a workflow job (pipeline/bin/test.d/51-workflow-steps.sh runs
it the way GitHub does: bash --noprofile --norc -eo pipefail). Exit 2 naming what exists when the
job or step is not there."""
from __future__ import annotations

import sys

import yaml


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print("usage: workflow_step.py <workflow.yml> <job> <step name>", file=sys.stderr)
        return 2
    path, job_name, step_name = argv
    with open(path, encoding="utf-8") as handle:
        jobs = yaml.safe_load(handle)["jobs"]
    if job_name not in jobs:
        print(f"error: {path} has no job {job_name!r}; jobs: {', '.join(jobs)}", file=sys.stderr)
        return 2
    steps = [s for s in jobs[job_name]["steps"] if "run" in s]
    for step in steps:
        if step.get("name") == step_name:
            print(step["run"])
            return 0
    print(f"error: job {job_name!r} has no run step {step_name!r}; run steps: {', '.join(repr(s.get('name')) for s in steps)}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
