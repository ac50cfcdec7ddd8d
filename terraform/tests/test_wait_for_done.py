"""wait_for_done against moto's S3 and EC2: bounded, and quick to give up on a dead box."""
from __future__ import annotations

import json
import subprocess
import sys
import threading
import time

from conftest import REGION, SCRIPTS

PREFIX = "boxes/AROATESTROLE:i-0123456789abcdef0/"


def wait_cli(moto_endpoint, env, bucket, *extra, timeout=60):
    return subprocess.run(
        [sys.executable, str(SCRIPTS / "wait_for_done.py"), "--uri", f"s3://{bucket}/{PREFIX}", "--region", REGION,
         "--endpoint-url", moto_endpoint, "--interval-seconds", "0.2", *extra],
        env=env, capture_output=True, text=True, timeout=timeout)


def make_bucket(s3, name):
    s3.create_bucket(Bucket=name)
    return name


def test_marker_already_there(s3, moto_endpoint, script_env):
    bucket = make_bucket(s3, "results-present")
    s3.put_object(Bucket=bucket, Key=PREFIX + "done.json", Body=json.dumps({"status": "ok", "run_id": "x"}))
    result = wait_cli(moto_endpoint, script_env, bucket, "--timeout-minutes", "0.05")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["status"] == "ok"


def test_marker_arrives_while_waiting(s3, moto_endpoint, script_env):
    bucket = make_bucket(s3, "results-late")

    def upload_later():
        time.sleep(1.0)
        s3.put_object(Bucket=bucket, Key=PREFIX + "done.json", Body=b'{"status": "cells_failed"}')

    uploader = threading.Thread(target=upload_later)
    uploader.start()
    started = time.monotonic()
    result = wait_cli(moto_endpoint, script_env, bucket, "--timeout-minutes", "1")
    uploader.join()
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["status"] == "cells_failed"
    assert time.monotonic() - started < 30


def test_no_marker_times_out_with_a_clear_message(s3, moto_endpoint, script_env):
    bucket = make_bucket(s3, "results-never")
    started = time.monotonic()
    result = wait_cli(moto_endpoint, script_env, bucket, "--timeout-minutes", "0.03")  # ~2 s
    assert result.returncode == 3
    assert "no s3://results-never/" in result.stderr and "within" in result.stderr
    assert time.monotonic() - started < 30


def test_gives_up_early_when_the_box_is_gone(s3, ec2, moto_endpoint, script_env):
    bucket = make_bucket(s3, "results-dead-box")
    image = ec2.describe_images()["Images"][0]["ImageId"]
    instance = ec2.run_instances(MinCount=1, MaxCount=1, ImageId=image, InstanceType="c6a.4xlarge")["Instances"][0]["InstanceId"]
    ec2.terminate_instances(InstanceIds=[instance])
    started = time.monotonic()
    result = wait_cli(moto_endpoint, script_env, bucket, "--timeout-minutes", "10",
                      "--instance-id", instance, "--grace-seconds", "0.5")
    assert result.returncode == 4
    assert instance in result.stderr
    assert time.monotonic() - started < 60  # nowhere near the 10-minute bound


