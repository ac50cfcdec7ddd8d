"""The job-free flow's scheduler (terraform/scripts/dispatch.py) against moto's S3 and EC2: SAMEBOX_MAX_BOXES
caps live instances (not GitHub jobs), the vCPU quota is checked before every launch, a box that never
wrote started.json is reported failed 15 min after its launch, and a dispatch is ready once every share
is final."""
from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from conftest import REGION

import dispatch

NOW = datetime(2030, 1, 1, 12, 0, tzinfo=timezone.utc)


class Quotas:
    """Service Quotas' one read-only call (moto's knows only VPC quotas)."""

    def __init__(self, value: float):
        self.value = value

    def get_service_quota(self, ServiceCode, QuotaCode):  # noqa: N803 (boto3's names)
        assert (ServiceCode, QuotaCode) == ("ec2", "L-1216C47A")
        return {"Quota": {"Value": self.value}}


def matrix(name: str, shares: int) -> list[dict]:
    return [{"study": "analytical", "systems": "postgresql", "workloads": f"w{k}", "variants": "",
             "run_id": f"{name}-analytical-{k}of{shares}", "max_minutes": 60} for k in range(1, shares + 1)]


@pytest.fixture
def bucket(s3, request):
    name = "state-" + request.node.name.replace("_", "-")[:40].lower().strip("-")
    s3.create_bucket(Bucket=name)
    return name


def record(s3, bucket, name, shares, instance_type="c6a.4xlarge"):
    dispatch.record(s3, bucket, name, matrix(name, shares), {"profile": "full", "instance_type": instance_type,
                                                             "commit": "0" * 40, "publish": "yes"})


def boot(ec2, s3, bucket, entry, launched_at=NOW, dispatch_name=None, started=True, results="results-d"):
    """What bench's launch step leaves: an instance tagged like terraform/run's, and its launch record."""
    ami = ec2.describe_images()["Images"][0]["ImageId"]
    tags = [{"Key": "Project", "Value": "samebox"}, {"Key": "samebox:run-id", "Value": entry["run_id"]},
            {"Key": "samebox:dispatch", "Value": dispatch_name or entry["run_id"].rsplit("-analytical", 1)[0]}]
    instance = ec2.run_instances(ImageId=ami, InstanceType="c6a.4xlarge", MinCount=1, MaxCount=1,
                                 TagSpecifications=[{"ResourceType": "instance", "Tags": tags}])["Instances"][0]["InstanceId"]
    prefix = f"s3://{results}/boxes/AROATEST:{instance}/"
    try:
        s3.create_bucket(Bucket=results)
    except s3.exceptions.BucketAlreadyOwnedByYou:
        pass
    if started:
        s3.put_object(Bucket=results, Key=f"boxes/AROATEST:{instance}/started.json", Body=b"{}")
    name = dispatch_name or entry["run_id"].rsplit("-analytical", 1)[0]
    dispatch.put_json(s3, bucket, f"runs/dispatches/{name}/{entry['run_id']}.json", {
        "run_id": entry["run_id"], "instance_id": instance, "results_prefix": prefix,
        "launched_at": dispatch.stamp(launched_at), "expires_at": dispatch.stamp(launched_at + timedelta(minutes=90))})
    return instance, prefix


def test_max_boxes_caps_live_instances_not_jobs(ec2, s3, bucket):
    name = "20300101T120000Z-full-c6a-4xlarge"
    record(s3, bucket, name, 17)
    first = dispatch.tick(s3, ec2, Quotas(480), bucket, 3, NOW, only=name)
    assert [e["run_id"] for e in first["launch"]] == [f"{name}-analytical-{k}of17" for k in (1, 2, 3)]
    assert first["launch"][0]["instance_type"] == "c6a.4xlarge" and first["launch"][0]["commit"] == "0" * 40
    ids = [boot(ec2, s3, bucket, e)[0] for e in first["launch"]]
    # Three boxes live (an hour in, long after any GitHub job would have let go): nothing more until one is gone.
    again = dispatch.tick(s3, ec2, Quotas(480), bucket, 3, NOW + timedelta(minutes=60), only=name)
    assert again["launch"] == [] and "3 instances live, SAMEBOX_MAX_BOXES is 3" in again["waiting"]
    ec2.terminate_instances(InstanceIds=ids[:1])
    later = dispatch.tick(s3, ec2, Quotas(480), bucket, 3, NOW + timedelta(minutes=70), only=name)
    assert [e["run_id"] for e in later["launch"]] == [f"{name}-analytical-4of17"]


