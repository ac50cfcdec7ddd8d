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
