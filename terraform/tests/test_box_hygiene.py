"""Ubuntu 24.04 hygiene of the box script and the apt calls the box makes: every apt call waits for
the dpkg lock, apt timers / unattended upgrades are off, needrestart only lists, pgvector is installed
for PostgreSQL. The box script runs with apt-get, systemctl, snap and dpkg-query replaced by recorders."""
from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from conftest import REPO
from test_box_entry import box, run_box  # noqa: F401  (the fixture)

APT_CALL = re.compile(r"\bapt[-_]get\b[^\n]*\b(update|install|upgrade|remove|purge)\b")
# The apt calls on a box: the box script's own, pipeline/bin/setup's, and every install verb's (lib/common.sh).
APT_FILES = ["terraform/box/run-on-box.sh", "pipeline/bin/setup", "bench-scripts/lib/common.sh"]


@pytest.mark.parametrize("path", APT_FILES)
def test_every_apt_call_waits_for_the_dpkg_lock(path):
    # a call, not a message about one: quoted text and comments are left out
    calls = [line.strip() for line in (REPO / path).read_text().splitlines()
             if APT_CALL.search(re.sub(r'"[^"]*"', '""', line.split(" #")[0])) and not line.lstrip().startswith("#")]
    assert calls, f"{path}: no apt-get call found (did the file move?)"
    # apt_get: the box script's wrapper, which waits for every apt and dpkg lock and passes apt_lock
    missing = [c for c in calls if "Lock::Timeout" not in c and "apt_lock" not in c and not re.search(r"\bapt_get\b", c)]
    assert not missing, f"{path}: apt calls without a dpkg lock timeout: {missing}"


RECORDER = '#!/usr/bin/env bash\necho "{name} $*" >> "$FAKE_EVENTS"\n'
FAKE_DPKG_QUERY = '#!/usr/bin/env bash\necho "dpkg-query $*" >> "$FAKE_EVENTS"\nprintf "postgresql-18\\n"\n'
FAKE_PG_INSTALL = '#!/usr/bin/env bash\necho "postgresql install" >> "$FAKE_EVENTS"\n'


def prereq_box(box, tmp_path):  # noqa: F811
    """The box with its prerequisites on (fake OS commands first on PATH) and a postgresql install verb."""
    fakes = tmp_path / "os-bin"
    fakes.mkdir()
    for name in ("apt-get", "systemctl", "snap", "aws"):
        (fakes / name).write_text(RECORDER.format(name=name))
    (fakes / "dpkg-query").write_text(FAKE_DPKG_QUERY)
    for tool in fakes.iterdir():
        tool.chmod(0o755)
    repo = tmp_path / "origin"
    (repo / "bench-scripts" / "systems" / "postgresql" / "install").write_text(FAKE_PG_INSTALL)
    git = ["git", "-C", str(repo), "-c", "user.name=test", "-c", "user.email=test@example.invalid"]
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "postgresql install"], check=True)
    commit = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    return dict(SAMEBOX_SKIP_PREREQS="0", SAMEBOX_SYSTEM_ROOT=str(tmp_path / "root"), SAMEBOX_COMMIT=commit,
                SAMEBOX_SYSTEMS="postgresql", PATH=f"{fakes}:{box.env['PATH']}")


