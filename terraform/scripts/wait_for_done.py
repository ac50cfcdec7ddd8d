#!/usr/bin/env python3
"""Wait, with a bound, for a box's done marker (<prefix>done.json) in S3.

Stops early when every watched instance is already gone (terminated or
shutting down) and the marker still has not appeared after a grace period:
no point waiting for a machine that can no longer write.
Exit 0: marker found, its JSON printed (its "status" may still say the run
failed). Exit 3: no marker within the bound. Exit 4: the instances are gone
and no marker came. Exit 5: the API failed MAX_CONSECUTIVE_ERRORS polls in a row.
Exit 6 (with --started-within-minutes): neither the box's heartbeat (started.json) nor its done
marker appeared that long after the launch: a box that never started fails in minutes, not hours.
AccessDenied on the marker counts as "not written yet" (see NOT_YET_CODES).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import datetime, timezone

import boto3
from botocore.exceptions import BotoCoreError, ClientError

from ec2_known import described

GONE_STATES = {"shutting-down", "terminated"}
# The bench role may list the results bucket only under boxes/*, and S3 answers a GET of a missing
# key with 403 (not 404) to a caller who cannot list it: a marker not written yet can look like
# AccessDenied. So both mean "not yet".
NOT_YET_CODES = {"NoSuchKey", "404", "AccessDenied", "403"}
# Throttling, 5xx and network errors are retried; this many in a row end the wait (exit 5).
MAX_CONSECUTIVE_ERRORS = 10


def read_marker(s3, bucket: str, key: str) -> dict | None:
    try:
        body = s3.get_object(Bucket=bucket, Key=key)["Body"].read()
    except ClientError as error:
        if error.response["Error"]["Code"] in NOT_YET_CODES:
            return None
        raise
    return json.loads(body)


def instances_gone(ec2, instance_ids: list[str]) -> bool:
    """Every watched instance shutting down, terminated or forgotten by EC2."""
    if not instance_ids:
        return False
    return all(i["State"]["Name"] in GONE_STATES for i in described(ec2, instance_ids))


def seconds_since_launch(ec2, instance_ids: list[str]) -> float:
    """How long ago the earliest watched instance was launched (0 when unknown)."""
    if ec2 is None or not instance_ids:
        return 0.0
    launched = [i["LaunchTime"] for i in described(ec2, instance_ids) if i.get("LaunchTime")]
    return max((datetime.now(timezone.utc) - min(launched)).total_seconds(), 0.0) if launched else 0.0


def wait(s3, ec2, bucket: str, key: str, instance_ids: list[str], timeout_s: float,
         interval_s: float, grace_s: float, clock=time.monotonic, sleep=time.sleep,
         started_key: str | None = None, started_within_s: float | None = None) -> tuple[int, dict | None]:
    deadline = clock() + timeout_s
    started_deadline = clock() + started_within_s if started_key and started_within_s is not None else None
    gone_since = None
    errors = 0
    while True:
        try:
            marker = read_marker(s3, bucket, key)
            if marker is None and started_deadline is not None and read_marker(s3, bucket, started_key) is not None:
                started_deadline = None  # the box is alive: from now on only the done marker counts
            gone = ec2 is not None and instances_gone(ec2, instance_ids)
            errors = 0
        except (ClientError, BotoCoreError) as error:  # transient: throttled, 5xx, connection reset
            errors += 1
            print(f"warning: poll {errors}/{MAX_CONSECUTIVE_ERRORS} failed: {error}", file=sys.stderr)
            if errors >= MAX_CONSECUTIVE_ERRORS:
                return 5, None
            marker, gone = None, False
        if marker is not None:
            return 0, marker
        now = clock()
        if started_deadline is not None and now >= started_deadline:
            return 6, None
        if gone:
            gone_since = gone_since if gone_since is not None else now
            if now - gone_since >= grace_s:
                return 4, None
        if now >= deadline:
            return 3, None
        sleep(min(interval_s, max(deadline - now, 0.01)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--uri", required=True, help="s3://bucket/prefix/ the box uploads to")
    parser.add_argument("--region", required=True)
    parser.add_argument("--instance-id", action="append", default=[], help="watch this instance (repeatable)")
    parser.add_argument("--timeout-minutes", type=float, required=True)
    parser.add_argument("--interval-seconds", type=float, default=60)
    parser.add_argument("--grace-seconds", type=float, default=180, help="after the instances are gone")
    parser.add_argument("--started-within-minutes", type=float,
                        help="fail (exit 6) when the box's started.json has not appeared this long after its launch")
    parser.add_argument("--endpoint-url", help="S3/EC2 endpoint (tests use a local emulator)")
    args = parser.parse_args(argv)
    if not args.uri.startswith("s3://") or "/" not in args.uri[5:]:
        print(f"error: --uri {args.uri!r} is not s3://bucket/prefix/", file=sys.stderr)
        return 2
    bucket, _, prefix = args.uri[5:].partition("/")
    key = (prefix.rstrip("/") + "/done.json") if prefix else "done.json"
    s3 = boto3.client("s3", region_name=args.region, endpoint_url=args.endpoint_url)
    ec2 = boto3.client("ec2", region_name=args.region, endpoint_url=args.endpoint_url) if args.instance_id else None
    started_key = key[: -len("done.json")] + "started.json"
    started_within_s = None
    if args.started_within_minutes is not None:
        started_within_s = args.started_within_minutes * 60 - seconds_since_launch(ec2, args.instance_id)
    code, marker = wait(s3, ec2, bucket, key, args.instance_id, args.timeout_minutes * 60,
                        args.interval_seconds, args.grace_seconds, started_key=started_key, started_within_s=started_within_s)
    if code == 0:
        print(json.dumps(marker, indent=2))
    elif code == 3:
        print(f"error: no s3://{bucket}/{key} within {args.timeout_minutes:g} minutes", file=sys.stderr)
    elif code == 6:
        print(f"error: the box never started: no s3://{bucket}/{started_key} {args.started_within_minutes:g} minutes after its launch "
              "(see the instance's system log in the EC2 console)", file=sys.stderr)
    elif code == 5:
        print(f"error: s3://{bucket}/{key}: {MAX_CONSECUTIVE_ERRORS} polls in a row failed (see the warnings above)", file=sys.stderr)
    else:
        print(f"error: instances {', '.join(args.instance_id)} are gone and s3://{bucket}/{key} never appeared", file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