def test_one_tick_launches_no_more_than_its_job_can_apply(ec2, s3, bucket):
    """Each launch is a terraform apply in the tick's job (30 min): SAMEBOX_MAX_BOXES 20 with 12 shares queued
    launches LAUNCHES_PER_TICK now and the rest at the next tick, not a job killed half-way through its applies."""
    name = "20300101T120000Z-full-c6a-4xlarge"
    record(s3, bucket, name, 12)
    first = dispatch.tick(s3, ec2, Quotas(4800), bucket, 20, NOW, only=name)
    assert dispatch.LAUNCHES_PER_TICK == 8
    assert [e["run_id"] for e in first["launch"]] == [f"{name}-analytical-{k}of12" for k in range(1, 9)]
    assert "8 launches this tick" in first["waiting"]
    for entry in first["launch"]:
        boot(ec2, s3, bucket, entry)
    later = dispatch.tick(s3, ec2, Quotas(4800), bucket, 20, NOW + timedelta(minutes=10), only=name)
    assert [e["run_id"] for e in later["launch"]] == [f"{name}-analytical-{k}of12" for k in range(9, 13)]
    assert later["waiting"] is None


def test_instances_of_other_dispatches_count_too(ec2, s3, bucket):
    other = "20291231T120000Z-quick-c6a-4xlarge"
    boot(ec2, s3, bucket, matrix(other, 1)[0], dispatch_name=other)
    name = "20300101T120000Z-full-c6a-4xlarge"
    record(s3, bucket, name, 5)
    result = dispatch.tick(s3, ec2, Quotas(480), bucket, 3, NOW, only=name)
    assert len(result["launch"]) == 2 and result["live_instances"] == 1


def test_vcpu_quota_is_checked_before_every_launch(ec2, s3, bucket):
    name = "20300101T120000Z-full-c6a-4xlarge"
    record(s3, bucket, name, 5)
    boot(ec2, s3, bucket, matrix(name, 5)[0])
    # SAMEBOX_MAX_BOXES 5 would allow 4 more, but 16 live + 3 x 16 > 48: only 2 launch, the rest waits.
    result = dispatch.tick(s3, ec2, Quotas(48), bucket, 5, NOW, only=name)
    assert [e["run_id"] for e in result["launch"]] == [f"{name}-analytical-2of5", f"{name}-analytical-3of5"]
    assert "> the account's quota of 48" in result["waiting"]


def test_a_box_that_never_started_fails_after_15_minutes_and_the_dispatch_is_ready(ec2, s3, bucket):
    name = "20300101T120000Z-smoke-c6a-4xlarge"
    record(s3, bucket, name, 1)
    boot(ec2, s3, bucket, matrix(name, 1)[0], started=False)
    early = dispatch.tick(s3, ec2, Quotas(48), bucket, 3, NOW + timedelta(minutes=14), only=name)
    assert early["shares"][0]["status"] == "running" and early["ready"] == []
    late = dispatch.tick(s3, ec2, Quotas(48), bucket, 3, NOW + timedelta(minutes=15), only=name)
    assert late["shares"][0]["status"] == "never started" and late["ready"] == [name]


