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
    iam.create_role(RoleName=profile, AssumeRolePolicyDocument="{}")
    iam.add_role_to_instance_profile(InstanceProfileName=profile, RoleName=profile)
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


STUB_TERRAFORM = r"""#!/usr/bin/env bash
# records each call (cwd and argv) and the var file; plan fails when STUB_PLAN_FAILS is set
echo "$PWD $*" >> "$STUB_LOG"
for arg in "$@"; do case "$arg" in -var-file=*) cp "${arg#-var-file=}" "$STUB_LOG.vars";; esac; done
if [ "$1" = plan ]; then
  if [ -n "${STUB_PLAN_FAILS:-}" ]; then echo "Error: No valid credential sources found" >&2; exit 1; fi
  echo "Plan: 1 to add, 0 to change, 0 to destroy."
fi
"""


def box_role_id(ec2, tmp_path) -> str:
    iam = boto3.client("iam", region_name=REGION, endpoint_url=ec2.meta.endpoint_url)
    return iam.get_role(RoleName=f"samebox-box-{tmp_path.name}")["Role"]["RoleId"]


def stub_terraform(tmp_path, monkeypatch, fails=False, role_id="AROATESTROLEID12345"):
    stub = tmp_path / "terraform"
    stub.write_text(STUB_TERRAFORM)
    stub.chmod(0o755)
    monkeypatch.setenv("STUB_LOG", str(tmp_path / "tf.log"))
    if fails:
        monkeypatch.setenv("STUB_PLAN_FAILS", "1")
    else:
        monkeypatch.delenv("STUB_PLAN_FAILS", raising=False)
    return ["--terraform-plan", "--terraform", str(stub), "--box-role-id", role_id,
            "--expiry-role-arn", "arn:aws:iam::123456789012:role/samebox-box-expiry", "--commit", "a" * 40,
            "--profile", "smoke", "--study", "oltp", "--systems", "postgresql", "--max-minutes", "42"]


def test_preflight_plans_with_the_real_backend(ec2, s3, moto_endpoint, tmp_path, capsys, monkeypatch):
    import json
    from conftest import TERRAFORM
    args = setup(ec2, s3, tmp_path)
    role_id = box_role_id(ec2, tmp_path)
    args += stub_terraform(tmp_path, monkeypatch, role_id=role_id)
    rc = preflight.main(args, client=clients(moto_endpoint, quota_client(48)))
    out = capsys.readouterr()
    assert rc == 0, out.out + out.err
    checks = [json.loads(c) for c in out.out.splitlines() if c.startswith("{")]
    assert [c["check"] for c in checks] == ["identity", "results bucket", "state bucket", "box role id", "terraform plan", "image",
                                            "launch dry run", "vcpu quota", "anonymous clone"]
    assert "Plan: 1 to add" in checks[4]["detail"]
    calls = (tmp_path / "tf.log").read_text().splitlines()
    assert [c.split()[1] for c in calls] == ["init", "plan"]
    assert all(c.split()[0] == str(TERRAFORM / "run") for c in calls), "terraform/run, the module the launch applies"
    assert ("-backend-config=bucket=state-pf -backend-config=key=runs/20000101T000000Z-preflight.tfstate "
            f"-backend-config=region={REGION}") in calls[0] and "-reconfigure" in calls[0]
    assert "-lock=false" in calls[1], "the preflight takes no state lock and writes nothing"
    tfvars = json.loads((tmp_path / "tf.log.vars").read_text())
    assert tfvars["studies"] == ["oltp"] and tfvars["systems"] == ["postgresql"] and tfvars["max_minutes"] == 42
    assert tfvars["box_role_id"] == role_id and tfvars["results_bucket"] == "results-pf" and tfvars["profile"] == "smoke"


def test_a_failing_plan_is_named(ec2, s3, moto_endpoint, tmp_path, capsys, monkeypatch):
    args = setup(ec2, s3, tmp_path)
    args += stub_terraform(tmp_path, monkeypatch, fails=True, role_id=box_role_id(ec2, tmp_path))
    rc = preflight.main(args, client=clients(moto_endpoint, quota_client(48)))
    out = capsys.readouterr()
    assert rc == 1 and "preflight failed: terraform plan" in out.err
    assert "No valid credential sources found" in out.out


def test_plan_without_the_first_box_is_refused(capsys):
    rc = preflight.main(["--region", REGION, "--instance-type", "c6a.4xlarge", "--results-bucket", "r", "--state-bucket", "s",
                         "--box-profile", "p", "--security-group", "sg-1", "--repository-url", "https://x", "--terraform-plan"])
    assert rc == 2 and "--terraform-plan needs --box-role-id, --expiry-role-arn, --commit, --study, --systems" in capsys.readouterr().err


class DeniedHead:
    """S3 as it answers a caller without s3:ListBucket on the bucket: a missing key is 403, not 404."""

    def __init__(self, s3):
        self.s3 = s3

    def __getattr__(self, name):
        return getattr(self.s3, name)

    def head_object(self, **kwargs):
        from botocore.exceptions import ClientError
        raise ClientError({"Error": {"Code": "403", "Message": "Forbidden"}}, "HeadObject")


def test_a_state_key_not_written_yet_must_answer_404(ec2, s3, moto_endpoint, tmp_path, capsys):
    """The S3 backend's HeadObject of a new run's state: 404 lets terraform init create it; 403 stops every launch."""
    args = setup(ec2, s3, tmp_path)
    assert preflight.main(args, client=clients(moto_endpoint, quota_client(48))) == 0
    assert "HeadObject of the missing s3://state-pf/runs/20000101T000000Z-preflight.tfstate answers 404" in capsys.readouterr().out
    base = clients(moto_endpoint, quota_client(48))
    rc = preflight.main(args, client=lambda service: DeniedHead(base(service)) if service == "s3" else base(service))
    out = capsys.readouterr()
    assert rc == 1 and "preflight failed: state bucket" in out.err
    assert "needs s3:ListBucket on the state bucket without an s3:prefix condition" in out.out


def test_a_wrong_box_role_id_is_named_before_any_launch(ec2, s3, moto_endpoint, tmp_path, capsys, monkeypatch):
    """A wrong SAMEBOX_BOX_ROLE_ID points collect at an empty prefix: every box would look 'never started'."""
    args = setup(ec2, s3, tmp_path) + stub_terraform(tmp_path, monkeypatch, role_id="AROAWRONGROLEID12345")
    rc = preflight.main(args, client=clients(moto_endpoint, quota_client(48)))
    out = capsys.readouterr()
    assert rc == 1 and "preflight failed: box role id" in out.err
    assert f"SAMEBOX_BOX_ROLE_ID 'AROAWRONGROLEID12345' is not the role of instance profile 'samebox-box-{tmp_path.name}'" in out.out
    assert box_role_id(ec2, tmp_path) in out.out
