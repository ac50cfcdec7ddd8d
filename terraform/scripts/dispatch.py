#!/usr/bin/env python3
"""The job-free bench flow: no GitHub job waits on a box. A dispatch is a record in the state bucket,
every launch and every collect is decided here from that record, S3 and EC2:

  s3://<state>/runs/dispatches/<dispatch>/plan.json          the matrix and the settings (bench writes it)
  s3://<state>/runs/dispatches/<dispatch>/<run-id>.json      one per launched share: instance, prefix, expiry
  s3://<state>/runs/dispatches/<dispatch>/closed.json        collected (PR opened) or cancelled

`tick` decides what to launch now and which dispatches are ready to collect:
  * a live instance is any Project=<project> instance not terminated (pending, running, shutting-down,
    stopping, stopped): SAMEBOX_MAX_BOXES caps those, whatever GitHub jobs exist; and the live
    instances' vCPUs plus the next box's must fit the account's on-demand standard vCPU quota
    (quota_check.py), so a launch never fails on AWS's side and no share silently goes missing;
  * a launched share is final once it has its done marker, its instance is gone, it never wrote
    started.json within --started-within-minutes (15) of its launch (reported failed: "never started"),
    or it is past its expiry, or it went **silent**: started, but no heartbeat (progress.json, rewritten
    with every periodic sync, 5 min apart) for --silent-after-minutes (60) while its instance still runs
    (a hung box is not paid for until its limit); a dispatch whose shares are all final (or cancelled) is ready.
Subcommands: record, tick, launched, show, close, cancel. Exit 2 on bad input, naming what is valid.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from datetime import datetime, timedelta, timezone

import boto3
from botocore.exceptions import ClientError

import quota_check
from ec2_known import described

ROOT = "runs/dispatches/"
DISPATCH = re.compile(r"^[0-9]{8}T[0-9]{6}Z-[a-z0-9-]+$")
LIVE_STATES = ["pending", "running", "shutting-down", "stopping", "stopped"]
GONE_STATES = {"terminated", "shutting-down"}
FINAL = {"done", "gone", "never started", "expired", "silent", "cancelled", "launch failed"}
# Found final by a tick while the instance still runs: terminated at once (settle).
TERMINATED_WHEN_FOUND = {"never started", "expired", "silent"}
# A started box rewrites progress.json every upload interval (300 s) after syncs bounded at 600 + 300 s
# (run-on-box.sh start_uploader), so heartbeats are at most ~20 min apart; after the last one the final
# upload (within the 15 min upload margin) may still run. 60 min of silence is none of those.
SILENT_AFTER = timedelta(minutes=60)
# Each launch is a terraform init + apply (a few minutes) run one after another in the tick's job, whose
# timeout is 30 minutes (bench.yml launch, collect.yml tick): a tick launches at most this many, the rest at
# the next tick, so no job is killed in the middle of an apply.
LAUNCHES_PER_TICK = 8


class InputError(ValueError):
    pass


def parse_time(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(timezone.utc)


def stamp(when: datetime) -> str:
    return when.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def max_boxes_of(raw: str) -> int:
    """SAMEBOX_MAX_BOXES as given to the workflow: a whole number from 1 to 100."""
    if not re.fullmatch(r"[0-9]+", raw.strip() or "x") or not 1 <= int(raw) <= 100:
        raise InputError(f"SAMEBOX_MAX_BOXES {raw!r} is not valid: a whole number from 1 to 100 (instances running at once)")
    return int(raw)


def get_json(s3, bucket: str, key: str) -> dict | None:
    try:
        return json.loads(s3.get_object(Bucket=bucket, Key=key)["Body"].read())
    except ClientError as error:
        if error.response["Error"]["Code"] in {"NoSuchKey", "404", "AccessDenied", "403"}:
            return None
        raise


def put_json(s3, bucket: str, key: str, value: dict) -> None:
    s3.put_object(Bucket=bucket, Key=key, Body=(json.dumps(value, indent=2) + "\n").encode(), ContentType="application/json")


def split_uri(uri: str) -> tuple[str, str]:
    bucket, _, prefix = uri[len("s3://"):].partition("/")
    return bucket, prefix


def open_dispatches(s3, bucket: str) -> list[str]:
    found = set()
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=ROOT, Delimiter="/"):
        for common in page.get("CommonPrefixes", []):
            found.add(common["Prefix"][len(ROOT):].rstrip("/"))
    return sorted(d for d in found if get_json(s3, bucket, f"{ROOT}{d}/closed.json") is None)


def live_instances(ec2, project: str) -> list[dict]:
    found = []
    filters = [{"Name": "tag:Project", "Values": [project]}, {"Name": "instance-state-name", "Values": LIVE_STATES}]
    for page in ec2.get_paginator("describe_instances").paginate(Filters=filters):
        for reservation in page["Reservations"]:
            found.extend(reservation["Instances"])
    return found


def silence(s3, bucket: str, prefix: str, now: datetime, silent_after: timedelta) -> bool:
    """Whether a started box's newest heartbeat (`at` of started.json, progress.json) is older than
    silent_after, or 3 of its upload intervals when longer; a box that uploads only at the end
    (upload_interval_s 0) writes no progress.json and is never silent."""
    times, interval = [], None
    for marker in ("started.json", "progress.json"):
        beat = get_json(s3, bucket, prefix + marker) or {}
        if isinstance(beat.get("upload_interval_s"), int):
            interval = beat["upload_interval_s"]
        try:
            times.append(parse_time(beat["at"]))
        except (KeyError, TypeError, ValueError):
            pass
    if not times or interval == 0:
        return False
    return now - max(times) >= max(silent_after, timedelta(seconds=3 * (interval or 0)))


def instance_states(ec2, instance_id: str | None) -> list[str]:
    """The instance's state; none once EC2 has forgotten it (ec2_known.described)."""
    return [i["State"]["Name"] for i in described(ec2, [instance_id])] if instance_id else []


