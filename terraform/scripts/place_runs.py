#!/usr/bin/env python3
"""The collect workflow's publish step: move every collected run folder into data/runs/ (never over
an existing one) and write one pull request description with a row per study."""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
from collections import Counter
from pathlib import Path

# GitHub refuses a pull request title over 256 characters: the branch is pushed and no PR opens.
MAX_TITLE = 256


def describe(entry: dict, folder: Path) -> dict:
    def load(name: str) -> dict:
        try:
            return json.loads((folder / name).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
    done, cost, manifest = load("done.json"), load("cost.json"), load("run/manifest.json")
    usd = cost.get("usd")
    return {
        "study": entry["study"], "run_id": entry["run_id"], "limit": entry["max_minutes"],
        # Without a marker, the collect tick's verdict (never started, gone, expired, ...).
        "status": done.get("status", entry.get("outcome") if entry.get("outcome") not in (None, "done") else "no done marker"),
        "wall": f"{done['duration_s'] / 60:.0f} min" if isinstance(done.get("duration_s"), (int, float)) else "unknown",
        "cost": f"${usd:.2f}" if isinstance(usd, (int, float)) else f"unknown ({cost.get('reason', 'no cost computed')})",
        "ami": done.get("ami_id", "unknown"),
        "noise": noise_guard_of(manifest),
    }


def noise_guard_of(manifest: dict) -> str:
    """What the run's noise guard saw (manifest.json's noise_guard): disturbed cells, and a host slower than the
    previous run of this instance label, which a cloud box records instead of refusing (pipeline/runner/run-start.ts)."""
    if not manifest:
        return "unknown"
    guard = manifest.get("noise_guard") or {}
    if not guard:
        return "not recorded"
    text = f"{guard.get('mode', '?')}: {guard.get('flagged', 0)} flagged, {guard.get('noisy', 0)} noisy"
    before = guard.get("before_run") or {}
    ref = before.get("host_reference") or {}
    probe, ref_probe = before.get("host_probe_ms"), ref.get("host_probe_ms")
    if before.get("host_slower") and isinstance(probe, (int, float)) and isinstance(ref_probe, (int, float)) and ref_probe > 0:
        text += f"; **host {round((probe / ref_probe - 1) * 100)} % slower** on the probe than `{ref.get('run_id', '?')}`"
    if before.get("busy"):
        text += f"; **busy before the run** ({before.get('reason', '')})"
    return text


def dispatch_of(entry: dict) -> str:
    """The run id without its study part: <UTC start>-<profile>-<type> (a share's -<k>of<n> too)."""
    return re.sub(rf"-{re.escape(entry['study'])}(-[0-9]+of[0-9]+)?$", "", entry["run_id"])


def pr_title(branch: str, rows: list[dict]) -> str:
    """One line whatever the matrix size: the dispatch and a count per status (the table is in the body)."""
    counts = Counter(r["status"] for r in rows)
    if len(counts) == 1:
        summary = f"{len(rows)} {'box' if len(rows) == 1 else 'boxes'} {next(iter(counts))}"
    else:
        summary = f"{len(rows)} boxes: " + ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
    title = f"data: cloud run {branch} ({summary})"
    return title if len(title) <= MAX_TITLE else title[: MAX_TITLE - 2] + "…)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--incoming", type=Path, required=True, help="collect's download: <run-id>/{run/,done.json,cost.json}")
    parser.add_argument("--matrix-json", required=True)
    parser.add_argument("--runs-dir", type=Path, default=Path("data/runs"))
    parser.add_argument("--body", type=Path, required=True)
    parser.add_argument("--github-output", type=Path)
    args = parser.parse_args(argv)
    entries = json.loads(args.matrix_json)
    rows, placed = [], []
    for entry in entries:
        folder = args.incoming / entry["run_id"]
        row = describe(entry, folder)
        source = folder / "run"
        target = args.runs_dir / entry["run_id"]
        if not (source / "manifest.json").is_file():
            row["status"] += ", no run folder"
        elif target.exists():
            print(f"error: {target} already exists; run folders are append-only", file=sys.stderr)
            return 1
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(str(source), str(target))
            placed.append(entry["run_id"])
        rows.append(row)
    env = os.environ
    lines = [f"Cloud runs measured on EC2 {env.get('INSTANCE_TYPE', '?')}, profile `{env.get('PROFILE', '?')}`, one box per study.", "",
             "| study | run | status | box wall time | limit | cost | AMI | noise guard |", "|---|---|---|---|---|---|---|---|"]
    lines += [f"| {r['study']} | `{r['run_id']}` | {r['status']} | {r['wall']} | {r['limit']} min | {r['cost']} | {r['ami']} | {r['noise']} |"
              for r in rows]
    if env.get("GITHUB_RUN_ID"):
        lines += ["", f"Raw box logs: the `collected-<dispatch>` artifact of {env.get('GITHUB_SERVER_URL')}/{env.get('GITHUB_REPOSITORY')}/actions/runs/{env['GITHUB_RUN_ID']}."]
    args.body.write_text("\n".join(lines) + "\n", encoding="utf-8")
    branch = next((dispatch_of(e) for e in entries if e["run_id"] in placed), "")
    outputs = {
        "runs": str(len(placed)),
        "run_ids": " ".join(placed),
        "branch": branch,
        "title": pr_title(branch, rows),
    }
    if args.github_output:
        with args.github_output.open("a", encoding="utf-8") as handle:
            handle.write("".join(f"{k}={v}\n" for k, v in outputs.items()))
    print(json.dumps(outputs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