def test_done_gone_and_expired_shares_are_final(ec2, s3, bucket):
    name = "20300101T120000Z-full-c6a-4xlarge"
    record(s3, bucket, name, 3)
    entries = matrix(name, 3)
    _, prefix = boot(ec2, s3, bucket, entries[0])
    s3.put_object(Bucket="results-d", Key=prefix.split("/", 3)[3] + "done.json", Body=b'{"status": "ok"}')
    gone, _ = boot(ec2, s3, bucket, entries[1])
    ec2.terminate_instances(InstanceIds=[gone])
    boot(ec2, s3, bucket, entries[2], launched_at=NOW - timedelta(hours=2))
    view = dispatch.dispatch_view(s3, ec2, bucket, name, NOW, timedelta(minutes=15))
    assert [s["status"] for s in view["shares"]] == ["done", "gone", "expired"] and view["ready"]
    assert dispatch.open_dispatches(s3, bucket) == [name]
    dispatch.close(s3, ec2, bucket, name, "collected")
    assert dispatch.open_dispatches(s3, bucket) == [], "a collected dispatch is never collected twice"


class ForgetfulEc2:
    """EC2 about an hour after a termination: the instance is no longer known by its id (moto keeps terminated
    instances forever, so this client answers for the ones EC2 has forgotten as EC2 does)."""

    def __init__(self, ec2, forgotten: set[str]):
        self.ec2, self.forgotten = ec2, forgotten

    def __getattr__(self, name):
        return getattr(self.ec2, name)

    def describe_instances(self, **kwargs):
        from botocore.exceptions import ClientError
        if self.forgotten & set(kwargs.get("InstanceIds", [])):
            raise ClientError({"Error": {"Code": "InvalidInstanceID.NotFound",
                                         "Message": f"The instance IDs '{', '.join(kwargs['InstanceIds'])}' do not exist"}},
                              "DescribeInstances")
        return self.ec2.describe_instances(**kwargs)


def test_an_instance_ec2_no_longer_knows_is_gone_and_later_ticks_go_on(ec2, s3, bucket, capsys):
    name = "20300101T120000Z-full-c6a-4xlarge"
    record(s3, bucket, name, 2)
    entries = matrix(name, 2)
    vanished, _ = boot(ec2, s3, bucket, entries[0], launched_at=NOW - timedelta(minutes=30))
    ec2.terminate_instances(InstanceIds=[vanished])
    forgetful = ForgetfulEc2(ec2, {vanished})
    first = dispatch.tick(s3, forgetful, Quotas(480), bucket, 3, NOW, only=name)
    assert first["shares"][0]["status"] == "gone" and first["settled"] == [{"run_id": entries[0]["run_id"], "status": "gone"}]
    assert [e["run_id"] for e in first["launch"]] == [entries[1]["run_id"]], "the queued share still launches"
    # every later tick and collect's show read the same record, whatever EC2 says of the id
    again = dispatch.tick(s3, forgetful, Quotas(480), bucket, 3, NOW + timedelta(minutes=10), only=name)
    assert again["shares"][0]["status"] == "gone"
    assert dispatch.main(["--region", REGION, "--state-bucket", bucket, "--now", dispatch.stamp(NOW), "show", "--dispatch", name],
                         s3=s3, ec2=forgetful) == 0
    assert json.loads(capsys.readouterr().out)["shares"][0]["status"] == "gone"


def test_any_other_ec2_error_is_not_taken_for_gone(ec2, s3, bucket):
    from botocore.exceptions import ClientError
    name = "20300101T120000Z-full-c6a-4xlarge"
    record(s3, bucket, name, 1)
    instance, _ = boot(ec2, s3, bucket, matrix(name, 1)[0])

    class Throttled(ForgetfulEc2):
        def describe_instances(self, **kwargs):
            raise ClientError({"Error": {"Code": "RequestLimitExceeded", "Message": "slow down"}}, "DescribeInstances")

    with pytest.raises(ClientError, match="RequestLimitExceeded"):
        dispatch.dispatch_view(s3, Throttled(ec2, set()), bucket, name, NOW, timedelta(minutes=15))