def share_status(s3, ec2, launched: dict | None, now: datetime, started_within: timedelta, cancelled: bool,
                 silent_after: timedelta = SILENT_AFTER) -> str:
    if launched is None:
        return "cancelled" if cancelled else "queued"
    if launched.get("failed"):
        return "launch failed"
    bucket, prefix = split_uri(launched["results_prefix"])
    if get_json(s3, bucket, prefix + "done.json") is not None:
        return "done"
    if launched.get("verdict"):  # a tick already found it final (and terminated it)
        return launched["verdict"]
    launched_at = parse_time(launched["launched_at"])
    # Before "gone": a box that died or was terminated before its heartbeat never started.
    if now - launched_at >= started_within and get_json(s3, bucket, prefix + "started.json") is None:
        return "never started"
    states = instance_states(ec2, launched.get("instance_id"))
    if not states or all(state in GONE_STATES for state in states):
        return "gone"
    if now >= parse_time(launched["expires_at"]):
        return "expired"
    if silence(s3, bucket, prefix, now, silent_after):
        return "silent"
    return "cancelled" if cancelled else "running"


def settle(s3, ec2, bucket: str, view: dict) -> tuple[list[str], list[dict]]:
    """A share found never started, expired or silent is terminated now (not when its dispatch closes: a
    stuck box costs until then) and its verdict stored in its launch record, so later ticks report the same."""
    terminated, settled = [], []
    for share in view["shares"]:
        launched = share.get("launched") or {}
        if share["status"] in TERMINATED_WHEN_FOUND | {"gone"} and not launched.get("verdict"):
            if share["status"] in TERMINATED_WHEN_FOUND and launched.get("instance_id"):
                ec2.terminate_instances(InstanceIds=[launched["instance_id"]])
                terminated.append(launched["instance_id"])
            put_json(s3, bucket, f"{ROOT}{view['dispatch']}/{share['run_id']}.json", {**launched, "verdict": share["status"]})
            settled.append({"run_id": share["run_id"], "status": share["status"]})
    return terminated, settled


