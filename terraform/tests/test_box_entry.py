"""The box entry script, run locally end to end with the cloud parts replaced:
upload goes to a folder, power-off and the shutdown timer are recorded.
The fake repository's pipeline/bin/main plays each way a run can end."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import TERRAFORM

BOX_SCRIPT = TERRAFORM / "box" / "run-on-box.sh"
RUN_ID = "20300101T120000Z-ci-test-box"

FAKE_MAIN = r"""#!/usr/bin/env bash
# Stand-in for pipeline/bin/main with the same arguments; FAKE_MAIN_MODE picks how the run ends.
set -u
printf '%s\n' "$@" > "$FAKE_EVENTS.main-args"
while [ $# -gt 0 ]; do case "$1" in --run-id) run_id=$2; shift 2 ;; *) shift ;; esac; done
echo "main $FAKE_MAIN_MODE cloud=${SAMEBOX_CLOUD_INSTANCE_TYPE:-} gotoolchain=${GOTOOLCHAIN:-}" >> "$FAKE_EVENTS"
write_run() {
  mkdir -p "data/runs/$run_id/cells/x" "data/runs/$run_id/logs"
  echo '{"run_id": "'"$run_id"'", "status": "complete"}' > "data/runs/$run_id/manifest.json"
  echo "run_id,value" > "data/runs/$run_id/records.csv"
  echo "raw tool output" > "data/runs/$run_id/cells/x/stdout.txt"
}
case "$FAKE_MAIN_MODE" in
  ok) write_run; exit 0 ;;
  half) write_run; echo "a cell failed" >&2; exit 1 ;;
  hang) write_run; sleep 600; exit 0 ;;
  slow) write_run; sleep 1; mkdir -p "data/runs/$run_id/cells/y"; echo "second cell" > "data/runs/$run_id/cells/y/stdout.txt"; sleep 600; exit 0 ;;
  crash) echo "boom" >&2; exit 3 ;;
esac
"""

FAKE_UPLOAD = r"""#!/usr/bin/env bash
# Stand-in for `aws s3 cp`: s3://bucket/key -> $FAKE_S3/bucket/key
set -eu
dest="$FAKE_S3/${2#s3://}"
echo "upload ${2}" >> "$FAKE_EVENTS"
if [ -d "$1" ]; then mkdir -p "$dest"; cp -R "$1/." "$dest"; else mkdir -p "$(dirname "$dest")"; cp "$1" "$dest"; fi
"""


@pytest.fixture
def box(tmp_path):
    """A fake samebox checkout (its own git repo) and the replaceable cloud commands."""
    repo = tmp_path / "origin"
    (repo / "pipeline" / "bin").mkdir(parents=True)
    (repo / "pipeline" / "bin" / "main").write_text(FAKE_MAIN)
    (repo / "terraform" / "scripts").mkdir(parents=True)
    shutil.copy(TERRAFORM / "allowed.json", repo / "terraform" / "allowed.json")
    shutil.copy(TERRAFORM / "scripts" / "validate_inputs.py", repo / "terraform" / "scripts" / "validate_inputs.py")
    shutil.copytree(TERRAFORM.parent / "pipeline" / "profiles", repo / "pipeline" / "profiles")
    shutil.copy(TERRAFORM / "scripts" / "shard_profile.py", repo / "terraform" / "scripts" / "shard_profile.py")
    shutil.copytree(TERRAFORM.parent / "bench-scripts" / "studies" / "oltp" / "workloads", repo / "bench-scripts" / "studies" / "oltp" / "workloads")
    # the valid studies and systems are the checkout's folders (validate_inputs.study_names, system_names):
    # their study.json / system.json is enough
    for kind, marker in (("studies", "study.json"), ("systems", "system.json")):
        for found in (TERRAFORM.parent / "bench-scripts" / kind).glob(f"*/{marker}"):
            (repo / "bench-scripts" / kind / found.parent.name).mkdir(parents=True, exist_ok=True)
            shutil.copy(found, repo / "bench-scripts" / kind / found.parent.name / marker)
    git = ["git", "-c", "user.name=test", "-c", "user.email=test@example.invalid"]
    subprocess.run([*git, "init", "-q", "-b", "main", str(repo)], check=True)
    subprocess.run([*git, "-C", str(repo), "add", "."], check=True)
    subprocess.run([*git, "-C", str(repo), "commit", "-q", "-m", "fake"], check=True)
    commit = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "fake-upload").write_text(FAKE_UPLOAD)
    (bin_dir / "fake-shutdown").write_text('#!/usr/bin/env bash\necho "shutdown +$1" >> "$FAKE_EVENTS"\n')
    (bin_dir / "fake-poweroff").write_text('#!/usr/bin/env bash\necho poweroff >> "$FAKE_EVENTS"\n')
    for tool in bin_dir.iterdir():
        tool.chmod(0o755)

    events = tmp_path / "events.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith("SAMEBOX_")}
    env.update(
        SAMEBOX_RUN_ID=RUN_ID, SAMEBOX_PROFILE="ci", SAMEBOX_STUDIES="oltp", SAMEBOX_SYSTEMS="sqlite",
        SAMEBOX_REPO_URL=f"file://{repo}", SAMEBOX_COMMIT=commit,
        SAMEBOX_WORKDIR=str(tmp_path / "work"), SAMEBOX_STATUS_DIR=str(tmp_path / "status"),
        SAMEBOX_MAX_MINUTES="30", SAMEBOX_SKIP_PREREQS="1",
        SAMEBOX_RESULTS_URI="s3://results/boxes/AROATEST:i-0abc/",
        SAMEBOX_SHUTDOWN_CMD=str(bin_dir / "fake-shutdown"), SAMEBOX_UPLOAD_CMD=str(bin_dir / "fake-upload"),
        SAMEBOX_POWEROFF_CMD=str(bin_dir / "fake-poweroff"),
        SAMEBOX_CLOUD_INSTANCE_TYPE="c6a.4xlarge", SAMEBOX_CLOUD_REGION="us-east-1", SAMEBOX_CLOUD_AMI_ID="ami-0123456789abcdef0",
        FAKE_EVENTS=str(events), FAKE_S3=str(tmp_path / "s3"), FAKE_MAIN_MODE="ok",
    )

    class Box:
        pass

    b = Box()
    b.env, b.events, b.commit, b.tmp = env, events, commit, tmp_path
    b.uploaded = tmp_path / "s3" / "results" / "boxes" / "AROATEST:i-0abc"
    return b


def session_members(session_id: int) -> list[tuple[int, str]]:
    """(pid, state) of every process in the session, zombies included."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == session_id:  # field 6 of /proc/<pid>/stat: session id
            members.append((int(stat.parent.name), fields[0]))
    return members