def test_cancel_launches_nothing_more_and_terminates_every_box(ec2, s3, bucket):
    name = "20300101T120000Z-full-c6a-4xlarge"
    record(s3, bucket, name, 4)
    running, _ = boot(ec2, s3, bucket, matrix(name, 4)[0])
    result = dispatch.cancel(s3, ec2, bucket, name)
    assert result["terminated"] == [running]
    after = dispatch.tick(s3, ec2, Quotas(480), bucket, 3, NOW, only=name)
    assert after["launch"] == [] and after["ready"] == [name]
    assert {s["status"] for s in after["shares"]} <= {"gone", "cancelled"}


def test_one_share_alone_is_a_dispatch_of_its_own(ec2, s3, bucket):
    name = "20300102T120000Z-full-c6a-4xlarge"
    only = [dict(matrix(name, 3)[1])]
    dispatch.record(s3, bucket, name, only, {"profile": "full", "instance_type": "c6a.4xlarge", "commit": "0" * 40, "publish": "yes"})
    result = dispatch.tick(s3, ec2, Quotas(48), bucket, 3, NOW, only=name)
    assert [e["run_id"] for e in result["launch"]] == [f"{name}-analytical-2of3"]


@pytest.mark.parametrize("raw", ["0", "", "three", "-1", "101", "2.5"])
def test_bad_max_boxes_is_refused_naming_the_valid_values(raw, ec2, s3, bucket, capsys):
    rc = dispatch.main(["--region", REGION, "--state-bucket", bucket, "tick", "--max-boxes", raw], s3=s3, ec2=ec2, quotas=Quotas(48))
    err = capsys.readouterr().err
    assert rc == 2 and "SAMEBOX_MAX_BOXES" in err and "whole number from 1 to 100" in err


def test_cli_tick_writes_the_launch_list_for_the_workflow(ec2, s3, bucket, tmp_path, capsys):
    name = "20300101T120000Z-smoke-c6a-4xlarge"
    rc = dispatch.main(["--region", REGION, "--state-bucket", bucket, "--now", "2030-01-01T12:00:00Z", "record", "--dispatch", name,
                        "--matrix-json", json.dumps(matrix(name, 1)), "--profile", "smoke", "--instance-type", "c6a.4xlarge",
                        "--commit", "0" * 40, "--publish", "yes", "--ami-id", "ami-0123456789abcdef0"],
                       s3=s3, ec2=ec2, pricing=pricing_client(0.612))
    assert rc == 0
    out = tmp_path / "out"
    rc = dispatch.main(["--region", REGION, "--state-bucket", bucket, "tick", "--max-boxes", "3", "--dispatch", name,
                        "--github-output", str(out)], s3=s3, ec2=ec2, quotas=Quotas(48))
    assert rc == 0, capsys.readouterr().err
    lines = dict(line.split("=", 1) for line in out.read_text().splitlines())
    assert [e["run_id"] for e in json.loads(lines["launch"])] == [f"{name}-analytical-1of1"] and json.loads(lines["ready"]) == []
    bad = dispatch.main(["--region", REGION, "--state-bucket", bucket, "record", "--dispatch", "smoke", "--matrix-json", "[]",
                         "--profile", "smoke", "--instance-type", "c6a.4xlarge", "--commit", "0" * 40, "--publish", "yes"],
                        s3=s3, ec2=ec2, pricing=pricing_client(0.612))
    assert bad == 2 and "is not <UTC start>-<profile>-<type>" in capsys.readouterr().err


def price_list_item(usd: float, instance_type: str = "c6a.4xlarge") -> str:
    """One PriceList entry as the Price List API returns it (a JSON string per product)."""
    return json.dumps({"product": {"attributes": {"instanceType": instance_type, "regionCode": REGION, "operatingSystem": "Linux"}},
                       "terms": {"OnDemand": {"SKU.JRTCKXETXF": {"priceDimensions": {"SKU.JRTCKXETXF.6YS6EN2CT7": {
                           "unit": "Hrs", "pricePerUnit": {"USD": f"{usd:.10f}"}}}}}}})