def dispatch_view(s3, ec2, bucket: str, dispatch: str, now: datetime, started_within: timedelta,
                  silent_after: timedelta = SILENT_AFTER) -> dict:
    plan = get_json(s3, bucket, f"{ROOT}{dispatch}/plan.json")
    if plan is None:
        raise InputError(f"dispatch {dispatch!r} has no s3://{bucket}/{ROOT}{dispatch}/plan.json")
    closed = get_json(s3, bucket, f"{ROOT}{dispatch}/closed.json") or {}
    cancelled = get_json(s3, bucket, f"{ROOT}{dispatch}/cancelled.json") is not None
    shares = []
    for entry in plan["matrix"]:
        launched = get_json(s3, bucket, f"{ROOT}{dispatch}/{entry['run_id']}.json")
        status = share_status(s3, ec2, launched, now, started_within, cancelled, silent_after)
        shares.append({**entry, "status": status, **({"launched": launched} if launched else {})})
    return {**plan, "shares": shares, "closed": closed.get("state"),
            "ready": all(s["status"] in FINAL for s in shares)}


def adopt(s3, bucket: str, views: list[dict], live: list[dict], results_root: str | None) -> list[dict]:
    """A share still queued in the records whose instance lives anyway (a launch job cancelled after
    terraform created the instance, before `launched` was recorded) is never launched twice: with
    results_root (s3://<results>/boxes/<box-role-id>:) its launch record is written from the instance
    (launch time, samebox:expires-at tag) and it is followed like any other; without, it is held back."""
    by_run = {}
    for instance in live:
        tags = {t["Key"]: t["Value"] for t in instance.get("Tags", [])}
        if tags.get("samebox:run-id"):
            by_run[tags["samebox:run-id"]] = (instance, tags)
    found = []
    for view in views:
        for share in view["shares"]:
            if share["status"] != "queued" or share["run_id"] not in by_run:
                continue
            instance, tags = by_run[share["run_id"]]
            found.append({"run_id": share["run_id"], "instance_id": instance["InstanceId"], "recorded": results_root is not None})
            if results_root is None:
                share["status"] = "launch unrecorded"
                continue
            launched_at = instance["LaunchTime"]
            expires_at = tags.get("samebox:expires-at") or stamp(launched_at + timedelta(minutes=int(share["max_minutes"]) + 30))
            record = {"run_id": share["run_id"], "instance_id": instance["InstanceId"], "launched_at": stamp(launched_at),
                      "results_prefix": f"{results_root}{instance['InstanceId']}/", "expires_at": expires_at, "adopted": True}
            put_json(s3, bucket, f"{ROOT}{view['dispatch']}/{share['run_id']}.json", record)
            share.update(status="running", launched=record)
    return found


def tick(s3, ec2, quotas, bucket: str, max_boxes: int, now: datetime, project: str = "samebox",
         started_within: timedelta = timedelta(minutes=15), only: str | None = None,
         silent_after: timedelta = SILENT_AFTER, results_root: str | None = None) -> dict:
    """What to launch now (oldest dispatch first, matrix order) and which dispatches are ready."""
    dispatches = [only] if only else open_dispatches(s3, bucket)
    views = [dispatch_view(s3, ec2, bucket, d, now, started_within, silent_after) for d in dispatches]
    outcomes = [settle(s3, ec2, bucket, v) for v in views]
    terminated = [i for ids, _ in outcomes for i in ids]
    settled = [s for _, found in outcomes for s in found]
    live = [i for i in live_instances(ec2, project) if i["InstanceId"] not in terminated]
    adopted = adopt(s3, bucket, views, live, results_root)
    vcpus: dict[str, int] = {}

    def cpus(instance_type: str) -> int:
        if instance_type not in vcpus:
            vcpus[instance_type] = quota_check.vcpus_of(ec2, instance_type)
        return vcpus[instance_type]

    queued = [(v, s) for v in views for s in v["shares"] if s["status"] == "queued"]
    quota = quota_check.quota_vcpus(quotas) if queued else None
    live_vcpus = sum(cpus(i["InstanceType"]) for i in live) if queued else 0
    count, launch, waiting = len(live), [], None
    for view, share in queued:
        need = cpus(view["instance_type"])
        if count >= max_boxes:
            waiting = f"{count} instances live, SAMEBOX_MAX_BOXES is {max_boxes}"
            break
        if len(launch) >= LAUNCHES_PER_TICK:
            waiting = f"{len(launch)} launches this tick (at most {LAUNCHES_PER_TICK}, each a terraform apply in one job); the rest at the next tick"
            break
        if live_vcpus + need > quota:
            waiting = (f"{live_vcpus} vCPUs live + {need} ({view['instance_type']}) > the account's quota of {quota:.0f} "
                       f"(Service Quotas ec2/{quota_check.STANDARD_ON_DEMAND_VCPUS})")
            break
        count, live_vcpus = count + 1, live_vcpus + need
        launch.append({**{k: view[k] for k in ("dispatch", "profile", "instance_type", "commit")}, "ami_id": view.get("ami_id", ""),
                       **{k: share[k] for k in ("study", "systems", "workloads", "variants", "run_id", "max_minutes")}})
    return {"live_instances": len(live), "max_boxes": max_boxes, "launch": launch, "waiting": waiting, "terminated": terminated, "settled": settled,
            "adopted": adopted,
            "ready": [v["dispatch"] for v in views if v["ready"]],
            "shares": [{"dispatch": v["dispatch"], "run_id": s["run_id"], "status": s["status"]} for v in views for s in v["shares"]]}


