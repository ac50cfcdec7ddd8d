"""Cost from the dated, sourced price table; no guessed figures."""
from __future__ import annotations

import csv
import json
import subprocess
import sys

from conftest import REPO, SCRIPTS, TERRAFORM

import run_cost

PRICES = REPO / "data" / "prices" / "ec2-on-demand.csv"


def test_price_table_rows_are_dated_sourced_and_honest():
    with PRICES.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert rows
    for row in rows:
        assert row["date"][:4].isdigit() and row["source_url"].startswith("https://")
        if row["confirmed"] == "yes":
            assert float(row["usd_per_hour"]) > 0
        else:
            assert row["usd_per_hour"] == "", "an unconfirmed row must not carry a number"
            assert "not confirmed" in row["note"]


def test_every_allowed_instance_type_has_a_row_in_some_region():
    allowed = json.loads((TERRAFORM / "allowed.json").read_text())
    with PRICES.open(newline="") as handle:
        priced = {row["instance_type"] for row in csv.DictReader(handle)}
    assert set(allowed["instance_types"]) <= priced


def test_cost_of_a_known_type():
    block = run_cost.cost_block(PRICES, "us-east-1", "c6a.4xlarge", seconds=2 * 3600, instances=1)
    assert block["usd_per_hour"] == 0.612
    assert block["usd"] == round(0.612 * 2, 4)
    assert block["price_date"] and block["price_source"].startswith("https://")


def test_sixty_second_minimum_and_instance_count():
    block = run_cost.cost_block(PRICES, "us-east-1", "c6a.4xlarge", seconds=5, instances=2)
    assert block["billed_seconds"] == 120
    assert block["usd"] == round(0.612 * 120 / 3600, 4)


def test_unconfirmed_price_gives_null_and_the_reason():
    block = run_cost.cost_block(PRICES, "eu-west-1", "c6a.4xlarge", seconds=3600, instances=1)
    assert block["usd"] is None
    assert "no confirmed price for c6a.4xlarge in eu-west-1" in block["reason"]


def test_run_cost_reads_the_manifest_and_never_writes_it(tmp_path):
    """manifest.json has one writer, the pipeline (`samebox cost` stores the block): run_cost.py only prints it."""
    manifest = tmp_path / "manifest.json"
    before = json.dumps({"run_id": "20300101T000000Z-full-x"})
    manifest.write_text(before)
    result = subprocess.run([sys.executable, str(SCRIPTS / "run_cost.py"), "--region", "us-east-1", "--instance-type",
                             "c6a.4xlarge", "--manifest", str(manifest), "--seconds", "3600"],
                            check=True, capture_output=True, text=True, timeout=30)
    assert json.loads(result.stdout)["usd"] == 0.612
    assert manifest.read_text() == before


def test_missing_done_marker_gives_no_cost_rather_than_the_minimum(tmp_path):
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({"run_id": "x", "cost": None}))
    result = subprocess.run([sys.executable, str(SCRIPTS / "run_cost.py"), "--region", "us-east-1",
                             "--instance-type", "c6a.4xlarge", "--done", str(tmp_path / "done.json"),
                             "--manifest", str(manifest)], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    block = json.loads(result.stdout)
    assert block["usd"] is None and "no readable done marker" in block["reason"]


def test_cost_from_the_done_marker(tmp_path):
    done = tmp_path / "done.json"
    done.write_text(json.dumps({"status": "ok", "duration_s": 3600}))
    result = subprocess.run([sys.executable, str(SCRIPTS / "run_cost.py"), "--region", "us-east-1",
                             "--instance-type", "c6a.4xlarge", "--done", str(done)], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["usd"] == 0.612


def test_the_price_the_dispatch_looked_up_is_used_when_it_is_for_this_region_and_type(tmp_path):
    done = tmp_path / "done.json"
    done.write_text(json.dumps({"status": "ok", "duration_s": 3600}))
    listed = tmp_path / "price.json"

    def cost(**price):
        listed.write_text(json.dumps(price))
        result = subprocess.run([sys.executable, str(SCRIPTS / "run_cost.py"), "--region", "us-east-1", "--instance-type", "c6a.4xlarge",
                                 "--done", str(done), "--listed-price", str(listed)], capture_output=True, text=True, timeout=30)
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout)

    looked_up = cost(usd_per_hour=0.5, price_date="2030-01-01", price_source="AWS Price List API", region="us-east-1",
                     instance_type="c6a.4xlarge")
    assert (looked_up["usd"], looked_up["price_date"], looked_up["price_source"]) == (0.5, "2030-01-01", "AWS Price List API")
    # a lookup that failed, or one for another type, leaves the dated table's price
    for other in ({"usd_per_hour": None, "reason": "price lookup failed"},
                  {"usd_per_hour": 1.0, "region": "us-east-1", "instance_type": "c6a.8xlarge"}):
        assert cost(**other)["usd"] == 0.612