def test_box_quiets_ubuntu_and_installs_pgvector(box, tmp_path):  # noqa: F811
    result = run_box(box, **prereq_box(box, tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    lines = box.events.read_text().splitlines()
    # a run already going is stopped (disable alone leaves it holding the locks), and nothing starts one again
    stop = lines.index("systemctl stop apt-daily.timer apt-daily-upgrade.timer apt-daily.service apt-daily-upgrade.service "
                       "unattended-upgrades.service")
    mask = lines.index("systemctl mask apt-daily.timer apt-daily-upgrade.timer apt-daily.service apt-daily-upgrade.service")
    assert stop < mask < next(i for i, line in enumerate(lines) if line.startswith("apt-get ")), lines
    apt = [line for line in lines if line.startswith("apt-get ")]
    assert apt and all("-o DPkg::Lock::Timeout=600" in line for line in apt), apt
    assert any(line.endswith("install -y -q --no-install-recommends postgresql-18-pgvector") for line in apt), apt
    # the install verb (PGDG + the server) before its extension, and both before the suite
    order = [i for i, line in enumerate(lines) if line == "postgresql install" or "pgvector" in line or line.startswith("main ")]
    assert [lines[i].split()[0] for i in order] == ["postgresql", "apt-get", "main"], lines
    root = tmp_path / "root" / "etc"
    assert "$nrconf{restart} = 'l';" in (root / "needrestart" / "conf.d" / "99samebox.conf").read_text()
    apt_conf = (root / "apt" / "apt.conf.d" / "99samebox").read_text()
    assert 'APT::Periodic::Unattended-Upgrade "0";' in apt_conf and 'DPkg::Lock::Timeout "600";' in apt_conf


def test_pgvector_is_not_installed_for_other_systems(box, tmp_path):  # noqa: F811
    result = run_box(box, **dict(prereq_box(box, tmp_path), SAMEBOX_SYSTEMS="sqlite"))
    assert result.returncode == 0, result.stdout + result.stderr
    lines = box.events.read_text().splitlines()
    assert "postgresql install" not in lines and not any("pgvector" in line for line in lines)


FAILING_APT = '#!/usr/bin/env bash\necho "apt-get $*" >> "$FAKE_EVENTS"\ncase " $* " in *" install "*) echo "E: dpkg was interrupted" >&2; exit 100 ;; esac\n'
# snap installs the AWS CLI: only from then on is there an `aws` to upload with
FAKE_SNAP = ('#!/usr/bin/env bash\necho "snap $*" >> "$FAKE_EVENTS"\n'
             'if [ "$1 $2" = "install aws-cli" ]; then printf \'#!/usr/bin/env bash\\necho "aws $*" >> "$FAKE_EVENTS"\\n\' > "$(dirname "$0")/aws"; '
             'chmod +x "$(dirname "$0")/aws"; fi\n')
NEEDS_AWS = '#!/usr/bin/env bash\ncommand -v aws >/dev/null || { echo "aws: command not found" >&2; exit 127; }\nexec "$FAKE_UPLOAD" "$@"\n'


def test_an_apt_failure_at_boot_is_still_reported_with_its_log(box, tmp_path):  # noqa: F811
    """Issue 20 item 6: apt failing at first boot (the dpkg lock, a broken mirror) used to end the box before the AWS
    CLI existed, so nothing was uploaded and the box looked as if it never started. The CLI (a snap, no dpkg lock)
    comes first: started.json goes up before any apt call, and the failure comes back as done.json with the log."""
    env = prereq_box(box, tmp_path)
    fakes = tmp_path / "os-bin"
    (fakes / "aws").unlink()
    (fakes / "apt-get").write_text(FAILING_APT)
    (fakes / "snap").write_text(FAKE_SNAP)
    (tmp_path / "bin" / "needs-aws").write_text(NEEDS_AWS)
    for tool in (fakes / "apt-get", fakes / "snap", tmp_path / "bin" / "needs-aws"):
        tool.chmod(0o755)
    # no other aws on PATH: the box has none until snap installs it
    path = [str(fakes)] + [d for d in env["PATH"].split(":")[1:] if d and not (Path(d) / "aws").exists()]
    run_box(box, **dict(env, PATH=":".join(path), SAMEBOX_UPLOAD_CMD=str(tmp_path / "bin" / "needs-aws"),
                        FAKE_UPLOAD=box.env["SAMEBOX_UPLOAD_CMD"], SAMEBOX_UPLOAD_RETRIES="1"))
    lines = box.events.read_text().splitlines()
    snap = lines.index("snap install aws-cli --classic")
    started = lines.index("upload s3://results/boxes/AROATEST:i-0abc/started.json")
    first_apt = next(i for i, line in enumerate(lines) if line.startswith("apt-get "))
    assert snap < started < first_apt, lines
    done = json.loads((box.uploaded / "done.json").read_text())
    assert done["status"] == "error" and "apt-get install of prerequisites failed" in done["detail"], done
    assert "dpkg was interrupted" in (box.uploaded / "logs" / "prereqs.log").read_text()
    assert not any(line.startswith("main ") for line in lines), "the suite never ran"


HOLD_LOCK = """import fcntl, os, sys, time
path, events, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
os.makedirs(os.path.dirname(path), exist_ok=True)
with open(path, "w") as lock:
    fcntl.lockf(lock, fcntl.LOCK_EX)
    print("held", flush=True)
    time.sleep(seconds)
    with open(events, "a") as log:
        log.write("apt-daily released the lists lock\\n")
"""


def test_apt_update_waits_for_the_lists_lock_an_apt_daily_run_holds(box, tmp_path):  # noqa: F811
    """DPkg::Lock::Timeout covers dpkg's lock, not the lists lock of `apt-get update`, which an apt-daily run at
    first boot holds: the box waits for it instead of failing its prerequisites."""
    env = prereq_box(box, tmp_path)
    holder = subprocess.Popen(["python3", "-c", HOLD_LOCK, str(tmp_path / "root" / "var/lib/apt/lists/lock"),
                               str(box.events), "4"], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        result = run_box(box, **env)
    finally:
        holder.wait(timeout=30)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = box.events.read_text().splitlines()
    released = lines.index("apt-daily released the lists lock")
    assert released < next(i for i, line in enumerate(lines) if line.startswith("apt-get ")), lines


FLAKY = """#!/usr/bin/env bash
echo "{name} $*" >> "$FAKE_EVENTS"
count="$FAKE_EVENTS.{name}-calls"
echo x >> "$count"
if [ "$(wc -l < "$count")" -le {failures} ]; then echo "{name}: transient error" >&2; exit 1; fi
{then}
"""


# `snap install` fails twice (the store unreachable), then installs an aws
FLAKY_SNAP = """#!/usr/bin/env bash
echo "snap $*" >> "$FAKE_EVENTS"
[ "$1" = install ] || exit 0
echo x >> "$FAKE_EVENTS.installs"
if [ "$(wc -l < "$FAKE_EVENTS.installs")" -le 2 ]; then echo "error: cannot reach the snap store" >&2; exit 1; fi
printf '#!/usr/bin/env bash\\n' > "$(dirname "$0")/aws" && chmod +x "$(dirname "$0")/aws"
"""


def test_the_aws_cli_install_is_retried(box, tmp_path):  # noqa: F811
    """A snap store hiccup at boot used to leave the box without the CLI: nothing uploaded, no trace."""
    env = prereq_box(box, tmp_path)
    snap = tmp_path / "os-bin" / "snap"
    (tmp_path / "os-bin" / "aws").unlink()
    snap.write_text(FLAKY_SNAP)
    path = [str(tmp_path / "os-bin")] + [d for d in env["PATH"].split(":")[1:] if d and not (Path(d) / "aws").exists()]
    result = run_box(box, **dict(env, PATH=":".join(path), SAMEBOX_RETRY_DELAY="0"))
    assert result.returncode == 0, result.stdout + result.stderr
    lines = box.events.read_text().splitlines()
    assert lines.count("snap install aws-cli --classic") == 2 + 1, lines
    assert json.loads((box.uploaded / "done.json").read_text())["status"] == "ok"


def test_the_upload_prefix_survives_sts_failing_at_boot(box, tmp_path):  # noqa: F811
    """The prefix comes from STS (the instance role's <role-id>:<instance-id>); one failure at boot used to leave the
    box without heartbeats, so collect terminated a working box as 'never started'."""
    aws = tmp_path / "bin" / "aws"
    aws.write_text(FLAKY.format(name="aws", failures=2, then='echo "AROATEST:i-0abc"'))
    aws.chmod(0o755)
    env = {k: v for k, v in box.env.items() if k != "SAMEBOX_RESULTS_URI"}
    result = subprocess.run(["bash", str(REPO / "terraform/box/run-on-box.sh")], capture_output=True, text=True, timeout=120,
                            env=dict(env, SAMEBOX_RESULTS_BUCKET="results", SAMEBOX_RETRY_DELAY="0",
                                     PATH=f"{tmp_path / 'bin'}:{env['PATH']}"))
    assert result.returncode == 0, result.stdout + result.stderr
    lines = box.events.read_text().splitlines()
    assert lines.count("aws sts get-caller-identity --query UserId --output text") == 3, lines
    assert "upload s3://results/boxes/AROATEST:i-0abc/started.json" in lines
    assert lines.index("upload s3://results/boxes/AROATEST:i-0abc/started.json") < next(
        i for i, line in enumerate(lines) if line.startswith("main ")), "the heartbeat goes up before the suite"
