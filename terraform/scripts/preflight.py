#!/usr/bin/env python3
"""The $0 preflight of a dispatch against the real account: every check costs nothing and leaves
nothing behind. Identity (the assumed role), both buckets reachable (a state key not written yet answers 404, as
the S3 backend needs), the box role id against the box instance profile's role, the Ubuntu image terraform/run
would boot, `ec2 run-instances --dry-run` with the launch parameters terraform/run uses (so the IAM
launch conditions are exercised), the vCPU quota against the planned peak, and the repository
clonable anonymously (as the box clones it); with --terraform-plan also `terraform init` with the
real backend (the state bucket, key runs/<run-id>.tfstate) and `terraform plan -lock=false` of
terraform/run with the dispatch's first box (credentials, backend access, every variable's
validation, the image lookup; nothing is written, no lock taken). Prints one JSON line per check;
exit 1 when any failed, naming it.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from datetime import datetime, timedelta, timezone
from typing import Callable

import boto3
from botocore.exceptions import BotoCoreError, ClientError

import quota_check

UBUNTU_OWNER = "099720109477"
RUN_MODULE = Path(__file__).resolve().parents[1] / "run"
UBUNTU_NAME = "ubuntu/images/hvm-ssd-gp3/ubuntu-noble-24.04-amd64-server-*"


def newest_ubuntu(ec2) -> str:
    images = ec2.describe_images(Owners=[UBUNTU_OWNER], Filters=[
        {"Name": "name", "Values": [UBUNTU_NAME]}, {"Name": "architecture", "Values": ["x86_64"]},
        {"Name": "virtualization-type", "Values": ["hvm"]}])["Images"]
    if not images:
        raise RuntimeError(f"no image named {UBUNTU_NAME} from {UBUNTU_OWNER} in this region")
    return max(images, key=lambda image: image["CreationDate"])["ImageId"]


def launch_dry_run(ec2, args, ami: str) -> str:
    """The launch terraform/run makes (tags, IMDSv2, encrypted gp3, terminate on shutdown), with DryRun."""
    expires = (datetime.now(timezone.utc) + timedelta(minutes=60)).strftime("%Y-%m-%dT%H:%M:%SZ")
    tags = [{"Key": "Project", "Value": "samebox"}, {"Key": "samebox:run-id", "Value": args.run_id},
            {"Key": "samebox:expires-at", "Value": expires}, {"Key": "samebox:dispatch", "Value": args.run_id}]
    spec = dict(DryRun=True, MinCount=1, MaxCount=1, ImageId=ami, InstanceType=args.instance_type,
                IamInstanceProfile={"Name": args.box_profile}, InstanceInitiatedShutdownBehavior="terminate",
                MetadataOptions={"HttpEndpoint": "enabled", "HttpTokens": "required", "HttpPutResponseHopLimit": 1},
                BlockDeviceMappings=[{"DeviceName": "/dev/sda1", "Ebs": {"VolumeType": "gp3", "VolumeSize": args.root_volume_gb,
                                                                          "Encrypted": True, "DeleteOnTermination": True}}],
                NetworkInterfaces=[{"DeviceIndex": 0, "AssociatePublicIpAddress": True, "Groups": [args.security_group],
                                    **({"SubnetId": args.subnet} if args.subnet else {})}],
                TagSpecifications=[{"ResourceType": kind, "Tags": tags} for kind in ("instance", "volume")])
    try:
        ec2.run_instances(**spec)
    except ClientError as error:
        if error.response["Error"]["Code"] == "DryRunOperation":
            return f"would launch {args.instance_type} from {ami}"
        raise
    raise RuntimeError("run-instances without an error under DryRun: an instance may have been launched")


def missing_state_is_404(s3, bucket: str, run_id: str) -> str:
    """The S3 backend's first call for a new run: HeadObject of a state not written yet must be 404.
    S3 answers 403 instead to a caller without s3:ListBucket on the bucket, and Terraform stops there."""
    key = f"runs/{run_id}.tfstate"
    try:
        s3.head_object(Bucket=bucket, Key=key)
    except ClientError as error:
        code = error.response["Error"]["Code"]
        if code in {"404", "NoSuchKey", "NotFound"}:
            return f"HeadObject of the missing s3://{bucket}/{key} answers 404"
        if code in {"403", "AccessDenied", "Forbidden"}:
            raise RuntimeError(f"HeadObject of the missing s3://{bucket}/{key} answers 403, so terraform init cannot create "
                               "a run's state: the bench role needs s3:ListBucket on the state bucket without an s3:prefix "
                               "condition (re-apply terraform/bootstrap)") from error
        raise
    raise RuntimeError(f"s3://{bucket}/{key} exists: the preflight's run id must name no real state")


def box_role_id_matches(iam, profile: str, role_id: str) -> str:
    """SAMEBOX_BOX_ROLE_ID names every box's upload prefix (boxes/<role-id>:<instance-id>/): a wrong one makes every
    box look as if it never started, so it is compared with the role of the instance profile the boxes get."""
    roles = iam.get_instance_profile(InstanceProfileName=profile)["InstanceProfile"]["Roles"]
    ids = [role["RoleId"] for role in roles]
    if role_id not in ids:
        raise RuntimeError(f"SAMEBOX_BOX_ROLE_ID {role_id!r} is not the role of instance profile {profile!r} "
                           f"(its role id: {', '.join(ids) or 'none'}); set it to the bootstrap output SAMEBOX_BOX_ROLE_ID")
    return f"{role_id} is the role of instance profile {profile}"


def clone_check(url: str) -> str:
    env = dict(os.environ, GIT_TERMINAL_PROMPT="0", GIT_ASKPASS="/bin/false")
    result = subprocess.run(["git", "ls-remote", url, "HEAD"], capture_output=True, text=True, timeout=60, env=env)
    if result.returncode != 0:
        raise RuntimeError(f"git ls-remote {url} failed without credentials (a private repository needs the private-repo path): {result.stderr.strip()[-200:]}")
    return f"HEAD {result.stdout.split()[0][:12]} readable anonymously"


def plan_vars(args) -> dict:
    """terraform/run's variables for the dispatch's first box, as the launch step sets them."""
    expires = (datetime.now(timezone.utc) + timedelta(minutes=args.max_minutes + 30)).strftime("%Y-%m-%dT%H:%M:%SZ")
    values = {"region": args.region, "run_id": args.run_id, "expires_at": expires, "instance_type": args.instance_type,
              "profile": args.profile, "studies": [args.study], "systems": [s for s in args.systems.split(",") if s],
              "repository_url": args.repository_url, "commit": args.commit, "max_minutes": args.max_minutes,
              "results_bucket": args.results_bucket, "box_instance_profile": args.box_profile, "box_role_id": args.box_role_id,
              "box_security_group_id": args.security_group, "subnet_id": args.subnet, "expiry_role_arn": args.expiry_role_arn}
    if args.ami_id:
        values["ami_id"] = args.ami_id
    return values


def terraform_plan(args, run=subprocess.run) -> str:
    """init with the real backend, then plan without a lock: $0, nothing written."""
    env = dict(os.environ, TF_IN_AUTOMATION="1", TF_INPUT="0")
    with tempfile.TemporaryDirectory(prefix="samebox-preflight-") as work:
        var_file = Path(work) / "preflight.tfvars.json"
        var_file.write_text(json.dumps(plan_vars(args)), encoding="utf-8")
        calls = [[args.terraform, "init", "-input=false", "-reconfigure", "-no-color", f"-backend-config=bucket={args.state_bucket}",
                  f"-backend-config=key=runs/{args.run_id}.tfstate", f"-backend-config=region={args.region}"],
                 [args.terraform, "plan", "-input=false", "-lock=false", "-no-color", f"-var-file={var_file}"]]
        out = ""
        for cmd in calls:
            result = run(cmd, cwd=str(args.terraform_dir), env=env, capture_output=True, text=True, timeout=600)
            if result.returncode != 0:
                tail = (result.stderr or result.stdout).strip().splitlines()[-5:]
                raise RuntimeError(f"terraform {cmd[1]} failed (exit {result.returncode}): {' | '.join(tail)}")
            out = result.stdout
    summary = next((line.strip() for line in out.splitlines() if line.strip().startswith(("Plan:", "No changes"))), "plan made")
    return f"{summary} (backend s3://{args.state_bucket}/runs/{args.run_id}.tfstate, no lock)"


def run_checks(args, client: Callable[[str], object], run=subprocess.run) -> list[dict]:
    ec2 = client("ec2")
    state = {"ami": args.ami_id}

    def ami() -> str:
        state["ami"] = state["ami"] or newest_ubuntu(ec2)
        return state["ami"]

    def quota() -> str:
        report = quota_check.check(ec2, client("service-quotas"), args.instance_type, args.boxes, args.max_boxes)
        if not report["fits"]:
            raise RuntimeError(f"{report['peak_vcpus']} vCPUs at once, quota {report['quota_vcpus']:.0f}")
        return f"{report['peak_vcpus']} vCPUs at once within the quota of {report['quota_vcpus']:.0f}"

    def listable(bucket: str, prefix: str) -> str:
        # The prefix the bench role may list (results: boxes/; state: runs/), not the whole bucket.
        client("s3").list_objects_v2(Bucket=bucket, Prefix=prefix, MaxKeys=1)
        return f"s3://{bucket}/{prefix} listable"

    def state_bucket() -> str:
        return f"{listable(args.state_bucket, 'runs/')}; {missing_state_is_404(client('s3'), args.state_bucket, args.run_id)}"

    checks = [("identity", lambda: client("sts").get_caller_identity()["Arn"]),
              ("results bucket", lambda: listable(args.results_bucket, "boxes/")),
              ("state bucket", state_bucket)]
    if args.box_role_id:
        checks.append(("box role id", lambda: box_role_id_matches(client("iam"), args.box_profile, args.box_role_id)))
    if args.terraform_plan:
        checks.append(("terraform plan", lambda: terraform_plan(args, run)))
    checks += [("image", ami), ("launch dry run", lambda: launch_dry_run(ec2, args, ami())), ("vcpu quota", quota),
               ("anonymous clone", lambda: clone_check(args.repository_url))]
    results = []
    for name, check in checks:
        try:
            results.append({"check": name, "ok": True, "detail": str(check())})
        except (ClientError, BotoCoreError, RuntimeError, subprocess.SubprocessError, OSError) as error:
            results.append({"check": name, "ok": False, "detail": str(error)})
    return results


def main(argv: list[str] | None = None, client: Callable[[str], object] | None = None, run=subprocess.run) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name in ("region", "instance-type", "results-bucket", "state-bucket", "box-profile", "security-group", "repository-url"):
        parser.add_argument(f"--{name}", required=True)
    parser.add_argument("--subnet", default="")
    parser.add_argument("--ami-id", default="", help="skip the image lookup (terraform/run's ami_id)")
    parser.add_argument("--run-id", default="20000101T000000Z-preflight", help="the tag value of the dry-run launch")
    parser.add_argument("--root-volume-gb", type=int, default=200)  # terraform/run root_volume_gb
    parser.add_argument("--boxes", type=int, default=1)
    parser.add_argument("--max-boxes", type=int, default=3)
    parser.add_argument("--endpoint-url", help="AWS endpoint for every client but service-quotas (tests: moto)")
    plan = parser.add_argument_group("terraform plan with the real backend (--terraform-plan)")
    plan.add_argument("--terraform-plan", action="store_true")
    plan.add_argument("--terraform", default="terraform", help="the terraform binary")
    plan.add_argument("--terraform-dir", type=Path, default=RUN_MODULE)
    plan.add_argument("--box-role-id", default="", help="SAMEBOX_BOX_ROLE_ID: checked against the box profile's role")
    plan.add_argument("--expiry-role-arn", default="", help="SAMEBOX_EXPIRY_ROLE_ARN: the role each box's expiry schedule uses")
    plan.add_argument("--commit", default="")
    plan.add_argument("--profile", default="smoke")
    plan.add_argument("--study", default="")
    plan.add_argument("--systems", default="")
    plan.add_argument("--max-minutes", type=int, default=60)
    args = parser.parse_args(argv)
    if args.terraform_plan:
        missing = [f"--{name}" for name in ("box-role-id", "expiry-role-arn", "commit", "study", "systems") if not getattr(args, name.replace("-", "_"))]
        if missing:
            print(f"error: --terraform-plan needs {', '.join(missing)} (the dispatch's first box, as the launch step sets them)", file=sys.stderr)
            return 2
    client = client or (lambda service: boto3.client(service, region_name=args.region, endpoint_url=args.endpoint_url))
    results = run_checks(args, client, run)
    for result in results:
        print(json.dumps(result))
    failed = [r["check"] for r in results if not r["ok"]]
    if failed:
        print(f"error: preflight failed: {', '.join(failed)} (details above); nothing was launched", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