def pricing_client(usd: float | None):
    """The Price List API, stubbed (moto has none): one answer, or an error when usd is None."""
    import boto3
    from botocore.stub import ANY, Stubber
    import ec2_price
    pricing = boto3.client("pricing", region_name=ec2_price.PRICING_REGION, aws_access_key_id="x", aws_secret_access_key="x")
    stub = Stubber(pricing)
    params = {"ServiceCode": "AmazonEC2", "Filters": ANY, "MaxResults": 10}
    if usd is None:
        stub.add_client_error("get_products", "ThrottlingException", "Rate exceeded", expected_params=params)
    else:
        stub.add_response("get_products", {"PriceList": [price_list_item(usd)], "FormatVersion": "aws_v1"}, params)
    stub.activate()
    return pricing


def test_a_dispatch_pins_its_image_and_price_once_and_every_launch_uses_them(ec2, s3, bucket, monkeypatch):
    import preflight
    looked_up = []
    monkeypatch.setattr(preflight, "newest_ubuntu", lambda client: looked_up.append(1) or "ami-0aaaaaaaaaaaaaaaa")
    name = "20300101T120000Z-full-c6a-4xlarge"
    args = ["--region", REGION, "--state-bucket", bucket, "--now", "2030-01-01T12:00:00Z", "record", "--dispatch", name,
            "--matrix-json", json.dumps(matrix(name, 4)), "--profile", "full", "--instance-type", "c6a.4xlarge",
            "--commit", "0" * 40, "--publish", "yes"]
    assert dispatch.main(args, s3=s3, ec2=ec2, pricing=pricing_client(0.6120000000)) == 0
    plan = dispatch.get_json(s3, bucket, f"runs/dispatches/{name}/plan.json")
    assert plan["ami_id"] == "ami-0aaaaaaaaaaaaaaaa" and looked_up == [1]
    assert plan["price"]["usd_per_hour"] == 0.612 and plan["price"]["price_date"] == "2030-01-01"
    assert plan["price"]["price_source"].startswith("AWS Price List API")
    # a newer image published while the shares wait changes nothing: each launch takes the recorded one
    monkeypatch.setattr(preflight, "newest_ubuntu", lambda client: "ami-0bbbbbbbbbbbbbbbb")
    first = dispatch.tick(s3, ec2, Quotas(480), bucket, 2, NOW, only=name)
    booted = [boot(ec2, s3, bucket, e)[0] for e in first["launch"]]
    ec2.terminate_instances(InstanceIds=booted[:1])
    later = dispatch.tick(s3, ec2, Quotas(480), bucket, 2, NOW + timedelta(minutes=10), only=name)
    assert {e["ami_id"] for e in first["launch"] + later["launch"]} == {"ami-0aaaaaaaaaaaaaaaa"} and later["launch"]


def test_a_failed_price_lookup_is_recorded_with_its_reason_and_a_bad_ami_refused(ec2, s3, bucket, capsys):
    name = "20300101T120000Z-full-c6a-4xlarge"
    args = ["--region", REGION, "--state-bucket", bucket, "record", "--dispatch", name, "--matrix-json", json.dumps(matrix(name, 1)),
            "--profile", "full", "--instance-type", "c6a.4xlarge", "--commit", "0" * 40, "--publish", "yes"]
    assert dispatch.main(args + ["--ami-id", "ami-0123456789abcdef0"], s3=s3, ec2=ec2, pricing=pricing_client(None)) == 0
    price = dispatch.get_json(s3, bucket, f"runs/dispatches/{name}/plan.json")["price"]
    assert price["usd_per_hour"] is None and "ThrottlingException" in price["reason"]
    capsys.readouterr()
    assert dispatch.main(args + ["--ami-id", "ubuntu"], s3=s3, ec2=ec2, pricing=pricing_client(0.612)) == 2
    assert "--ami-id 'ubuntu': expected an AMI id like ami-0123456789abcdef0" in capsys.readouterr().err


