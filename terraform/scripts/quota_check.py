#!/usr/bin/env python3
"""Before launch: the boxes that may run at once, times the instance type's vCPUs, must fit the
account's EC2 quota "Running On-Demand Standard (A, C, D, H, I, M, R, T, Z) instances" (counted
in vCPUs). A launch over the quota fails on AWS's side and that box's share silently goes missing.

At once = min(SAMEBOX_MAX_BOXES, boxes of the dispatch). Exit 0 when it fits, 1 when it does not
(the message names the figures and both ways out), 2 on bad input. $0: read-only calls.
"""
from __future__ import annotations

import argparse
import json
import sys

import boto3

SERVICE_CODE = "ec2"
STANDARD_ON_DEMAND_VCPUS = "L-1216C47A"  # Running On-Demand Standard (A, C, D, H, I, M, R, T, Z) instances


def vcpus_of(ec2, instance_type: str) -> int:
    types = ec2.describe_instance_types(InstanceTypes=[instance_type])["InstanceTypes"]
    return int(types[0]["VCpuInfo"]["DefaultVCpus"])


def quota_vcpus(quotas) -> float:
    return float(quotas.get_service_quota(ServiceCode=SERVICE_CODE, QuotaCode=STANDARD_ON_DEMAND_VCPUS)["Quota"]["Value"])


def check(ec2, quotas, instance_type: str, boxes: int, max_boxes: int) -> dict:
    at_once = min(boxes, max_boxes)
    per_box = vcpus_of(ec2, instance_type)
    quota = quota_vcpus(quotas)
    return {"instance_type": instance_type, "vcpus_per_box": per_box, "boxes": boxes, "max_boxes": max_boxes,
            "boxes_at_once": at_once, "peak_vcpus": at_once * per_box, "quota_vcpus": quota,
            "fits": at_once * per_box <= quota}


def main(argv: list[str] | None = None, ec2=None, quotas=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--region", required=True)
    parser.add_argument("--instance-type", required=True)
    parser.add_argument("--boxes", type=int, required=True, help="boxes of the dispatch (the matrix length)")
    parser.add_argument("--max-boxes", type=int, required=True, help="SAMEBOX_MAX_BOXES: boxes running at once")
    args = parser.parse_args(argv)
    if args.boxes < 1 or args.max_boxes < 1:
        print(f"error: --boxes ({args.boxes}) and --max-boxes ({args.max_boxes}) must be whole numbers >= 1", file=sys.stderr)
        return 2
    ec2 = ec2 or boto3.client("ec2", region_name=args.region)
    quotas = quotas or boto3.client("service-quotas", region_name=args.region)
    report = check(ec2, quotas, args.instance_type, args.boxes, args.max_boxes)
    print(json.dumps(report))
    if not report["fits"]:
        print(f"error: {report['boxes_at_once']} boxes at once x {report['vcpus_per_box']} vCPUs ({args.instance_type}) = "
              f"{report['peak_vcpus']} vCPUs, above the account's quota of {report['quota_vcpus']:.0f} in {args.region} "
              f"(Service Quotas {SERVICE_CODE}/{STANDARD_ON_DEMAND_VCPUS}): lower SAMEBOX_MAX_BOXES or ask AWS for more",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
