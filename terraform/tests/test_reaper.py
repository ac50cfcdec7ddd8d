"""The reaper against moto's EC2: only our instances past expiry are terminated."""
from __future__ import annotations

import json
import subprocess
import sys

from conftest import REGION, SCRIPTS

NOW = "2030-01-01T12:00:00Z"
PAST = "2030-01-01T11:59:00Z"
FUTURE = "2030-01-01T13:00:00Z"


def launch(ec2, tags: dict[str, str] | None) -> str:
    image = ec2.describe_images()["Images"][0]["ImageId"]
    spec = {"MinCount": 1, "MaxCount": 1, "ImageId": image, "InstanceType": "c6a.4xlarge"}
    if tags:
        spec["TagSpecifications"] = [{"ResourceType": "instance",
                                      "Tags": [{"Key": k, "Value": v} for k, v in tags.items()]}]
    return ec2.run_instances(**spec)["Instances"][0]["InstanceId"]


def state(ec2, instance_id: str) -> str:
    return ec2.describe_instances(InstanceIds=[instance_id])["Reservations"][0]["Instances"][0]["State"]["Name"]


def run_reaper(moto_endpoint, env, *extra: str) -> dict:
    result = subprocess.run(
        [sys.executable, str(SCRIPTS / "reaper.py"), "--region", REGION, "--endpoint-url", moto_endpoint,
         "--now", NOW, *extra],
        env=env, capture_output=True, text=True, timeout=60, check=True)
    return json.loads(result.stdout)


def test_terminates_only_our_expired_instances(ec2, moto_endpoint, script_env):
    expired = launch(ec2, {"Project": "samebox", "samebox:run-id": "20300101T080000Z-full-a", "samebox:expires-at": PAST})
    live = launch(ec2, {"Project": "samebox", "samebox:run-id": "20300101T110000Z-full-b", "samebox:expires-at": FUTURE})
    no_expiry = launch(ec2, {"Project": "samebox", "samebox:run-id": "20300101T080000Z-full-c"})
    garbled = launch(ec2, {"Project": "samebox", "samebox:expires-at": "tomorrow-ish"})
    someone_elses = launch(ec2, {"Project": "other-team", "samebox:expires-at": PAST})
    untagged = launch(ec2, None)

    report = run_reaper(moto_endpoint, script_env)

    assert {e["instance_id"] for e in report["terminated"]} == {expired, no_expiry, garbled}
    assert {e["instance_id"] for e in report["kept"]} == {live}
    for instance_id in (expired, no_expiry, garbled):
        assert state(ec2, instance_id) == "terminated"
    for instance_id in (live, someone_elses, untagged):
        assert state(ec2, instance_id) == "running"


def test_expiry_exactly_now_counts_as_expired(ec2, moto_endpoint, script_env):
    boundary = launch(ec2, {"Project": "samebox", "samebox:expires-at": NOW})
    run_reaper(moto_endpoint, script_env)
    assert state(ec2, boundary) == "terminated"


def test_dry_run_terminates_nothing(ec2, moto_endpoint, script_env):
    expired = launch(ec2, {"Project": "samebox", "samebox:expires-at": PAST})
    report = run_reaper(moto_endpoint, script_env, "--dry-run")
    assert report["dry_run"] is True
    assert expired in {e["instance_id"] for e in report["terminated"]}
    assert state(ec2, expired) == "running"


def test_run_id_cleanup_terminates_that_run_whatever_its_expiry(ec2, moto_endpoint, script_env):
    run_a_db = launch(ec2, {"Project": "samebox", "samebox:run-id": "20300101T110000Z-full-a", "samebox:expires-at": FUTURE})
    run_a_client = launch(ec2, {"Project": "samebox", "samebox:run-id": "20300101T110000Z-full-a", "samebox:expires-at": FUTURE})
    run_b = launch(ec2, {"Project": "samebox", "samebox:run-id": "20300101T110000Z-full-b", "samebox:expires-at": PAST})
    impostor = launch(ec2, {"Project": "other-team", "samebox:run-id": "20300101T110000Z-full-a"})

    report = run_reaper(moto_endpoint, script_env, "--run-id", "20300101T110000Z-full-a")

    assert {e["instance_id"] for e in report["terminated"]} == {run_a_db, run_a_client}
    assert state(ec2, run_a_db) == state(ec2, run_a_client) == "terminated"
    assert state(ec2, run_b) == "running"  # expired, but not this run: the scheduled reaper's job
    assert state(ec2, impostor) == "running"


def test_already_terminated_instances_are_not_reported_again(ec2, moto_endpoint, script_env):
    expired = launch(ec2, {"Project": "samebox", "samebox:expires-at": PAST})
    first = run_reaper(moto_endpoint, script_env)
    second = run_reaper(moto_endpoint, script_env)
    assert expired in {e["instance_id"] for e in first["terminated"]}
    assert expired not in {e["instance_id"] for e in second["terminated"] + second["kept"]}


def test_many_expired_instances_are_terminated_in_batches(ec2, moto_endpoint, script_env):
    image = ec2.describe_images()["Images"][0]["ImageId"]
    tags = [{"Key": "Project", "Value": "samebox"}, {"Key": "samebox:expires-at", "Value": PAST}]
    ids = [i["InstanceId"] for i in ec2.run_instances(
        MinCount=120, MaxCount=120, ImageId=image, InstanceType="c6a.4xlarge",
        TagSpecifications=[{"ResourceType": "instance", "Tags": tags}])["Instances"]]
    report = run_reaper(moto_endpoint, script_env)
    assert {e["instance_id"] for e in report["terminated"]} >= set(ids)
    states = {i["State"]["Name"] for r in ec2.describe_instances(InstanceIds=ids)["Reservations"] for i in r["Instances"]}
    assert states == {"terminated"}


def test_bad_now_is_a_one_line_error(moto_endpoint, script_env):
    result = subprocess.run(
        [sys.executable, str(SCRIPTS / "reaper.py"), "--region", REGION, "--endpoint-url", moto_endpoint, "--now", "noon"],
        env=script_env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1
    assert "RFC 3339" in result.stderr


def test_cancel_terminates_every_box_of_the_dispatch_and_nothing_else(ec2, moto_endpoint, script_env):
    dispatch = "20300101T110000Z-full-c6a-4xlarge"
    ours = [launch(ec2, {"Project": "samebox", "samebox:run-id": f"{dispatch}-{rid}", "samebox:dispatch": dispatch,
                         "samebox:expires-at": FUTURE}) for rid in ("oltp", "analytical-1of11", "analytical-11of11")]
    other = launch(ec2, {"Project": "samebox", "samebox:run-id": "20300101T100000Z-ci-c6a-4xlarge-oltp",
                         "samebox:dispatch": "20300101T100000Z-ci-c6a-4xlarge", "samebox:expires-at": FUTURE})
    report = run_reaper(moto_endpoint, script_env, "--dispatch", dispatch)
    assert {e["instance_id"] for e in report["terminated"]} == set(ours)
    assert all(state(ec2, i) == "terminated" for i in ours) and state(ec2, other) == "running"