def test_a_box_that_never_started_or_expired_is_terminated_at_once_and_keeps_its_verdict(ec2, s3, bucket):
    name = "20300101T120000Z-full-c6a-4xlarge"
    record(s3, bucket, name, 3)
    entries = matrix(name, 3)
    stuck, _ = boot(ec2, s3, bucket, entries[0], started=False)
    late, _ = boot(ec2, s3, bucket, entries[1], launched_at=NOW - timedelta(hours=2))
    alive, _ = boot(ec2, s3, bucket, entries[2])
    result = dispatch.tick(s3, ec2, Quotas(480), bucket, 3, NOW + timedelta(minutes=20), only=name)
    assert sorted(result["terminated"]) == sorted([stuck, late]), "a stuck box is not paid for until the dispatch closes"
    states = {i["InstanceId"]: i["State"]["Name"] for r in ec2.describe_instances(InstanceIds=[stuck, late, alive])["Reservations"]
              for i in r["Instances"]}
    assert states[stuck] in ("shutting-down", "terminated") and states[late] in ("shutting-down", "terminated")
    assert states[alive] == "running"
    again = dispatch.tick(s3, ec2, Quotas(480), bucket, 3, NOW + timedelta(minutes=30), only=name)
    assert [s["status"] for s in again["shares"]] == ["never started", "expired", "running"], "the verdict survives the termination"
    assert again["terminated"] == []


def test_the_tick_reports_a_box_that_never_started_as_an_error_once(ec2, s3, bucket, capsys):
    name = "20300101T120000Z-smoke-c6a-4xlarge"
    record(s3, bucket, name, 1)
    boot(ec2, s3, bucket, matrix(name, 1)[0], started=False, launched_at=datetime.now(timezone.utc) - timedelta(minutes=16))
    argv = ["--region", REGION, "--state-bucket", bucket, "tick", "--max-boxes", "3"]
    assert dispatch.main(argv, s3=s3, ec2=ec2, quotas=Quotas(48)) == 0
    first = capsys.readouterr().out
    assert f"::error::{name}-analytical-1of1: never started (no started.json 15 min after its launch: terminated)" in first
    assert dispatch.main(argv, s3=s3, ec2=ec2, quotas=Quotas(48)) == 0
    second = capsys.readouterr().out
    assert "::error::" not in second and json.loads(second)["ready"] == [name]


def heartbeat(s3, prefix, marker, at):
    """What run-on-box.sh heartbeat() uploads: started.json / progress.json with the box's clock in `at`."""
    bucket, key = dispatch.split_uri(prefix)
    s3.put_object(Bucket=bucket, Key=key + marker, Body=json.dumps({"marker": marker[:-5], "at": dispatch.stamp(at), "cell_folders": 3}).encode())


def test_a_started_box_without_a_heartbeat_for_an_hour_is_silent_and_terminated(ec2, s3, bucket, capsys):
    name = "20300101T120000Z-full-c6a-4xlarge"
    record(s3, bucket, name, 2)
    entries = matrix(name, 2)
    # both launched 80 min ago (expiry at launch + 90 min: not reached), started 5 min later
    hung, hung_prefix = boot(ec2, s3, bucket, entries[0], launched_at=NOW - timedelta(minutes=80))
    busy, busy_prefix = boot(ec2, s3, bucket, entries[1], launched_at=NOW - timedelta(minutes=80))
    for prefix in (hung_prefix, busy_prefix):
        heartbeat(s3, prefix, "started.json", NOW - timedelta(minutes=75))
    heartbeat(s3, hung_prefix, "progress.json", NOW - timedelta(minutes=61))
    # the busy box's last heartbeat is 20 min old: the longest legitimate gap (a sync of a large folder)
    heartbeat(s3, busy_prefix, "progress.json", NOW - timedelta(minutes=20))
    result = dispatch.tick(s3, ec2, Quotas(480), bucket, 3, NOW, only=name)
    assert [s["status"] for s in result["shares"]] == ["silent", "running"]
    assert result["terminated"] == [hung] and result["ready"] == []
    states = {i["InstanceId"]: i["State"]["Name"] for r in ec2.describe_instances(InstanceIds=[hung, busy])["Reservations"] for i in r["Instances"]}
    assert states[hung] in ("shutting-down", "terminated") and states[busy] == "running"
    # the verdict is kept (a later tick finds the instance gone and still says silent); the other box finishes
    bucket_r, key_r = dispatch.split_uri(busy_prefix)
    s3.put_object(Bucket=bucket_r, Key=key_r + "done.json", Body=b'{"status": "ok"}')
    later = dispatch.tick(s3, ec2, Quotas(480), bucket, 3, NOW + timedelta(minutes=10), only=name)
    assert [s["status"] for s in later["shares"]] == ["silent", "done"] and later["ready"] == [name]


