"""The $0 preflight's plan of calls: moto's STS, S3 and EC2 (run-instances with DryRun), a stubbed
Service Quotas (moto's knows only VPC), and a local repository for the anonymous clone."""
from __future__ import annotations

import subprocess

import boto3
from botocore.stub import Stubber

from conftest import REGION

import preflight


def quota_client(value: float):
    quotas = boto3.client("service-quotas", region_name=REGION, aws_access_key_id="x", aws_secret_access_key="x")
    stub = Stubber(quotas)
    stub.add_response("get_service_quota", {"Quota": {"QuotaCode": "L-1216C47A", "Value": value}},
                      {"ServiceCode": "ec2", "QuotaCode": "L-1216C47A"})
    stub.activate()
    return quotas


def setup(ec2, s3, tmp_path):
    profile = f"samebox-box-{tmp_path.name}"
    iam = boto3.client("iam", region_name=REGION, endpoint_url=ec2.meta.endpoint_url)
    iam.create_instance_profile(InstanceProfileName=profile)
    for bucket in ("results-pf", "state-pf"):
        s3.create_bucket(Bucket=bucket)
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.invalid",
                    "commit", "-q", "--allow-empty", "-m", "x"], check=True)
    group = ec2.create_security_group(GroupName=f"pf-{tmp_path.name}", Description="preflight")["GroupId"]
    ami = ec2.describe_images()["Images"][0]["ImageId"]
    return ["--region", REGION, "--instance-type", "c6a.4xlarge", "--results-bucket", "results-pf", "--state-bucket", "state-pf",
            "--box-profile", profile, "--security-group", group, "--repository-url", f"file://{repo}", "--ami-id", ami]


def clients(moto_endpoint, quota):
    return lambda service: quota if service == "service-quotas" else boto3.client(service, region_name=REGION, endpoint_url=moto_endpoint)


def test_preflight_passes_and_launches_nothing(ec2, s3, moto_endpoint, tmp_path, capsys):
    before = sum(len(r["Instances"]) for r in ec2.describe_instances()["Reservations"])
    rc = preflight.main(setup(ec2, s3, tmp_path), client=clients(moto_endpoint, quota_client(48)))
    out = capsys.readouterr()
    assert rc == 0, out.out + out.err
    checks = [line for line in out.out.splitlines() if line.startswith("{")]
    assert [__import__("json").loads(c)["check"] for c in checks] == [
        "identity", "results bucket", "state bucket", "image", "launch dry run", "vcpu quota", "anonymous clone"]
    assert "would launch c6a.4xlarge" in out.out
    assert sum(len(r["Instances"]) for r in ec2.describe_instances()["Reservations"]) == before, "a dry run launches nothing"


def test_preflight_names_every_failing_check(ec2, s3, moto_endpoint, tmp_path, capsys):
    args = setup(ec2, s3, tmp_path)
    args[args.index("--state-bucket") + 1] = "no-such-bucket"
    args[args.index("--repository-url") + 1] = f"file://{tmp_path}/missing"
    rc = preflight.main(args + ["--boxes", "17", "--max-boxes", "4"], client=clients(moto_endpoint, quota_client(48)))
    err = capsys.readouterr().err
    assert rc == 1 and "state bucket, vcpu quota, anonymous clone" in err