def record(s3, bucket: str, dispatch: str, matrix: list[dict], settings: dict) -> dict:
    if not DISPATCH.match(dispatch):
        raise InputError(f"dispatch {dispatch!r} is not <UTC start>-<profile>-<type>, e.g. 20300101T120000Z-smoke-c6a-4xlarge")
    if not matrix or any(not e.get("run_id", "").startswith(dispatch + "-") for e in matrix):
        raise InputError(f"every run id of the matrix must start with {dispatch}- (the bench plan's output)")
    plan = {"dispatch": dispatch, "matrix": matrix, **settings}
    put_json(s3, bucket, f"{ROOT}{dispatch}/plan.json", plan)
    return plan


def cancel(s3, ec2, bucket: str, dispatch: str, project: str = "samebox") -> dict:
    """Every box of the dispatch terminated, no queued share launched; the next tick collects what they synced."""
    import reaper
    if get_json(s3, bucket, f"{ROOT}{dispatch}/plan.json") is None:
        raise InputError(f"dispatch {dispatch!r} has no s3://{bucket}/{ROOT}{dispatch}/plan.json (open ones: {', '.join(open_dispatches(s3, bucket)) or 'none'})")
    put_json(s3, bucket, f"{ROOT}{dispatch}/cancelled.json", {"at": stamp(datetime.now(timezone.utc))})
    report = reaper.reap(ec2, project, datetime.now(timezone.utc), dispatch=dispatch)
    return {"dispatch": dispatch, "cancelled": True, "terminated": [t["instance_id"] for t in report.terminated]}


def delete_expiry(scheduler, run_id: str, group: str) -> None:
    """A box's expiry schedule (terraform/run: named by its run id, in the project's group); gone already is fine."""
    try:
        scheduler.delete_schedule(Name=run_id[:64], GroupName=group)
    except ClientError as error:
        if error.response["Error"]["Code"] != "ResourceNotFoundException":
            raise


def close(s3, ec2, bucket: str, dispatch: str, state: str, project: str = "samebox", scheduler=None) -> dict:
    """Terminate whatever of the dispatch still lives, forget its terraform states and expiry schedules, mark it closed."""
    import reaper
    report = reaper.reap(ec2, project, datetime.now(timezone.utc), dispatch=dispatch)
    plan = get_json(s3, bucket, f"{ROOT}{dispatch}/plan.json") or {"matrix": []}
    for entry in plan["matrix"]:
        for key in (f"runs/{entry['run_id']}.tfstate", f"runs/{entry['run_id']}.tfstate.tflock"):
            s3.delete_object(Bucket=bucket, Key=key)
        if scheduler is not None:
            delete_expiry(scheduler, entry["run_id"], project)
    closed = {"state": state, "at": stamp(datetime.now(timezone.utc)), "terminated": [t["instance_id"] for t in report.terminated]}
    put_json(s3, bucket, f"{ROOT}{dispatch}/closed.json", closed)
    return closed


