"""The instances EC2 still knows, by id. About an hour after termination, describing an instance by id fails
with InvalidInstanceID.NotFound, for the whole call: that box is gone, not an error. Used by dispatch.py (a
share's status) and wait_for_done.py (the by-hand waiter)."""
from __future__ import annotations

from botocore.exceptions import ClientError


def described(ec2, instance_ids: list[str]) -> list[dict]:
    """The instances of instance_ids EC2 still knows; a forgotten one is left out (each id is then asked alone,
    so one forgotten box does not hide the others)."""
    if not instance_ids:
        return []
    try:
        reservations = ec2.describe_instances(InstanceIds=instance_ids)["Reservations"]
    except ClientError as error:
        if error.response["Error"]["Code"] != "InvalidInstanceID.NotFound":
            raise
        return [i for one in instance_ids for i in described(ec2, [one])] if len(instance_ids) > 1 else []
    return [i for r in reservations for i in r["Instances"]]
