#!/usr/bin/env python3
"""Terminate samebox EC2 instances that are past their samebox:expires-at tag.

Only instances tagged Project=<project> are ever looked at (the IAM role can
terminate nothing else either). An instance of ours whose expiry tag is missing
or unreadable counts as expired: no box may be left running.
With --run-id, every instance of that run is terminated whatever its expiry
(the bench workflow's always-run cleanup, after terraform destroy); with
--dispatch, every instance of that dispatch (all its studies and shares: what
cancelling a bench run means).
Prints a JSON report; exits 0 also when there was nothing to do.
"""
from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from datetime import datetime, timezone

import boto3

LIVE_STATES = ["pending", "running", "stopping", "stopped"]
EXPIRY_TAG = "samebox:expires-at"
RUN_TAG = "samebox:run-id"
DISPATCH_TAG = "samebox:dispatch"
TERMINATE_BATCH = 50  # ids per TerminateInstances call


@dataclass
class Report:
    terminated: list[dict] = field(default_factory=list)
    kept: list[dict] = field(default_factory=list)
    dry_run: bool = False

    def as_dict(self) -> dict:
        return {"dry_run": self.dry_run, "terminated": self.terminated, "kept": self.kept}


def parse_time(value: str) -> datetime:
    parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    if parsed.tzinfo is None:
        raise ValueError(f"{value!r} has no time zone")
    return parsed.astimezone(timezone.utc)


def find_instances(ec2, project: str, run_id: str | None, dispatch: str | None = None) -> list[dict]:
    filters = [
        {"Name": "tag:Project", "Values": [project]},
        {"Name": "instance-state-name", "Values": LIVE_STATES},
    ]
    if run_id:
        filters.append({"Name": f"tag:{RUN_TAG}", "Values": [run_id]})
    if dispatch:
        filters.append({"Name": f"tag:{DISPATCH_TAG}", "Values": [dispatch]})
    found = []
    for page in ec2.get_paginator("describe_instances").paginate(Filters=filters):
        for reservation in page["Reservations"]:
            found.extend(reservation["Instances"])
    return found


def decide(instance: dict, project: str, now: datetime, run_id: str | None,
           dispatch: str | None = None) -> tuple[bool, str]:
    tags = {tag["Key"]: tag["Value"] for tag in instance.get("Tags", [])}
    if tags.get("Project") != project:  # belt and braces: the filter already did this
        return False, "not ours"
    if dispatch:
        return tags.get(DISPATCH_TAG) == dispatch, f"dispatch {dispatch} cancelled"
    if run_id:
        return tags.get(RUN_TAG) == run_id, f"run {run_id} cleanup"
    raw = tags.get(EXPIRY_TAG)
    if raw is None:
        return True, f"no {EXPIRY_TAG} tag"
    try:
        expires = parse_time(raw)
    except ValueError:
        return True, f"unreadable {EXPIRY_TAG} {raw!r}"
    if expires <= now:
        return True, f"expired at {raw}"
    return False, f"expires at {raw}"


def reap(ec2, project: str, now: datetime, run_id: str | None = None, dry_run: bool = False,
         dispatch: str | None = None) -> Report:
    report = Report(dry_run=dry_run)
    doomed = []
    for instance in find_instances(ec2, project, run_id, dispatch):
        terminate, reason = decide(instance, project, now, run_id, dispatch)
        entry = {
            "instance_id": instance["InstanceId"],
            "state": instance["State"]["Name"],
            "run_id": next((t["Value"] for t in instance.get("Tags", []) if t["Key"] == RUN_TAG), None),
            "reason": reason,
        }
        (report.terminated if terminate else report.kept).append(entry)
        if terminate:
            doomed.append(instance["InstanceId"])
    if not dry_run:
        for start in range(0, len(doomed), TERMINATE_BATCH):
            ec2.terminate_instances(InstanceIds=doomed[start:start + TERMINATE_BATCH])
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--region", required=True)
    parser.add_argument("--project", default="samebox")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--run-id", help="terminate every instance of this run, expired or not")
    which.add_argument("--dispatch", help="terminate every instance of this dispatch (<UTC start>-<profile>-<type>), expired or not")
    parser.add_argument("--now", help="pretend it is this UTC time (RFC 3339); default: the clock")
    parser.add_argument("--dry-run", action="store_true", help="report, terminate nothing")
    parser.add_argument("--endpoint-url", help="EC2 API endpoint (tests point this at a local emulator)")
    args = parser.parse_args(argv)
    try:
        now = parse_time(args.now) if args.now else datetime.now(timezone.utc)
    except ValueError as error:
        print(f"error: --now {args.now!r} is not an RFC 3339 time with zone, e.g. 2025-01-01T12:00:00Z ({error})", file=sys.stderr)
        return 2
    ec2 = boto3.client("ec2", region_name=args.region, endpoint_url=args.endpoint_url)
    report = reap(ec2, args.project, now, run_id=args.run_id, dry_run=args.dry_run, dispatch=args.dispatch)
    print(json.dumps(report.as_dict(), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