def test_started_json_alone_counts_as_the_heartbeat_and_a_short_silence_is_refused(ec2, s3, bucket, capsys):
    name = "20300101T120000Z-smoke-c6a-4xlarge"
    record(s3, bucket, name, 1)
    _, prefix = boot(ec2, s3, bucket, matrix(name, 1)[0], launched_at=NOW - timedelta(minutes=85))  # expires at NOW + 5 min
    heartbeat(s3, prefix, "started.json", NOW - timedelta(minutes=59))
    assert dispatch.dispatch_view(s3, ec2, bucket, name, NOW, timedelta(minutes=15))["shares"][0]["status"] == "running"
    assert dispatch.dispatch_view(s3, ec2, bucket, name, NOW + timedelta(minutes=1), timedelta(minutes=15))["shares"][0]["status"] == "silent"
    argv = ["--region", REGION, "--state-bucket", bucket, "tick", "--max-boxes", "3", "--silent-after-minutes", "5"]
    assert dispatch.main(argv, s3=s3, ec2=ec2, quotas=Quotas(48)) == 2
    assert "--silent-after-minutes 5: at least 20" in capsys.readouterr().err


def test_silence_is_measured_against_the_box_upload_interval(ec2, s3, bucket):
    """A box launched with a long upload interval (terraform/run allows up to 3600 s) beats that rarely;
    one that uploads only at the end (0) writes no progress.json and is never silent."""
    name = "20300101T120000Z-full-c6a-4xlarge"
    record(s3, bucket, name, 2)
    entries = matrix(name, 2)
    _, hourly = boot(ec2, s3, bucket, entries[0], launched_at=NOW - timedelta(minutes=85))
    _, at_end = boot(ec2, s3, bucket, entries[1], launched_at=NOW - timedelta(minutes=85))
    for prefix, interval in ((hourly, 1800), (at_end, 0)):
        bucket_r, key_r = dispatch.split_uri(prefix)
        s3.put_object(Bucket=bucket_r, Key=key_r + "started.json", Body=json.dumps(
            {"marker": "started", "at": dispatch.stamp(NOW - timedelta(minutes=80)), "upload_interval_s": interval}).encode())
    view = dispatch.dispatch_view(s3, ec2, bucket, name, NOW, timedelta(minutes=15))
    assert [s["status"] for s in view["shares"]] == ["running", "running"], "80 min < 3 x 30 min; interval 0: never silent"
    assert dispatch.silence(s3, "results-d", dispatch.split_uri(hourly)[1], NOW + timedelta(minutes=10), dispatch.SILENT_AFTER)
    assert not dispatch.silence(s3, "results-d", dispatch.split_uri(at_end)[1], NOW + timedelta(hours=5), dispatch.SILENT_AFTER)


def orphan(ec2, run_id, dispatch_name, expires_at="2030-01-01T13:30:00Z"):
    """What a launch job cancelled mid-apply leaves: terraform/run's instance (its tags) and no launch record."""
    ami = ec2.describe_images()["Images"][0]["ImageId"]
    tags = [{"Key": "Project", "Value": "samebox"}, {"Key": "samebox:run-id", "Value": run_id},
            {"Key": "samebox:dispatch", "Value": dispatch_name}, {"Key": "samebox:expires-at", "Value": expires_at}]
    return ec2.run_instances(ImageId=ami, InstanceType="c6a.4xlarge", MinCount=1, MaxCount=1,
                             TagSpecifications=[{"ResourceType": "instance", "Tags": tags}])["Instances"][0]["InstanceId"]


