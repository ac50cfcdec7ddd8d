#!/usr/bin/env python3
"""Check cloud-run inputs against terraform/allowed.json, the one list of valid values.

Used by the bench workflow before anything is launched, and again on the box.
Bad input exits 2 with one line naming the field, the bad value and the valid values.
With --github-output FILE the normalised values are appended as key=value lines.
"all" for studies or systems means every study of the profile (pipeline/profiles/<profile>.json),
or every system those studies list there; naming a study the profile lacks is an error too.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ALLOWED_FILE = Path(__file__).resolve().parent.parent / "allowed.json"
PROFILES_DIR = Path(__file__).resolve().parents[2] / "pipeline" / "profiles"
SYSTEMS_DIR = Path(__file__).resolve().parents[2] / "bench-scripts" / "systems"
STUDIES_DIR = Path(__file__).resolve().parents[2] / "bench-scripts" / "studies"
# One safe shape for folder-derived names (they reach tags, S3 keys and shell arguments).
SYSTEM_NAME = re.compile(r"^[a-z0-9][a-z0-9-]*$")


class InputError(ValueError):
    pass


def system_names(systems_dir: Path = SYSTEMS_DIR) -> list[str]:
    """The systems are the folders with a system.json (a system is one folder), names of the safe shape only."""
    return sorted(p.parent.name for p in systems_dir.glob("*/system.json") if SYSTEM_NAME.match(p.parent.name))


def study_names(studies_dir: Path = STUDIES_DIR) -> list[str]:
    """The studies are the folders with a study.json (as systems are: a copied study folder is a valid cloud input)."""
    return sorted(p.parent.name for p in studies_dir.glob("*/study.json") if SYSTEM_NAME.match(p.parent.name))


def load_allowed(path: Path = ALLOWED_FILE, studies_dir: Path | None = None, systems_dir: Path | None = None) -> dict:
    """allowed.json plus the lists derived from the folders (studies, systems); allowed.json may not list them."""
    allowed = json.loads(path.read_text(encoding="utf-8"))
    for key in ("studies", "systems"):
        if key in allowed:
            raise InputError(f"{path} lists {key}: they are derived from the folders of bench-scripts/{key} (remove the key)")
    allowed["studies"] = study_names(studies_dir or STUDIES_DIR)
    allowed["systems"] = system_names(systems_dir or SYSTEMS_DIR)
    return allowed


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


def load_profile_studies(profiles_dir: Path, profile: str) -> dict[str, list[str]]:
    """study -> systems of a suite profile (only what the dispatch needs from it)."""
    path = profiles_dir / f"{profile}.json"
    try:
        studies = json.loads(path.read_text(encoding="utf-8"))["studies"]
    except (OSError, ValueError, KeyError) as error:
        raise InputError(f"cannot read the studies of profile {profile!r} from {path}: {error}") from error
    return {name: list(spec.get("systems", [])) for name, spec in studies.items()}


def validate(args: argparse.Namespace, allowed: dict) -> dict[str, str]:
    out: dict[str, str] = {}
    if args.profile is not None:
        out["profile"] = check_one("profile", args.profile, allowed["profiles"])
    in_profile = load_profile_studies(args.profiles_dir, out["profile"]) if "profile" in out else None
    if args.studies is not None:
        if args.studies.strip() == "all" and in_profile is not None:
            studies = [s for s in in_profile if s in allowed["studies"]]
        else:
            studies = check_list("studies", args.studies, allowed["studies"])
        if in_profile is not None:
            missing = [s for s in studies if s not in in_profile]
            if missing:
                raise InputError(f"profile {out['profile']!r} has no study {', '.join(repr(m) for m in missing)}: it has {', '.join(in_profile)}")
        out["studies"] = ",".join(studies)
    if args.systems is not None:
        if args.systems.strip() == "all" and in_profile is not None and "studies" in out:
            wanted = {system for study in out["studies"].split(",") for system in in_profile[study]}
            systems = [s for s in allowed["systems"] if s in wanted]
        else:
            systems = check_list("systems", args.systems, allowed["systems"])
        out["systems"] = ",".join(systems)
    if args.instance_type is not None:
        out["instance_type"] = check_one("instance type", args.instance_type, allowed["instance_types"])
    if args.region is not None:
        out["region"] = check_one("region", args.region, allowed["regions"])
    if args.publish is not None:
        out["publish"] = publish_of(check_one("publish", args.publish, ["auto", "yes", "no"]), out.get("profile", args.profile))
    return out


def publish_of(publish: str, profile: str | None) -> str:
    """auto (the dispatch default): a smoke run proves the path and its throwaway numbers stay out of
    data/runs; every other profile opens its pull request. yes and no are taken as given."""
    if publish != "auto":
        return publish
    return "no" if profile == "smoke" else "yes"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    # Each given field is checked; the bench workflow gives them all.
    parser.add_argument("--studies")
    parser.add_argument("--systems")
    parser.add_argument("--profile")
    parser.add_argument("--instance-type")
    parser.add_argument("--region")
    parser.add_argument("--publish", help="auto (no for smoke, yes otherwise), yes or no")
    parser.add_argument("--allowed", type=Path, default=ALLOWED_FILE, help="allowed-values file (default: terraform/allowed.json)")
    parser.add_argument("--profiles-dir", type=Path, default=PROFILES_DIR, help="suite profiles (default: pipeline/profiles)")
    parser.add_argument("--github-output", type=Path, help="append key=value lines here ($GITHUB_OUTPUT)")
    args = parser.parse_args(argv)
    if not any(v is not None for k, v in vars(args).items() if k not in ("allowed", "github_output", "profiles_dir")):
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
