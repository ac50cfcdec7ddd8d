#!/usr/bin/env python3
"""Cost of a cloud run: at the price the dispatch looked up (--listed-price), else from data/prices/ec2-on-demand.csv.

EC2 Linux on-demand bills per second with a 60-second minimum per instance.
Prints a JSON cost block. --manifest is read only (without a done marker, the
seconds the synced run proves); the block goes into the manifest through
`samebox cost <run-dir> --block <file>`, the pipeline being the one writer of
manifest.json. A price that is missing or unconfirmed gives usd = null and the
reason, never a guess.
"""
from __future__ import annotations

import argparse
import csv
import json
import sys
from datetime import datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PRICES = REPO / "data" / "prices" / "ec2-on-demand.csv"
MIN_BILLED_SECONDS = 60


def load_price(path: Path, region: str, instance_type: str) -> dict | None:
    """Newest confirmed row for region + instance type, or None."""
    with path.open(newline="", encoding="utf-8") as handle:
        rows = [
            row for row in csv.DictReader(handle)
            if row["region"] == region and row["instance_type"] == instance_type
            and row["confirmed"] == "yes" and row["usd_per_hour"].strip()
        ]
    if not rows:
        return None
    return max(rows, key=lambda row: row["date"])


def listed_price(path: Path | None, region: str, instance_type: str) -> dict | None:
    """The price the dispatch looked up when it was recorded (ec2_price.py), as a price row, when it has one
    for this region and type; None otherwise (then the CSV's)."""
    if path is None:
        return None
    try:
        listed = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(listed, dict) or not isinstance(listed.get("usd_per_hour"), (int, float)) or listed["usd_per_hour"] <= 0:
        return None
    if (listed.get("region"), listed.get("instance_type")) != (region, instance_type):
        return None
    return {"usd_per_hour": str(listed["usd_per_hour"]), "date": listed.get("price_date"), "source_url": listed.get("price_source")}


def cost_block(prices: Path, region: str, instance_type: str, seconds: float, instances: int, listed: Path | None = None) -> dict:
    billed = max(seconds, MIN_BILLED_SECONDS) * instances
    block: dict = {
        "usd": None,
        "usd_per_hour": None,
        "instance_type": instance_type,
        "region": region,
        "instance_count": instances,
        "billed_seconds": round(billed, 3),
        "price_date": None,
        "price_source": None,
        "basis": "EC2 Linux on-demand, per second, 60 s minimum per instance; EBS and data transfer excluded",
    }
    row = listed_price(listed, region, instance_type) or load_price(prices, region, instance_type)
    if row is None:
        block["reason"] = f"no confirmed price for {instance_type} in {region} in {prices.name}"
        return block
    per_hour = float(row["usd_per_hour"])
    block.update(
        usd=round(per_hour * billed / 3600, 4),
        usd_per_hour=per_hour,
        price_date=row["date"],
        price_source=row["source_url"],
    )
    return block


def seconds_from_done(path: Path) -> float | None:
    """The box's wall time from its done marker; None when there is no readable marker."""
    try:
        seconds = json.loads(path.read_text(encoding="utf-8")).get("duration_s")
    except (OSError, ValueError, AttributeError):
        return None
    return float(seconds) if isinstance(seconds, (int, float)) and seconds >= 0 else None


def iso_seconds(stamp: object) -> float | None:
    try:
        return datetime.fromisoformat(str(stamp).replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def seconds_seen_in_manifest(manifest: dict) -> float:
    """What the synced manifest proves the box ran: its start to its end or its latest cell's end
    (0 when it says nothing). A lower bound of the billed time, never an estimate of it."""
    start = iso_seconds(manifest.get("started_at"))
    if start is None:
        return 0.0
    ends = [iso_seconds(manifest.get("ended_at"))]
    for cell in manifest.get("cells") or []:
        begun = iso_seconds(cell.get("started_at"))
        if begun is not None:
            ends.append(begun + (cell.get("duration_s") if isinstance(cell.get("duration_s"), (int, float)) else 0))
    latest = max((end for end in ends if end is not None), default=start)
    return round(max(latest - start, 0.0), 3)


def unknown_block(region: str, instance_type: str, instances: int, seen_seconds: float, reason: str) -> dict:
    # The schema wants billed_seconds as a number: it holds the seconds the synced run proves,
    # while usd stays null (the site then shows the reason, never a price of a guessed time).
    return {"usd": None, "usd_per_hour": None, "instance_type": instance_type, "region": region,
            "instance_count": instances, "billed_seconds": seen_seconds, "price_date": None, "price_source": None,
            "basis": "EC2 Linux on-demand; billed_seconds is a lower bound: the run's own start to its last synced cell",
            "reason": reason}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--region", required=True)
    parser.add_argument("--instance-type", required=True)
    when = parser.add_mutually_exclusive_group(required=True)
    when.add_argument("--seconds", type=float, help="wall time each instance ran")
    when.add_argument("--done", type=Path, help="the box's done.json: its duration_s is the wall time; missing or unreadable gives usd null, never a made-up minimum")
    parser.add_argument("--instances", type=int, default=1)
    parser.add_argument("--prices", type=Path, default=PRICES)
    parser.add_argument("--listed-price", type=Path, help="the dispatch's price lookup (its plan's price block); "
                        "used instead of --prices when it has a price for this region and type")
    parser.add_argument("--manifest", type=Path, help="the run's manifest, read for the seconds it proves when there is no done marker")
    args = parser.parse_args(argv)
    if (args.seconds is not None and args.seconds < 0) or args.instances < 1:
        print("error: --seconds must be >= 0 and --instances >= 1", file=sys.stderr)
        return 2
    manifest = json.loads(args.manifest.read_text(encoding="utf-8")) if args.manifest else {}
    seconds = args.seconds if args.done is None else seconds_from_done(args.done)
    if seconds is None:
        seen = seconds_seen_in_manifest(manifest)
        block = unknown_block(args.region, args.instance_type, args.instances, seen,
                              f"no readable done marker ({args.done}): the box's billed time is unknown "
                              f"(its run shows at least {seen:.0f} s)")
    else:
        block = cost_block(args.prices, args.region, args.instance_type, seconds, args.instances, args.listed_price)
    print(json.dumps(block, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