def test_an_instance_without_its_launch_record_is_adopted_never_launched_twice(ec2, s3, bucket, capsys):
    name = "20300101T120000Z-full-c6a-4xlarge"
    record(s3, bucket, name, 3)
    entries = matrix(name, 3)
    instance = orphan(ec2, entries[0]["run_id"], name)
    s3.create_bucket(Bucket="results-d")
    # without the results root it cannot be followed: held back, not launched again, the dispatch not ready
    held = dispatch.tick(s3, ec2, Quotas(480), bucket, 3, NOW, only=name)
    assert [s["status"] for s in held["shares"]] == ["launch unrecorded", "queued", "queued"]
    assert [e["run_id"] for e in held["launch"]] == [e["run_id"] for e in entries[1:]] and held["ready"] == []
    assert held["adopted"] == [{"run_id": entries[0]["run_id"], "instance_id": instance, "recorded": False}]
    root = "s3://results-d/boxes/AROATEST:"
    argv = ["--region", REGION, "--state-bucket", bucket, "--now", dispatch.stamp(NOW), "tick", "--max-boxes", "3", "--dispatch", name,
            "--results-root", root]
    assert dispatch.main(argv, s3=s3, ec2=ec2, quotas=Quotas(480)) == 0
    out = capsys.readouterr().out
    assert f"::warning::{entries[0]['run_id']}: instance {instance} runs without a launch record" in out and "adopted" in out
    adopted = json.loads(out[out.index("{"):])
    assert [e["run_id"] for e in adopted["launch"]] == [e["run_id"] for e in entries[1:]], "the orphan's share is not launched again"
    saved = dispatch.get_json(s3, bucket, f"runs/dispatches/{name}/{entries[0]['run_id']}.json")
    assert saved["instance_id"] == instance and saved["results_prefix"] == f"{root}{instance}/" and saved["adopted"] is True
    assert saved["expires_at"] == "2030-01-01T13:30:00Z", "the expiry is the instance's own tag"
    # followed from its launch (moto's LaunchTime is the real clock): running until its heartbeat is due
    later = dispatch.dispatch_view(s3, ec2, bucket, name, datetime.now(timezone.utc), timedelta(minutes=15))
    assert later["shares"][0]["status"] == "running" and later["shares"][0]["launched"]["instance_id"] == instance
    bad = dispatch.main(argv[:-1] + ["s3://results-d/boxes/"], s3=s3, ec2=ec2, quotas=Quotas(480))
    assert bad == 2 and "expected s3://<results bucket>/boxes/<box role id>:" in capsys.readouterr().err


def test_closing_a_dispatch_deletes_its_boxes_expiry_schedules(ec2, s3, bucket, moto_endpoint):
    import boto3
    scheduler = boto3.client("scheduler", region_name=REGION, endpoint_url=moto_endpoint)
    scheduler.create_schedule_group(Name="samebox")
    name = "20300101T120000Z-full-c6a-4xlarge"
    record(s3, bucket, name, 2)
    entries = matrix(name, 2)
    scheduler.create_schedule(Name=entries[0]["run_id"], GroupName="samebox", ScheduleExpression="at(2030-01-01T14:00:00)",
                              FlexibleTimeWindow={"Mode": "OFF"}, Target={
                                  "Arn": "arn:aws:scheduler:::aws-sdk:ec2:terminateInstances", "Input": '{"InstanceIds": ["i-0abc"]}',
                                  "RoleArn": "arn:aws:iam::123456789012:role/samebox-box-expiry"})
    # the second share never launched: it has no schedule, which is no error
    dispatch.close(s3, ec2, bucket, name, "collected", scheduler=scheduler)
    assert [s["Name"] for s in scheduler.list_schedules(GroupName="samebox")["Schedules"]] == []