def pinned_settings(ec2, pricing, region: str, instance_type: str, ami_id: str, now: datetime) -> dict:
    """What every box of a dispatch shares, resolved once when it is recorded: the image (a newer one published
    while its shares wait would make the boxes of one comparison differ) and the listed price of its type."""
    import ec2_price
    import preflight
    if ami_id and not re.fullmatch(r"ami-[0-9a-f]{8,17}", ami_id):
        raise InputError(f"--ami-id {ami_id!r}: expected an AMI id like ami-0123456789abcdef0, or nothing for the newest Ubuntu 24.04")
    return {"ami_id": ami_id or preflight.newest_ubuntu(ec2), "price": ec2_price.lookup(pricing, region, instance_type, now)}


def main(argv: list[str] | None = None, s3=None, ec2=None, quotas=None, pricing=None, scheduler=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--region", required=True)
    parser.add_argument("--state-bucket", required=True)
    parser.add_argument("--endpoint-url", help="S3/EC2 endpoint (tests: moto); Service Quotas always the real one")
    parser.add_argument("--now", help="UTC time (tests); default: the clock")
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record", help="store a dispatch's plan (bench, before any launch)")
    rec.add_argument("--dispatch", required=True)
    rec.add_argument("--matrix-json", required=True)
    for name in ("profile", "instance-type", "commit", "publish"):
        rec.add_argument(f"--{name}", required=True)
    rec.add_argument("--ami-id", default="", help="the image every box boots; default: the newest Canonical Ubuntu 24.04, looked up now")
    tic = sub.add_parser("tick", help="what to launch now, which dispatches are ready to collect")
    tic.add_argument("--max-boxes", required=True, help="SAMEBOX_MAX_BOXES: instances alive at once")
    tic.add_argument("--dispatch", help="only this dispatch")
    tic.add_argument("--started-within-minutes", type=float, default=15)
    tic.add_argument("--silent-after-minutes", type=float, default=SILENT_AFTER.total_seconds() / 60,
                     help="a started box without a heartbeat this long is hung: terminated")
    tic.add_argument("--results-root", help="s3://<results bucket>/boxes/<box role id>: (a box's prefix before its instance id): "
                     "adopt a share's instance that runs without a launch record")
    tic.add_argument("--github-output")
    tic.add_argument("--json-out", help="write the result here instead of stdout (stdout then carries only the "
                     "::error::/::warning:: lines, which a JSON reader of stdout would choke on)")
    lau = sub.add_parser("launched", help="record one share's launch (or its failure)")
    lau.add_argument("--dispatch", required=True)
    lau.add_argument("--run-id", required=True)
    lau.add_argument("--instance-id", default="")
    lau.add_argument("--results-prefix", default="")
    lau.add_argument("--max-minutes", type=int, required=True)
    lau.add_argument("--failed", action="store_true")
    sho = sub.add_parser("show", help="a dispatch with every share's status")
    sho.add_argument("--dispatch", required=True)
    clo = sub.add_parser("close", help="terminate what is left, drop the states, mark collected")
    clo.add_argument("--dispatch", required=True)
    can = sub.add_parser("cancel", help="terminate every box of the dispatch; nothing more is launched")
    can.add_argument("--dispatch", required=True)
    args = parser.parse_args(argv)
    s3 = s3 or boto3.client("s3", region_name=args.region, endpoint_url=args.endpoint_url)
    ec2 = ec2 or boto3.client("ec2", region_name=args.region, endpoint_url=args.endpoint_url)
    now = parse_time(args.now) if args.now else datetime.now(timezone.utc)
    bucket = args.state_bucket
    try:
        if getattr(args, "dispatch", None) and not DISPATCH.match(args.dispatch):
            raise InputError(f"dispatch {args.dispatch!r} is not <UTC start>-<profile>-<type>, e.g. 20300101T120000Z-smoke-c6a-4xlarge")
        if args.command == "record":
            if args.publish not in ("yes", "no"):
                raise InputError(f"--publish {args.publish!r}: valid are yes, no")
            try:
                matrix = json.loads(args.matrix_json)
            except ValueError as error:
                raise InputError(f"--matrix-json is not JSON ({error}): give bench_matrix.py's matrix") from error
            import ec2_price
            pricing = pricing or boto3.client("pricing", region_name=ec2_price.PRICING_REGION)
            pinned = pinned_settings(ec2, pricing, args.region, args.instance_type, args.ami_id, now)
            result = record(s3, bucket, args.dispatch, matrix, {"profile": args.profile, "instance_type": args.instance_type,
                                                               "commit": args.commit, "publish": args.publish,
                                                               "recorded_at": stamp(now), **pinned})
        elif args.command == "tick":
            quotas = quotas or boto3.client("service-quotas", region_name=args.region)
            if args.results_root is not None and not re.fullmatch(r"s3://[a-z0-9.-]+/boxes/[A-Za-z0-9]+:", args.results_root):
                raise InputError(f"--results-root {args.results_root!r}: expected s3://<results bucket>/boxes/<box role id>:")
            if args.silent_after_minutes < 20:
                raise InputError(f"--silent-after-minutes {args.silent_after_minutes:g}: at least 20 (a box's heartbeats may be 20 min apart)")
            result = tick(s3, ec2, quotas, bucket, max_boxes_of(args.max_boxes), now,
                          started_within=timedelta(minutes=args.started_within_minutes), only=args.dispatch,
                          silent_after=timedelta(minutes=args.silent_after_minutes), results_root=args.results_root)
            why = {"never started": f"no started.json {args.started_within_minutes:g} min after its launch: terminated",
                   "expired": "past its expiry without a done marker: terminated", "gone": "its instance ended without a done marker",
                   "silent": f"started, then no heartbeat for {args.silent_after_minutes:g} min while its instance ran: hung, terminated"}
            for share in result["settled"]:  # reported once, when first found (the verdict is kept in its record)
                print(f"::error::{share['run_id']}: {share['status']} ({why[share['status']]})")
            for found in result["adopted"]:
                print(f"::warning::{found['run_id']}: instance {found['instance_id']} runs without a launch record (a launch job cancelled "
                      f"mid-apply): {'adopted, followed like any other' if found['recorded'] else 'not launched again; give --results-root to adopt it'}")
            if result["waiting"] and result["launch"] == [] and any(s["status"] == "queued" for s in result["shares"]):
                print(f"queued shares wait: {result['waiting']}", file=sys.stderr)
            if args.github_output:
                with open(args.github_output, "a", encoding="utf-8") as handle:
                    handle.write(f"launch={json.dumps(result['launch'], separators=(',', ':'))}\n"
                                 f"ready={json.dumps(result['ready'], separators=(',', ':'))}\n")
        elif args.command == "launched":
            if not args.failed and not (args.instance_id.startswith("i-") and args.results_prefix.startswith("s3://")):
                raise InputError("--instance-id i-... and --results-prefix s3://... are required unless --failed")
            result = {"run_id": args.run_id, "instance_id": args.instance_id, "results_prefix": args.results_prefix,
                      "launched_at": stamp(now), "expires_at": stamp(now + timedelta(minutes=args.max_minutes + 30)),
                      **({"failed": True} if args.failed else {})}
            put_json(s3, bucket, f"{ROOT}{args.dispatch}/{args.run_id}.json", result)
        elif args.command == "show":
            result = dispatch_view(s3, ec2, bucket, args.dispatch, now, timedelta(minutes=15))
        else:
            if args.command == "close":
                scheduler = scheduler or boto3.client("scheduler", region_name=args.region, endpoint_url=args.endpoint_url)
                result = close(s3, ec2, bucket, args.dispatch, "collected", scheduler=scheduler)
            else:
                result = cancel(s3, ec2, bucket, args.dispatch)
    except InputError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    text = json.dumps(result, indent=2)
    if getattr(args, "json_out", None):
        with open(args.json_out, "w", encoding="utf-8") as handle:
            handle.write(text + "\n")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
