#!/usr/bin/env python3
"""terraform/run's list and expiry variables for one box, as a tfvars JSON file (lists given as
-var need quoting games). Values are re-checked against terraform/allowed.json."""
from __future__ import annotations

import argparse
import json
import re
import sys

from validate_inputs import InputError, check_list, load_allowed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--study", required=True)
    parser.add_argument("--systems", required=True, help="comma-separated")
    parser.add_argument("--workloads", default="", help="comma-separated share of the study's workloads; empty: all")
    parser.add_argument("--variants", default="", help="comma-separated variants this box runs; empty: all")
    parser.add_argument("--expires-at", required=True, help="RFC 3339 UTC, e.g. 2030-01-01T18:00:00Z")
    args = parser.parse_args(argv)
    try:
        allowed = load_allowed()
        studies = check_list("studies", args.study, allowed["studies"])
        systems = check_list("systems", args.systems, allowed["systems"])
        workloads = [w for w in args.workloads.split(",") if w]
        variants = [v for v in args.variants.split(",") if v]
        bad = [w for w in workloads + variants if not re.fullmatch(r"[a-z0-9_-]+", w)]
        if bad:
            raise InputError(f"invalid workload or variant {bad[0]!r}: names are lowercase letters, digits, _ and -")
        if not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z", args.expires_at):
            raise InputError(f"invalid expires-at {args.expires_at!r}: expected e.g. 2030-01-01T18:00:00Z")
    except InputError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(json.dumps({"studies": studies, "systems": systems, "workloads": workloads, "variants": variants, "expires_at": args.expires_at}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
