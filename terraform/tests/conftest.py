"""Shared fixtures: one moto server per test session, on loopback only."""
from __future__ import annotations

import os
import socket
import sys
from pathlib import Path

import boto3
import pytest
from moto.server import ThreadedMotoServer

TERRAFORM = Path(__file__).resolve().parent.parent
REPO = TERRAFORM.parent
SCRIPTS = TERRAFORM / "scripts"
REGION = "us-east-1"
sys.path.insert(0, str(SCRIPTS))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="session")
def moto_endpoint():
    # Dummy credentials: the emulator accepts anything, and nothing may reach real AWS.
    os.environ.update(AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing",
                      AWS_SESSION_TOKEN="testing", AWS_DEFAULT_REGION=REGION)
    for proxy in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
        os.environ.pop(proxy, None)
    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.stop()


@pytest.fixture
def ec2(moto_endpoint):
    client = boto3.client("ec2", region_name=REGION, endpoint_url=moto_endpoint)
    yield client
    # Leave the emulator clean for the next test.
    ids = [i["InstanceId"] for r in client.describe_instances()["Reservations"] for i in r["Instances"]
           if i["State"]["Name"] != "terminated"]
    if ids:
        client.terminate_instances(InstanceIds=ids)


@pytest.fixture
def s3(moto_endpoint):
    return boto3.client("s3", region_name=REGION, endpoint_url=moto_endpoint)


@pytest.fixture
def script_env(moto_endpoint):
    """Environment for running a helper script as a subprocess against the emulator."""
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env.update(AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing",
               AWS_SESSION_TOKEN="testing", AWS_DEFAULT_REGION=REGION)
    return env
