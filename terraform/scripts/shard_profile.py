#!/usr/bin/env python3
"""A box's share of a suite profile: the profile with each study's workloads restricted to the given
ones (the estimate splits a study too long for one box by workload). The name stays the profile's,
so the records say `full`; the description says which share this is. Prints the new file's path.
Bad input (an unknown workload, a study the profile lacks) exits 2 with one line."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def shard(profile: dict, studies: list[str], workloads: list[str], studies_dir: Path, variants: list[str] | None = None) -> dict:
    out = dict(profile, studies={})
    for study in studies:
        if study not in profile["studies"]:
            raise ValueError(f"profile {profile['name']!r} has no study {study!r}")
        spec = dict(profile["studies"][study])
        available = sorted(p.stem for p in (studies_dir / study / "workloads").glob("*.json"))
        unknown = [w for w in workloads if w not in available]
        if unknown:
            raise ValueError(f"unknown workload {unknown[0]!r} for study {study}; valid: {', '.join(available)}")
        listed = spec.get("workloads") or available
        spec["workloads"] = [w for w in listed if w in workloads]
        if not spec["workloads"]:
            raise ValueError(f"none of {', '.join(workloads)} is in profile {profile['name']!r} for study {study}")
        if variants:
            listed_variants = spec.get("variants") or []
            unknown = [v for v in variants if v not in listed_variants]
            if unknown:
                raise ValueError(f"variant {unknown[0]!r} is not in profile {profile['name']!r} for study {study}; it has {', '.join(listed_variants) or 'none'}")
            spec["variants"] = variants
        out["studies"][study] = spec
    share = ", ".join(workloads) + (f" ({', '.join(variants)} only)" if variants else "")
    out["description"] = f"{profile['description']} (this box: {share} of {', '.join(studies)})"
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", required=True)
    parser.add_argument("--studies", required=True)
    parser.add_argument("--workloads", required=True)
    parser.add_argument("--variants", default="", help="comma-separated; empty: the profile's")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    try:
        profile = json.loads((REPO / "pipeline" / "profiles" / f"{args.profile}.json").read_text(encoding="utf-8"))
        result = shard(profile, [s for s in args.studies.split(",") if s], [w for w in args.workloads.split(",") if w],
                       REPO / "bench-scripts" / "studies", [v for v in args.variants.split(",") if v])
    except (OSError, ValueError, KeyError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
