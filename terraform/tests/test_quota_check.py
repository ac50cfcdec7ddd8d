"""The vCPU quota check before launch, with botocore's Stubber answering the two read-only calls
(moto's Service Quotas knows only VPC quotas)."""
from __future__ import annotations

import boto3
import pytest
from botocore.stub import Stubber

from conftest import REGION

import quota_check


def clients(vcpus: int, quota: float):
    ec2 = boto3.client("ec2", region_name=REGION, aws_access_key_id="x", aws_secret_access_key="x")
    quotas = boto3.client("service-quotas", region_name=REGION, aws_access_key_id="x", aws_secret_access_key="x")
    ec2_stub, quota_stub = Stubber(ec2), Stubber(quotas)
    ec2_stub.add_response("describe_instance_types", {"InstanceTypes": [{"InstanceType": "c6a.4xlarge", "VCpuInfo": {"DefaultVCpus": vcpus}}]},
                          {"InstanceTypes": ["c6a.4xlarge"]})
    quota_stub.add_response("get_service_quota", {"Quota": {"QuotaCode": "L-1216C47A", "Value": quota}},
                            {"ServiceCode": "ec2", "QuotaCode": "L-1216C47A"})
    ec2_stub.activate()
    quota_stub.activate()
    return ec2, quotas


@pytest.mark.parametrize("boxes,max_boxes,quota,code", [
    (17, 3, 48.0, 0),    # the docs' setting: 3 x 16 = 48
    (17, 4, 48.0, 1),    # 64 > 48: refused before launch
    (1, 5, 16.0, 0),     # smoke: one box whatever SAMEBOX_MAX_BOXES
    (2, 5, 16.0, 1),
])
def test_peak_vcpus_against_the_quota(boxes, max_boxes, quota, code, capsys):
    ec2, quotas = clients(16, quota)
    rc = quota_check.main(["--region", REGION, "--instance-type", "c6a.4xlarge", "--boxes", str(boxes),
                           "--max-boxes", str(max_boxes)], ec2=ec2, quotas=quotas)
    assert rc == code
    if code:
        assert "above the account's quota" in capsys.readouterr().err


def test_bad_counts_are_rejected(capsys):
    assert quota_check.main(["--region", REGION, "--instance-type", "c6a.4xlarge", "--boxes", "0", "--max-boxes", "3"]) == 2
    assert "--boxes (0)" in capsys.readouterr().err