def test_bad_uri_is_rejected(moto_endpoint, script_env):
    result = subprocess.run(
        [sys.executable, str(SCRIPTS / "wait_for_done.py"), "--uri", "https://example.invalid/x", "--region", REGION,
         "--timeout-minutes", "1"], env=script_env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "s3://bucket/prefix/" in result.stderr


# --- errors the real bucket gives that moto's open server does not: injected with botocore's Stubber ---

def stubbed_s3(responses):
    """A real botocore S3 client whose answers are queued: ("error", code, http status) or ("ok", body)."""
    import io

    import boto3
    from botocore.response import StreamingBody
    from botocore.stub import Stubber

    client = boto3.client("s3", region_name=REGION, aws_access_key_id="x", aws_secret_access_key="x")
    stubber = Stubber(client)
    for kind, *rest in responses:
        if kind == "error":
            code, status = rest
            stubber.add_client_error("get_object", service_error_code=code, http_status_code=status)
        else:
            body = rest[0].encode()
            stubber.add_response("get_object", {"Body": StreamingBody(io.BytesIO(body), len(body))})
    stubber.activate()
    return client


def fake_clock():
    now = [0.0]
    return (lambda: now[0]), (lambda seconds: now.__setitem__(0, now[0] + seconds))


def test_access_denied_is_not_yet_and_the_wait_goes_on():
    import wait_for_done
    s3 = stubbed_s3([("error", "AccessDenied", 403), ("error", "AccessDenied", 403), ("ok", '{"status": "ok"}')])
    clock, sleep = fake_clock()
    code, marker = wait_for_done.wait(s3, None, "b", "k/done.json", [], 600, 60, 180, clock=clock, sleep=sleep)
    assert (code, marker) == (0, {"status": "ok"})


def test_transient_errors_are_retried_then_bounded():
    import wait_for_done
    s3 = stubbed_s3([("error", "SlowDown", 503), ("error", "InternalError", 500), ("ok", '{"status": "timeout"}')])
    clock, sleep = fake_clock()
    assert wait_for_done.wait(s3, None, "b", "k", [], 600, 60, 180, clock=clock, sleep=sleep) == (0, {"status": "timeout"})
    s3 = stubbed_s3([("error", "InternalError", 500)] * wait_for_done.MAX_CONSECUTIVE_ERRORS)
    clock, sleep = fake_clock()
    assert wait_for_done.wait(s3, None, "b", "k", [], 6000, 60, 180, clock=clock, sleep=sleep) == (5, None)


def test_access_denied_until_the_bound_times_out_cleanly():
    import wait_for_done
    s3 = stubbed_s3([("error", "AccessDenied", 403)] * 11)
    clock, sleep = fake_clock()
    assert wait_for_done.wait(s3, None, "b", "k", [], 600, 60, 180, clock=clock, sleep=sleep) == (3, None)


def test_a_box_that_never_started_fails_in_minutes_not_hours(s3, ec2, moto_endpoint, script_env):
    """No started.json that long after the launch: exit 6 at once (the box launched > 0.01 min ago),
    long before the 600-min bound."""
    bucket = make_bucket(s3, "results-never-started")
    image = ec2.describe_images()["Images"][0]["ImageId"]
    instance = ec2.run_instances(MinCount=1, MaxCount=1, ImageId=image, InstanceType="c6a.4xlarge")["Instances"][0]["InstanceId"]
    time.sleep(1)
    started = time.monotonic()
    result = wait_cli(moto_endpoint, script_env, bucket, "--timeout-minutes", "600", "--instance-id", instance,
                      "--started-within-minutes", "0.01")
    assert result.returncode == 6, result.stderr
    assert "never started" in result.stderr and time.monotonic() - started < 30


def test_a_started_box_is_waited_for_past_the_heartbeat_bound(s3, moto_endpoint, script_env):
    bucket = make_bucket(s3, "results-started")
    s3.put_object(Bucket=bucket, Key=PREFIX + "started.json", Body=b'{"marker": "started"}')
    result = wait_cli(moto_endpoint, script_env, bucket, "--timeout-minutes", "0.03", "--started-within-minutes", "0.005")
    assert result.returncode == 3, "alive: the wait runs to its own bound, not the heartbeat's"


def forgotten_ec2(times):
    """EC2 as it answers, about an hour after termination, a describe of the instance by id: InvalidInstanceID.NotFound."""
    import boto3
    from botocore.stub import Stubber

    client = boto3.client("ec2", region_name=REGION, aws_access_key_id="x", aws_secret_access_key="x")
    stubber = Stubber(client)
    for _ in range(times):
        stubber.add_client_error("describe_instances", service_error_code="InvalidInstanceID.NotFound",
                                 service_message="The instance ID 'i-0123456789abcdef0' does not exist", http_status_code=400)
    stubber.activate()
    return client


def test_an_instance_ec2_no_longer_knows_is_gone():
    """moto keeps terminated instances, so the NotFound is stubbed: the wait ends as 'gone' (exit 4) after its grace,
    not as 10 failed polls (exit 5)."""
    import wait_for_done
    s3 = stubbed_s3([("error", "NoSuchKey", 404)] * 4)
    clock, sleep = fake_clock()
    code, marker = wait_for_done.wait(s3, forgotten_ec2(4), "b", "k/done.json", ["i-0123456789abcdef0"], 3600, 60, 180,
                                      clock=clock, sleep=sleep)
    assert (code, marker) == (4, None)
    assert wait_for_done.seconds_since_launch(forgotten_ec2(1), ["i-0123456789abcdef0"]) == 0.0


def test_one_forgotten_instance_does_not_make_a_running_one_gone():
    """NotFound fails the whole describe: each id is asked alone, and a running one keeps the wait going."""
    import boto3
    import wait_for_done
    from botocore.stub import Stubber

    ec2 = boto3.client("ec2", region_name=REGION, aws_access_key_id="x", aws_secret_access_key="x")
    stubber = Stubber(ec2)
    ids = ["i-0000000000000000a", "i-0000000000000000b"]
    stubber.add_client_error("describe_instances", service_error_code="InvalidInstanceID.NotFound", http_status_code=400,
                             expected_params={"InstanceIds": ids})
    stubber.add_client_error("describe_instances", service_error_code="InvalidInstanceID.NotFound", http_status_code=400,
                             expected_params={"InstanceIds": ids[:1]})
    stubber.add_response("describe_instances", {"Reservations": [{"Instances": [
        {"InstanceId": ids[1], "State": {"Code": 16, "Name": "running"}}]}]}, {"InstanceIds": ids[1:]})
    stubber.activate()
    assert wait_for_done.instances_gone(ec2, ids) is False
    stubber.assert_no_pending_responses()
