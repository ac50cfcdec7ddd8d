#!/usr/bin/env python3
"""The bench workflow's fan-out: one box (one run id, one Terraform state) per box of the estimate.

A study is one box, or several when it cannot finish inside one box's limit: then each box runs a
share of its workloads, with every system of the study. Each entry carries the study, its systems,
its workloads ("" = all), its run id (<UTC start>-<profile>-<instance type>-<study>[-<k>of<n>]) and
its hard limit in minutes, which the estimate derived for that box.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
from datetime import datetime, timezone
from pathlib import Path

RUN_ID = re.compile(r"^[0-9]{8}T[0-9]{6}Z-[a-z0-9-]+$")


def dispatch_id(estimate: dict, now: datetime) -> str:
    """<UTC start>-<profile>-<instance type>: every box's samebox:dispatch tag, what cancel terminates by."""
    return f"{now.strftime('%Y%m%dT%H%M%SZ')}-{estimate['profile']}-{estimate['instance_type'].replace('.', '-')}"


def matrix(estimate: dict, now: datetime) -> list[dict]:
    dispatch = dispatch_id(estimate, now)
    entries = []
    for study in estimate["studies"]:
        if not study["fits"]:
            raise ValueError(f"study {study['study']} needs {study['limit_minutes']} min: more than one box may run")
        boxes = study.get("boxes") or [{"workloads": None, "limit_minutes": study["limit_minutes"]}]
        for k, box in enumerate(boxes, start=1):
            suffix = f"-{k}of{len(boxes)}" if len(boxes) > 1 else ""
            run_id = f"{dispatch}-{study['study']}{suffix}"
            if not RUN_ID.match(run_id):
                raise ValueError(f"run id {run_id!r} is not YYYYMMDDTHHMMSSZ-<lowercase slug>")
            entries.append({"study": study["study"], "systems": ",".join(study["systems"]),
                            "workloads": ",".join(box["workloads"] or []),
                            "variants": ",".join(box.get("variants") or []), "run_id": run_id,
                            "max_minutes": box["limit_minutes"]})
    if not entries:
        raise ValueError("the estimate has no study: nothing to launch")
    return entries


def select_share(entries: list[dict], dispatch: str, share: str) -> list[dict]:
    """One share run again alone: <study> or <study>-<k>of<n> as the run ids end (a new dispatch, new run id)."""
    if not share:
        return entries
    names = [e["run_id"][len(dispatch) + 1:] for e in entries]
    if share not in names:
        raise ValueError(f"share {share!r} is not one of this plan's: {', '.join(names)}")
    return [entries[names.index(share)]]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--estimate", type=Path, required=True, help="`samebox estimate --json` output")
    parser.add_argument("--github-output", type=Path)
    parser.add_argument("--now", help="UTC start (tests); default: the clock")
    parser.add_argument("--share", default="", help="run only this share again: <study> or <study>-<k>of<n>")
    args = parser.parse_args(argv)
    now = datetime.fromisoformat(args.now.replace("Z", "+00:00")) if args.now else datetime.now(timezone.utc)
    try:
        estimate = json.loads(args.estimate.read_text(encoding="utf-8"))
        entries = select_share(matrix(estimate, now), dispatch_id(estimate, now), args.share.strip())
    except (OSError, ValueError, KeyError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    line = "matrix=" + json.dumps(entries, separators=(",", ":"))
    if args.github_output:
        with args.github_output.open("a", encoding="utf-8") as handle:
            handle.write(f"{line}\ndispatch={dispatch_id(estimate, now)}\n")
    print(line)
    for entry in entries:
        print(f"{entry['study']}: {entry['run_id']}, limit {entry['max_minutes']} min, systems {entry['systems']}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("TZ", "UTC")
    sys.exit(main())
