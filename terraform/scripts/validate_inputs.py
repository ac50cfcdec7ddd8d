#!/usr/bin/env python3
"""Check cloud-run inputs against terraform/allowed.json, the one list of valid values.

Used by the bench workflow before anything is launched, and again on the box.
Bad input exits 2 with one line naming the field, the bad value and the valid values.
With --github-output FILE the normalised values are appended as key=value lines.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ALLOWED_FILE = Path(__file__).resolve().parent.parent / "allowed.json"


class InputError(ValueError):
    pass


def load_allowed(path: Path = ALLOWED_FILE) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def split_list(raw: str) -> list[str]:
    items = [item for item in re.split(r"[,\s]+", raw.strip()) if item]
    return list(dict.fromkeys(items))  # de-duplicate, keep order


def check_list(field: str, raw: str, valid: list[str]) -> list[str]:
    items = split_list(raw)
    if not items:
        raise InputError(f"{field} is empty: give a comma-separated list of {', '.join(valid)}")
    unknown = [item for item in items if item not in valid]
    if unknown:
        raise InputError(f"invalid {field} {', '.join(repr(u) for u in unknown)}: valid values are {', '.join(valid)}")
    return items


def check_one(field: str, raw: str, valid: list[str]) -> str:
    value = raw.strip()
    if value not in valid:
        raise InputError(f"invalid {field} {value!r}: valid values are {', '.join(valid)}")
    return value


def validate(args: argparse.Namespace, allowed: dict) -> dict[str, str]:
    out: dict[str, str] = {}
    if args.studies is not None:
        out["studies"] = ",".join(check_list("studies", args.studies, allowed["studies"]))
    if args.systems is not None:
        out["systems"] = ",".join(check_list("systems", args.systems, allowed["systems"]))
    if args.profile is not None:
        out["profile"] = check_one("profile", args.profile, allowed["profiles"])
    if args.instance_type is not None:
        out["instance_type"] = check_one("instance type", args.instance_type, allowed["instance_types"])
    if args.topology is not None:
        out["topology"] = check_one("topology", args.topology, allowed["topologies"])
    if args.region is not None:
        out["region"] = check_one("region", args.region, allowed["regions"])
    if args.publish is not None:
        out["publish"] = check_one("publish", args.publish, ["yes", "no"])
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    # Each given field is checked; the bench workflow gives them all.
    parser.add_argument("--studies")
    parser.add_argument("--systems")
    parser.add_argument("--profile")
    parser.add_argument("--instance-type")
    parser.add_argument("--topology")
    parser.add_argument("--region")
    parser.add_argument("--publish")
    parser.add_argument("--allowed", type=Path, default=ALLOWED_FILE, help="allowed-values file (default: terraform/allowed.json)")
    parser.add_argument("--github-output", type=Path, help="append key=value lines here ($GITHUB_OUTPUT)")
    args = parser.parse_args(argv)
    if not any(v is not None for k, v in vars(args).items() if k not in ("allowed", "github_output")):
        parser.error("give at least one field to check")
    try:
        values = validate(args, load_allowed(args.allowed))
    except InputError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    lines = [f"{key}={value}" for key, value in values.items()]
    if args.github_output:
        with args.github_output.open("a", encoding="utf-8") as handle:
            handle.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