def kill_session(session_id: int, sig: int = signal.SIGTERM) -> None:
    """Signal every process in the session we started (timeout(1) makes its own
    process group, so a process-group kill would miss the benchmark). TERM: once each,
    as systemd does. KILL: again until none is left alive, since a process forked while
    the first pass ran would otherwise live on (bounded)."""
    deadline = time.monotonic() + 30
    while True:
        alive = [pid for pid, state in session_members(session_id) if state != "Z"]
        for pid in alive:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        if sig != signal.SIGKILL or not alive or time.monotonic() > deadline:
            return
        time.sleep(0.05)


def run_box(box, timeout=120, **overrides):
    env = dict(box.env, **overrides)
    return subprocess.run(["bash", str(BOX_SCRIPT)], env=env, capture_output=True, text=True, timeout=timeout)


def start_box_unit(env) -> subprocess.Popen:
    """The box script as systemd starts its unit: in a session of its own."""
    return subprocess.Popen(["bash", str(BOX_SCRIPT)], env=env, start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def survivors(session_id: int) -> list[str]:
    """The processes still in the session (zombies too: an orphan counts until init reaps it)."""
    found = []
    for proc_dir in Path("/proc").glob("[0-9]*"):
        try:
            stat = (proc_dir / "stat").read_text()
            fields = stat.rsplit(")", 1)[1].split()
            if int(fields[3]) == session_id:
                cmdline = (proc_dir / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
                found.append(f"{proc_dir.name} [{fields[0]}] {cmdline or stat[stat.index('('):stat.rindex(')') + 1]}")
        except (OSError, ValueError, IndexError):
            continue
    return found


def events(box) -> list[str]:
    return box.events.read_text().splitlines()


def done(box) -> dict:
    return json.loads((box.uploaded / "done.json").read_text())


def assert_ends_cleanly(box):
    lines = events(box)
    assert lines[0] == "shutdown +30", "the hard timer must be armed before anything else"
    assert lines[-1] == "poweroff"
    assert lines[-2].endswith("/done.json"), "the done marker is uploaded last"


def test_successful_run_uploads_everything_and_powers_off(box):
    result = run_box(box)
    assert result.returncode == 0, result.stdout + result.stderr
    assert_ends_cleanly(box)
    marker = done(box)
    assert marker["status"] == "ok" and marker["exit_code"] == 0
    assert marker["commit"] == box.commit and marker["run_dir_uploaded"] is True
    assert marker["instance_type"] == "c6a.4xlarge" and marker["ami_id"] == "ami-0123456789abcdef0"
    assert (box.uploaded / "run" / "manifest.json").is_file()
    assert (box.uploaded / "run" / "cells" / "x" / "stdout.txt").is_file()
    assert (box.uploaded / "logs" / "main.log").is_file()
    args = (box.tmp / "events.log.main-args").read_text().split()
    assert args == ["--profile", "ci", "--studies", "oltp", "--systems", "sqlite", "--run-id", RUN_ID, "--no-site"]
    assert "main ok cloud=c6a.4xlarge gotoolchain=go1.26.8" in events(box)
    assert marker["periodic_uploads"] == 0 and marker["upload_interval_s"] == 300


def test_bench_failing_half_way_still_uploads_what_it_measured(box):
    run_box(box, FAKE_MAIN_MODE="half")
    assert_ends_cleanly(box)
    assert done(box)["status"] == "cells_failed"
    assert (box.uploaded / "run" / "records.csv").is_file()
    assert "a cell failed" in (box.uploaded / "logs" / "main.log").read_text()


def test_main_crashing_without_a_run_folder(box):
    run_box(box, FAKE_MAIN_MODE="crash")
    assert_ends_cleanly(box)
    marker = done(box)
    assert marker["status"] == "failed" and marker["exit_code"] == 3
    assert marker["run_dir_uploaded"] is False


def test_timeout_kills_the_bench_and_still_reports(box):
    started = time.monotonic()
    proc = start_box_unit(dict(box.env, FAKE_MAIN_MODE="hang", SAMEBOX_BENCH_BUDGET_SECONDS="3"))
    output, _ = proc.communicate(timeout=60)
    assert time.monotonic() - started < 60
    assert_ends_cleanly(box)
    marker = done(box)
    assert marker["status"] == "timeout", output
    assert (box.uploaded / "run" / "manifest.json").is_file(), "what was written before the timeout is uploaded"
    assert survivors(proc.pid) == [], "the suite must not outlive the box script"


def test_shutdown_signal_mid_run_still_uploads_and_powers_off(box):
    proc = start_box_unit(dict(box.env, FAKE_MAIN_MODE="hang"))
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and "main hang" not in (box.events.read_text() if box.events.exists() else ""):
        time.sleep(0.1)
    kill_session(proc.pid)  # what systemd does to every process at shutdown
    output, _ = proc.communicate(timeout=60)
    print(output)
    assert_ends_cleanly(box)
    assert done(box)["status"] == "interrupted"
    assert survivors(proc.pid) == [], "the suite must not outlive the box script"


def test_unknown_commit_reports_clone_failed(box):
    run_box(box, SAMEBOX_COMMIT="0" * 40)
    assert_ends_cleanly(box)
    marker = done(box)
    assert marker["status"] == "clone_failed"
    assert (box.uploaded / "logs" / "clone.log").is_file()


@pytest.mark.parametrize("overrides,named", [
    ({"SAMEBOX_RUN_ID": "today"}, "SAMEBOX_RUN_ID 'today'"),
    ({"SAMEBOX_STUDIES": "oltp,tpcc"}, "'tpcc'"),
    ({"SAMEBOX_COMMIT": "main"}, "SAMEBOX_COMMIT 'main'"),
])
def test_bad_input_is_reported_and_the_box_still_powers_off(box, overrides, named):
    run_box(box, **overrides)
    lines = events(box)
    assert lines[0] == "shutdown +30" and lines[-1] == "poweroff"
    marker = done(box)
    assert marker["status"] == "invalid_input"
    assert named in marker["detail"]
    assert not any(line.startswith("main ") for line in lines), "nothing may run on bad input"


def test_a_box_with_a_share_of_the_workloads_runs_only_those(box):
    result = run_box(box, SAMEBOX_PROFILE="full", SAMEBOX_WORKLOADS="oltp_insert,pgbench_tpcb")
    assert result.returncode == 0, result.stdout + result.stderr
    args = (box.tmp / "events.log.main-args").read_text().split()
    profile = json.loads(Path(args[args.index("--profile") + 1]).read_text())
    assert profile["name"] == "full" and list(profile["studies"]) == ["oltp"]
    assert profile["studies"]["oltp"]["workloads"] == ["pgbench_tpcb", "oltp_insert"] or \
        sorted(profile["studies"]["oltp"]["workloads"]) == ["oltp_insert", "pgbench_tpcb"]
    assert done(box)["status"] == "ok"


def test_an_unknown_workload_share_is_rejected_before_the_suite(box):
    run_box(box, SAMEBOX_PROFILE="full", SAMEBOX_WORKLOADS="oltp_insert,tpcc")
    marker = done(box)
    assert marker["status"] == "invalid_input" and "'tpcc'" in marker["detail"]
    assert not any(line.startswith("main ") for line in events(box))


def test_a_box_that_dies_mid_run_has_already_uploaded_its_finished_cells(box):
    """No trap runs when the machine dies (power loss, hard terminate): only what the periodic
    sync already sent survives. Before incremental upload, nothing did."""
    proc = start_box_unit(dict(box.env, FAKE_MAIN_MODE="slow", SAMEBOX_UPLOAD_INTERVAL_SECONDS="1"))
    second = box.uploaded / "run" / "cells" / "y" / "stdout.txt"
    synced = box.tmp / "status" / "periodic-uploads"  # one line per completed sync of the run folder

    def syncs() -> int:
        return len(synced.read_text().splitlines()) if synced.exists() else 0

    # Seeing the second cell's file means a sync is copying it, not that it has finished (it copies
    # in directory order): wait for a sync that completed after that moment, so it sent everything.
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not second.is_file():
        time.sleep(0.1)
    seen_at = syncs()
    while time.monotonic() < deadline and syncs() <= seen_at:
        time.sleep(0.1)
    kill_session(proc.pid, signal.SIGKILL)  # the machine is gone: no trap, no final upload
    proc.communicate(timeout=60)
    assert second.is_file(), "the periodic sync must have uploaded the cell finished before the box died"
    assert (box.uploaded / "run" / "manifest.json").is_file()
    assert (box.uploaded / "run" / "cells" / "x" / "stdout.txt").is_file()
    assert not (box.uploaded / "done.json").exists()
    assert "poweroff" not in events(box)


def test_a_cancelled_box_ends_the_suite_and_uploads_while_the_network_is_up(box):
    """What systemd does when the unit is stopped (terminate, timer, cancel): SIGTERM to every process
    of the unit. The box ends the suite, syncs the folder, writes the marker, powers off."""
    env = dict(box.env, FAKE_MAIN_MODE="slow", SAMEBOX_UPLOAD_INTERVAL_SECONDS="60")
    proc = start_box_unit(env)
    # The second cell is finished once its output is written in full (its folder comes first: a TERM
    # in between would leave nothing to upload).
    second = Path(env["SAMEBOX_WORKDIR"]) / "data" / "runs" / RUN_ID / "cells" / "y" / "stdout.txt"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not (second.is_file() and second.read_text() == "second cell\n"):
        time.sleep(0.1)
    os.kill(proc.pid, signal.SIGTERM)  # the unit's main process first: it must end the suite itself
    output, _ = proc.communicate(timeout=60)
    assert_ends_cleanly(box)
    marker = done(box)
    assert marker["status"] == "interrupted", output
    assert (box.uploaded / "run" / "cells" / "y" / "stdout.txt").is_file()
    # No grace: the script ends every process it started before it exits itself.
    assert survivors(proc.pid) == [], "the suite must not outlive the box script"


@pytest.mark.skipif(os.environ.get("SAMEBOX_BOX_E2E") != "1",
                    reason="real `ci` profile end to end: set SAMEBOX_BOX_E2E=1 (installs packages, runs engines, minutes)")
def test_real_main_ci_profile_end_to_end(box, tmp_path):
    repo = TERRAFORM.parent
    commit = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    result = run_box(box, timeout=1800, SAMEBOX_REPO_URL=f"file://{repo}", SAMEBOX_COMMIT=commit,
                     SAMEBOX_STUDIES=os.environ.get("SAMEBOX_BOX_E2E_STUDIES", "oltp"),
                     SAMEBOX_SYSTEMS=os.environ.get("SAMEBOX_BOX_E2E_SYSTEMS", "sqlite"),
                     SAMEBOX_MAX_MINUTES="30")
    assert_ends_cleanly(box)
    marker = done(box)
    assert marker["status"] in ("ok", "cells_failed"), (marker, result.stdout[-2000:])
    manifest = json.loads((box.uploaded / "run" / "manifest.json").read_text())
    assert manifest["run_id"] == RUN_ID
    assert manifest["machine"]["cloud"]["instance_type"] == "c6a.4xlarge"
    assert (box.uploaded / "run" / "records.jsonl").is_file()


def test_heartbeat_started_before_the_suite_and_progress_while_it_runs(box):
    """collect tells a box that never started (no started.json minutes after launch) from a slow one."""
    proc = start_box_unit(dict(box.env, FAKE_MAIN_MODE="slow", SAMEBOX_UPLOAD_INTERVAL_SECONDS="1"))
    progress = box.uploaded / "progress.json"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (progress.is_file() and json.loads(progress.read_text())["cell_folders"] >= 2):
        time.sleep(0.1)
    kill_session(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=60)
    lines = events(box)
    started = lines.index("upload s3://results/boxes/AROATEST:i-0abc/started.json")
    assert started < next(i for i, line in enumerate(lines) if line.startswith("main ")), "started goes up before the suite"
    marker = json.loads((box.uploaded / "started.json").read_text())
    assert marker["run_id"] == RUN_ID and marker["marker"] == "started"
    assert marker["upload_interval_s"] == 1, "collect reads silence against the upload interval"
    assert json.loads(progress.read_text())["cell_folders"] >= 2, "progress counts the cells the suite has begun"


FLAKY_UPLOAD = r"""#!/usr/bin/env bash
# fails the first $FAKE_FAILS attempts of every destination, then acts as fake-upload
set -eu
count="$FAKE_S3.count.$(echo "$2" | md5sum | cut -c1-12)"
n=$(( $(cat "$count" 2>/dev/null || echo 0) + 1 )); echo "$n" > "$count"
if (( n <= FAKE_FAILS )); then echo "attempt $n ${2}" >> "$FAKE_EVENTS"; echo "connection reset" >&2; exit 1; fi
exec "$(dirname "$0")/fake-upload" "$@"
"""

TORN_UPLOAD = r"""#!/usr/bin/env bash
# a sync that dies part-way: a folder's manifest.json (if the folder has one) gets there, nothing else
set -eu
if [ -d "$1" ]; then
  if [ -f "$1/manifest.json" ]; then mkdir -p "$FAKE_S3/${2#s3://}"; cp "$1/manifest.json" "$FAKE_S3/${2#s3://}"; fi
  exit 1
fi
exec "$(dirname "$0")/fake-upload" "$@"
"""


def fake_tool(box, name, text):
    path = box.tmp / "bin" / name
    path.write_text(text)
    path.chmod(0o755)
    return str(path)


def test_uploads_are_retried_so_a_transient_error_loses_nothing(box):
    result = run_box(box, SAMEBOX_UPLOAD_CMD=fake_tool(box, "flaky-upload", FLAKY_UPLOAD), FAKE_FAILS="2",
                     SAMEBOX_UPLOAD_RETRY_DELAY="0", SAMEBOX_UPLOAD_INTERVAL_SECONDS="0")
    assert result.returncode == 0, result.stdout + result.stderr
    assert done(box)["status"] == "ok", "the done marker arrived on its third attempt"
    assert (box.uploaded / "run" / "manifest.json").is_file() and (box.uploaded / "run" / "cells" / "x" / "stdout.txt").is_file()
    assert sum(1 for line in events(box) if line.startswith("attempt ") and line.endswith("/done.json")) == 2


def test_a_run_folder_goes_up_as_a_snapshot_with_its_manifest_last(box):
    result = run_box(box, SAMEBOX_UPLOAD_INTERVAL_SECONDS="0")
    assert result.returncode == 0, result.stdout + result.stderr
    run_uploads = [line for line in events(box) if "/run/" in line]
    assert run_uploads == ["upload s3://results/boxes/AROATEST:i-0abc/run/",
                           "upload s3://results/boxes/AROATEST:i-0abc/run/manifest.json"], run_uploads
    assert json.loads((box.uploaded / "run" / "manifest.json").read_text())["status"] == "complete"


def test_a_sync_torn_part_way_never_leaves_a_manifest_naming_missing_cells(box):
    result = run_box(box, SAMEBOX_UPLOAD_CMD=fake_tool(box, "torn-upload", TORN_UPLOAD), SAMEBOX_UPLOAD_RETRY_DELAY="0",
                     SAMEBOX_UPLOAD_INTERVAL_SECONDS="0", TMPDIR=str(box.tmp))
    assert result.returncode == 0, result.stdout + result.stderr
    assert not (box.uploaded / "run" / "manifest.json").exists(), "the manifest goes up only after the complete folder"
    assert done(box)["run_dir_uploaded"] is False
    assert not list(box.tmp.glob("samebox-snapshot.*")), "the snapshot is removed"
