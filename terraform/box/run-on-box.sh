#!/usr/bin/env bash
# samebox cloud box entry: run one benchmark and always end with the results
# uploaded, a done marker written and the machine powered off (the instance's
# shutdown behaviour is "terminate", so power-off ends the bill).
#
# The same script runs locally for tests: every cloud step can be replaced.
#   required  SAMEBOX_RUN_ID SAMEBOX_PROFILE SAMEBOX_STUDIES SAMEBOX_SYSTEMS (comma lists)
#   share     SAMEBOX_WORKLOADS, SAMEBOX_VARIANTS (comma lists; empty = all): this box's share of a
#             study too long for one box
#   clone     SAMEBOX_REPO_URL SAMEBOX_COMMIT into SAMEBOX_WORKDIR (default /opt/samebox);
#             SAMEBOX_SKIP_CLONE=1 uses SAMEBOX_WORKDIR as it is
#   limits    SAMEBOX_MAX_MINUTES (hard power-off timer, default 240),
#             SAMEBOX_UPLOAD_MARGIN_MINUTES (kept free for upload, default 15),
#             SAMEBOX_BENCH_BUDGET_SECONDS (caps the benchmark's time further)
#   where     SAMEBOX_RESULTS_URI (default s3://$SAMEBOX_RESULTS_BUCKET/boxes/<aws:userid>/)
#   upload    SAMEBOX_UPLOAD_INTERVAL_SECONDS (default 300; 0 = only at the end): while the suite runs,
#             the run folder and logs are synced this often (niced), so a box that dies keeps
#             every cell finished before its last sync
#   replace   SAMEBOX_SHUTDOWN_CMD (gets the minutes), SAMEBOX_UPLOAD_CMD (gets <local path> <uri>;
#             a folder is synced: only new and changed files), SAMEBOX_POWEROFF_CMD,
#             SAMEBOX_SKIP_PREREQS=1 (no apt/snap installs), SAMEBOX_SYSTEM_ROOT (where the /etc files
#             of the OS hygiene go; tests)
# Functions below run from traps, which shellcheck cannot follow.
# shellcheck disable=SC2317
set -uo pipefail

started_epoch=$(date +%s)
started_at=$(date -u +%Y-%m-%dT%H:%M:%SZ)
max_minutes=${SAMEBOX_MAX_MINUTES:-240}
if ! [[ "$max_minutes" =~ ^[0-9]+$ ]] || (( max_minutes < 2 )); then
  echo "samebox-box: SAMEBOX_MAX_MINUTES must be a whole number of minutes >= 2, got '$max_minutes'; using 240" >&2
  max_minutes=240
fi

# 1. Before anything that could hang: the hard timer. Whatever happens below,
#    the machine powers off (and so terminates) after max_minutes.
if [[ -n "${SAMEBOX_SHUTDOWN_CMD:-}" ]]; then
  $SAMEBOX_SHUTDOWN_CMD "$max_minutes"
else
  shutdown -h "+$max_minutes" "samebox: hard time limit reached"
fi

log() { printf '%s samebox-box: %s\n' "$(date -u +%H:%M:%S)" "$*"; }

# retry <attempts> <command...>: a boot step that a transient error (a mirror, the snap store, STS) must not end;
# waits SAMEBOX_RETRY_DELAY seconds (default 10), doubling, between attempts.
retry() {
  local tries=$1 delay=${SAMEBOX_RETRY_DELAY:-10} attempt
  shift
  [[ "$delay" =~ ^[0-9]+$ ]] || delay=10
  for (( attempt = 1; ; attempt++ )); do
    "$@" && return 0
    (( attempt < tries )) || { echo "$1 failed $tries times" >&2; return 1; }
    echo "$1 failed (attempt $attempt of $tries); retrying in ${delay}s" >&2
    sleep "$delay"
    delay=$(( delay * 2 ))
  done
}

workdir=${SAMEBOX_WORKDIR:-/opt/samebox}
run_id=${SAMEBOX_RUN_ID:-}
status_dir=${SAMEBOX_STATUS_DIR:-/var/log/samebox}
mkdir -p "$status_dir"
main_log="$status_dir/main.log"
status="error"
exit_code=""
detail=""
finished=0

upload_once() { # <local path> <destination uri>
  if [[ -n "${SAMEBOX_UPLOAD_CMD:-}" ]]; then
    $SAMEBOX_UPLOAD_CMD "$1" "$2"
  elif [[ -d "$1" ]]; then
    aws s3 sync --only-show-errors --no-progress "$1" "$2"
  else
    aws s3 cp --only-show-errors "$1" "$2"
  fi
}

# Every upload is retried (SAMEBOX_UPLOAD_RETRIES attempts, default 4, waiting 5, 10, 20 s ...:
# SAMEBOX_UPLOAD_RETRY_DELAY), and a run folder goes up as an atomic snapshot: its manifest is
# copied first, then the folder (hard links, so cheap), the folder is sent without the manifest,
# and the manifest last, only once the rest is complete. So the bucket's manifest never names a
# cell whose files are not there: a box that dies mid-sync leaves the previous, consistent one.
upload() { # <local path> <destination uri>
  local tries=${SAMEBOX_UPLOAD_RETRIES:-4} delay=${SAMEBOX_UPLOAD_RETRY_DELAY:-5} attempt snap rc
  [[ "$tries" =~ ^[1-9][0-9]*$ ]] || tries=4
  [[ "$delay" =~ ^[0-9]+$ ]] || delay=5
  if [[ -d "$1" && -f "$1/manifest.json" ]]; then
    snap=$(mktemp -d "${TMPDIR:-/tmp}/samebox-snapshot.XXXXXX") || return 1
    mkdir -p "$snap/run" && cp -p "$1/manifest.json" "$snap/manifest.json" \
      && { cp -al "$1/." "$snap/run/" 2>/dev/null || cp -a "$1/." "$snap/run/"; } && rm -f "$snap/run/manifest.json" \
      && upload "$snap/run" "$2" && upload "$snap/manifest.json" "${2%/}/manifest.json"
    rc=$?
    rm -rf "$snap"
    return "$rc"
  fi
  for (( attempt = 1; ; attempt++ )); do
    upload_once "$1" "$2" && return 0
    (( attempt < tries )) || { echo "upload $1 -> $2 failed $tries times" >&2; return 1; }
    echo "upload $1 -> $2 failed (attempt $attempt of $tries); retrying in ${delay}s" >&2
    sleep "$delay"
    delay=$(( delay * 2 ))
  done
}

results_dest=""
resolve_results_dest() { # sets results_dest; no command substitution here, so it also works while a signal is being handled
  if [[ -n "${SAMEBOX_RESULTS_URI:-}" ]]; then
    results_dest="${SAMEBOX_RESULTS_URI%/}/"
    return 0
  fi
  [[ -n "${SAMEBOX_RESULTS_BUCKET:-}" ]] || { log "SAMEBOX_RESULTS_BUCKET is not set"; return 1; }
  # For an EC2 instance role, UserId is "<role-id>:<instance-id>": the only
  # prefix the box role's policy lets this machine write.
  local id_file="$status_dir/.caller-user-id"
  # Retried: one STS hiccup must not leave a working box without heartbeats (collect would end it as never started).
  retry "${SAMEBOX_STS_RETRIES:-5}" caller_user_id "$id_file" 2>>"$status_dir/prereqs.log" || return 1
  read -r user_id < "$id_file" || return 1
  results_dest="s3://$SAMEBOX_RESULTS_BUCKET/boxes/$user_id/"
}

caller_user_id() { # <file>: the instance role's "<role-id>:<instance-id>"
  aws sts get-caller-identity --query UserId --output text > "$1" && [[ -s "$1" ]]
}

json_string() { python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$1"; }

write_done_marker() { # <file>
  local finished_epoch
  finished_epoch=$(date +%s)
  cat > "$1" <<JSON
{
  "run_id": $(json_string "$run_id"),
  "status": $(json_string "$status"),
  "exit_code": ${exit_code:-null},
  "detail": $(json_string "$detail"),
  "commit": $(json_string "$(git -C "$workdir" rev-parse HEAD 2>/dev/null || true)"),
  "started_at": "$started_at",
  "finished_at": "$(date -u +%Y-%m-%dT%H:%M:%SZ)",
  "duration_s": $(( finished_epoch - started_epoch )),
  "run_dir_uploaded": $run_dir_uploaded,
  "periodic_uploads": $periodic_uploads,
  "upload_interval_s": ${upload_interval},
  "instance_type": $(json_string "${SAMEBOX_CLOUD_INSTANCE_TYPE:-}"),
  "region": $(json_string "${SAMEBOX_CLOUD_REGION:-}"),
  "ami_id": $(json_string "${SAMEBOX_CLOUD_AMI_ID:-}"),
  "instance_count": ${SAMEBOX_CLOUD_INSTANCE_COUNT:-1}
}
JSON
}

run_dir_uploaded=false
run_dir="$workdir/data/runs/$run_id"
upload_interval=${SAMEBOX_UPLOAD_INTERVAL_SECONDS:-300}
[[ "$upload_interval" =~ ^[0-9]+$ ]] || { log "SAMEBOX_UPLOAD_INTERVAL_SECONDS '$upload_interval' is not a whole number; using 300"; upload_interval=300; }
periodic_uploads=0
uploader_pid=""
bench_pid=""

# Every process this script starts ends before it does, on every path (signal, budget, normal end):
# the suite's own children may outlive their parent (a shell killed by TERM leaves its `sleep`), and
# such an orphan belongs to init, which may reap it late, so waiting for our own children is not
# enough. "Ours" is worked out from /proc without forking: our descendants; every process group one
# of them leads (timeout(1) makes its own, so its command's orphans keep that group); and, when this
# script leads its session (a systemd unit, the tests), the whole session. Our own process group is
# not counted when we do not lead it (`script | tee`: the tee is not ours).
declare -A our_groups=()
read -r own_stat < /proc/$$/stat
read -r _ _ own_pgid own_sid _ <<< "${own_stat##*) }"
own_session=$(( own_sid == $$ ))
ours=()
started_processes() { # sets ours: the pids of the processes this script started that still exist (zombies too)
  local f line pid changed=1
  local -a st ppid_of=() pgid_of=() sid_of=()
  local -A mine=([$$]=1)
  for f in /proc/[0-9]*/stat; do
    { read -r line < "$f"; } 2>/dev/null || continue
    read -r -a st <<< "${line##*) }"
    pid=${f#/proc/}; pid=${pid%/stat}
    ppid_of[pid]=${st[1]}; pgid_of[pid]=${st[2]}; sid_of[pid]=${st[3]}
  done
  while (( changed )); do
    changed=0
    for pid in "${!ppid_of[@]}"; do
      [[ -z "${mine[$pid]:-}" ]] || continue
      if [[ -n "${mine[${ppid_of[pid]}]:-}" || -n "${our_groups[${pgid_of[pid]}]:-}" ]] \
         || (( own_session && sid_of[pid] == $$ )); then
        mine[$pid]=1; changed=1
        (( pgid_of[pid] == own_pgid )) || our_groups[${pgid_of[pid]}]=1
      fi
    done
  done
  unset 'mine[$$]'
  ours=("${!mine[@]}")
}

end_started_processes() { # <grace seconds>: TERM each process we started (once), KILL what is left after
  # the grace, and return when none is left; bounded (grace + 10 s after the KILL).
  local grace=$1 deadline=$((SECONDS + $1)) killed=0 pid
  local -A termed=()
  while started_processes; (( ${#ours[@]} )); do
    if (( SECONDS >= deadline )); then
      (( killed )) && { log "still there ${grace}s after TERM and 10s after KILL: pids ${ours[*]}"; return 1; }
      log "KILL to pids ${ours[*]}: still there ${grace}s after TERM"
      kill -KILL "${ours[@]}" 2>/dev/null
      killed=1; deadline=$((SECONDS + 10))
    fi
    for pid in "${ours[@]}"; do
      [[ -z "${termed[$pid]:-}" ]] || continue
      termed[$pid]=1
      kill -TERM "$pid" 2>/dev/null && kill -CONT "$pid" 2>/dev/null
    done
    sleep 0.1 # the orphans are init's to reap: there is nothing of ours to wait on
  done
  (( ${#termed[@]} )) && log "ended what was left: pids ${!termed[*]}"
  our_groups=() # all gone: a group id seen so far could now be reused by a process that is not ours
  return 0
}

# Incremental upload: a background loop syncs the run folder (and the logs) every
# upload_interval seconds while the suite runs. niced and idle-class I/O so that it
# takes as little as possible from the cells being measured; each sync is bounded.
heartbeat() { # <started|progress>: a small marker collect reads to tell a box that never started from a slow one
  [[ -n "$results_dest" ]] || return 0
  local cells=0
  [[ -d "$run_dir/cells" ]] && cells=$(find "$run_dir/cells" -mindepth 1 -maxdepth 1 -type d | wc -l)
  # upload_interval_s: how often progress.json comes (0: never), so collect knows what silence means
  printf '{"run_id": "%s", "marker": "%s", "started_at": "%s", "at": "%s", "cell_folders": %d, "upload_interval_s": %d}\n' \
    "$run_id" "$1" "$started_at" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$cells" "$upload_interval" > "$status_dir/$1.json"
  timeout --kill-after=10 120 bash -c "$(declare -f upload upload_once); upload \"\$@\"" _ "$status_dir/$1.json" "${results_dest}$1.json" \
    >>"$status_dir/upload.log" 2>&1 || log "could not upload the $1 marker (see logs/upload.log)"
}

start_uploader() {
  (( upload_interval > 0 )) || return 0
  [[ -n "$results_dest" ]] || log "no upload destination yet: the uploader asks again before each sync"
  (
    # Children run in the background and are waited for, so that TERM (stop_uploader) is
    # handled at once and takes them along: a sync cut short is redone by the final upload.
    # The uploader ends only once they have (timeout passes the TERM to its whole group and
    # KILLs it 10 s later), so none is left to init.
    trap - EXIT INT
    trap 'kill -TERM $(jobs -p) 2>/dev/null; wait; exit 0' TERM
    renice -n 19 -p "$BASHPID" >/dev/null 2>&1
    ionice -c 3 -p "$BASHPID" >/dev/null 2>&1
    bounded_upload() { # <seconds> <local path> <uri>
      timeout --kill-after=10 "$1" bash -c "$(declare -f upload upload_once); upload \"\$@\"" _ "$2" "$3" >>"$status_dir/upload.log" 2>&1 &
      wait $!
    }
    while :; do
      sleep "$upload_interval" &
      wait $!
      if [[ -z "$results_dest" ]]; then
        resolve_results_dest || { log "upload destination still unknown; asking again in ${upload_interval}s"; continue; }
        heartbeat started
      fi
      if [[ -d "$run_dir" ]]; then
        if bounded_upload 600 "$run_dir" "${results_dest}run/"; then
          date -u +%Y-%m-%dT%H:%M:%SZ >> "$status_dir/periodic-uploads"
        else
          log "periodic upload failed (see logs/upload.log); the next one retries"
        fi
      fi
      bounded_upload 300 "$status_dir" "${results_dest}logs/" || true
      heartbeat progress
    done
  ) &
  uploader_pid=$!
  log "uploading the run folder every ${upload_interval}s (pid $uploader_pid)"
}

stop_uploader() {
  [[ -n "$uploader_pid" ]] || return 0
  kill -TERM "$uploader_pid" 2>/dev/null
  while wait "$uploader_pid" 2>/dev/null; (( $? > 128 )) && kill -0 "$uploader_pid" 2>/dev/null; do :; done
  uploader_pid=""
  [[ -f "$status_dir/periodic-uploads" ]] && periodic_uploads=$(wc -l < "$status_dir/periodic-uploads")
  return 0
}

stop_bench() { # TERM to timeout(1), which passes it to the suite's process group and KILLs it 120 s later
  [[ -n "$bench_pid" ]] || return 0
  kill -TERM "$bench_pid" 2>/dev/null
  # a trapped signal cuts wait short: wait again while it is there (it is reaped by the wait that returns)
  while wait "$bench_pid" 2>/dev/null; (( $? > 128 )) && kill -0 "$bench_pid" 2>/dev/null; do :; done
  bench_pid=""
}

finish() {
  (( finished )) && return
  finished=1
  # A second signal no longer cuts the uploads short (systemd KILLs after TimeoutStopSec).
  trap - EXIT
  trap 'log "signal ignored: finishing"' INT TERM
  log "finishing: status=$status exit_code=${exit_code:-none} ${detail}"
  stop_bench
  stop_uploader
  # What they left (orphans of the suite, anything it started in the background) ends too,
  # before the run folder is uploaded.
  end_started_processes 20
  local dest marker
  if [[ -n "$results_dest" ]] || resolve_results_dest; then
    dest=$results_dest
    if [[ -n "$run_id" && -d "$run_dir" ]]; then
      if upload "$run_dir" "${dest}run/"; then run_dir_uploaded=true; else log "upload of $run_dir failed"; fi
    fi
    for f in /var/log/cloud-init-output.log /var/log/samebox-box.log; do
      [[ -r "$f" ]] && cp "$f" "$status_dir/" 2>/dev/null
    done
    upload "$status_dir" "${dest}logs/" || log "upload of logs failed"
    # The done marker goes last: its presence means everything else is there.
    marker=$(mktemp)
    write_done_marker "$marker"
    upload "$marker" "${dest}done.json" || log "upload of done marker failed"
    rm -f "$marker"
  else
    log "cannot work out the results destination; nothing uploaded"
  fi
  end_started_processes 5
  log "powering off"
  if [[ -n "${SAMEBOX_POWEROFF_CMD:-}" ]]; then
    $SAMEBOX_POWEROFF_CMD
  else
    systemctl poweroff
  fi
}
trap finish EXIT
trap 'status=interrupted; detail="terminated by a signal (shutdown or cancel)"; exit 143' INT TERM

fail() { status=$1; detail=$2; log "$status: $detail"; exit 1; }

# 2. Inputs: the same checks as the dispatch workflow, repeated here because a
#    maintainer can also launch the module by hand.
[[ "$run_id" =~ ^[0-9]{8}T[0-9]{6}Z-[a-z0-9-]+$ ]] \
  || fail invalid_input "SAMEBOX_RUN_ID '$run_id' is not YYYYMMDDTHHMMSSZ-<lowercase slug>"

# 3. What the box needs before the repository's own scripts take over.
# Every apt call waits for the dpkg lock (a first-boot apt-daily run holds it) instead of failing
# at once, before the AWS CLI exists and so before anything could be uploaded.
apt_lock=(-o DPkg::Lock::Timeout=600)
etc_root=${SAMEBOX_SYSTEM_ROOT:-} # tests write the /etc files under a folder of their own

quiet_the_os() { # Ubuntu 24.04: nothing upgrades, restarts or polls under the benchmark
  # apt-daily and unattended-upgrades take the dpkg lock at boot, upgrade libraries under the
  # running suite and add noise to the measurements.
  # Disabling a timer does not stop an apt-daily run already going at first boot, which holds the
  # locks: stop the services too, and mask them so that nothing starts them during the run.
  { systemctl stop apt-daily.timer apt-daily-upgrade.timer apt-daily.service apt-daily-upgrade.service unattended-upgrades.service \
      && systemctl mask apt-daily.timer apt-daily-upgrade.timer apt-daily.service apt-daily-upgrade.service \
      && systemctl disable unattended-upgrades.service; } \
    >>"$status_dir/prereqs.log" 2>&1 || log "could not stop and mask the apt timers (see logs/prereqs.log)"
  mkdir -p "$etc_root/etc/apt/apt.conf.d" "$etc_root/etc/needrestart/conf.d"
  # Also read by the install verbs' own apt calls later in the run.
  printf '%s\n' 'APT::Periodic::Update-Package-Lists "0";' 'APT::Periodic::Unattended-Upgrade "0";' \
    'DPkg::Lock::Timeout "600";' > "$etc_root/etc/apt/apt.conf.d/99samebox"
  # needrestart on 24.04 restarts services itself: a library upgrade would restart (stop) the
  # benchmark's own unit. List only.
  printf '%s\n' "\$nrconf{restart} = 'l';" > "$etc_root/etc/needrestart/conf.d/99samebox.conf"
  export NEEDRESTART_MODE=l
}

# The locks apt and dpkg take (fcntl, as apt does). DPkg::Lock::Timeout waits for dpkg's only, not for
# the lists lock `apt-get update` takes, so every apt call first waits until none is held.
APT_LOCKS=(/var/lib/apt/lists/lock /var/lib/dpkg/lock-frontend /var/lib/dpkg/lock /var/cache/apt/archives/lock)

apt_locks_free() {
  python3 - "$etc_root" "${APT_LOCKS[@]}" <<'PY'
import fcntl, sys
for path in sys.argv[2:]:
    try:
        with open(sys.argv[1] + path, "r+") as lock:
            fcntl.lockf(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except FileNotFoundError:
        continue
    except OSError:
        sys.exit(1)
PY
}

wait_for_apt_locks() { # up to 600 s, as DPkg::Lock::Timeout
  local deadline=$((SECONDS + 600))
  until apt_locks_free; do
    (( SECONDS < deadline )) || { log "an apt or dpkg lock is still held after 600 s"; return 1; }
    sleep 2
  done
}

apt_get() { # apt-get with the lock waits; `update` retried (a mirror or the lists lock, briefly taken again)
  wait_for_apt_locks || return 1
  if [[ "$1" == update ]]; then
    retry 3 apt-get "${apt_lock[@]}" "$@"
  else
    apt-get "${apt_lock[@]}" "$@"
  fi
}

install_aws_cli() {
  command -v aws >/dev/null && return 0
  # snapd seeds its snaps after boot; an install before that can fail.
  timeout 600 snap wait system seed.loaded >>"$status_dir/prereqs.log" 2>&1 || log "snap seeding not confirmed within 10 min; trying anyway"
  # Retried: without the CLI the box can upload nothing, not even why it failed.
  retry 4 snap install aws-cli --classic >>"$status_dir/prereqs.log" 2>&1
}

install_pgvector() { # the PGDG package of the PostgreSQL major the system's install verb chose
  [[ ",${SAMEBOX_SYSTEMS:-}," == *,postgresql,* ]] || return 0
  bash bench-scripts/systems/postgresql/install >>"$status_dir/prereqs.log" 2>&1 || return 1
  local major
  major=$(dpkg-query -W -f='${Package}\n' 'postgresql-[0-9]*' 2>/dev/null | sed -n 's/^postgresql-\([0-9][0-9]*\)$/\1/p' | sort -n | tail -n 1)
  [[ -n "$major" ]] || { log "no postgresql-<major> package installed"; return 1; }
  log "installing postgresql-$major-pgvector"
  apt_get install -y -q --no-install-recommends "postgresql-$major-pgvector" >>"$status_dir/prereqs.log" 2>&1
}

if [[ "${SAMEBOX_SKIP_PREREQS:-0}" != 1 ]]; then
  export DEBIAN_FRONTEND=noninteractive
  quiet_the_os
  # The AWS CLI first (a snap: no dpkg lock), so that the started marker goes up within minutes of
  # boot whatever apt does next, and an apt failure is still uploaded with its log and done marker.
  install_aws_cli || fail error "installing the AWS CLI failed (see logs/prereqs.log)"
fi

# Where to upload, worked out now so that a late signal has nothing left to ask AWS.
resolve_results_dest || log "could not work out the upload destination yet; will retry at the end"
# Minutes after boot (the AWS CLI is in; apt's lock wait and installs come after): the box is alive
# and can upload. collect calls a box without it 15 min after launch 'never started'.
heartbeat started

if [[ "${SAMEBOX_SKIP_PREREQS:-0}" != 1 ]]; then
  log "installing prerequisites"
  # git/python/node to start; Go (apt's 1.22 switches to GOTOOLCHAIN below), a C toolchain and
  # unzip for the install verbs (bench-scripts/lib/toolchains.sh installs the rest: JDK, Maven, ...).
  { apt_get update -q && apt_get install -y -q git ca-certificates curl unzip python3 python3-venv nodejs npm \
      golang-go build-essential pkg-config; } >>"$status_dir/prereqs.log" 2>&1 \
    || fail error "apt-get install of prerequisites failed (see logs/prereqs.log)"
fi

# Toolchains, the same way on every box: the Go our tools are built with (the Go module proxy serves
# it, checksum-verified by the go command), rustup allowed (the box has internet; see toolchains.sh).
export GOTOOLCHAIN=${SAMEBOX_GOTOOLCHAIN:-go1.26.8}
export SAMEBOX_ALLOW_RUSTUP=${SAMEBOX_ALLOW_RUSTUP:-1}
export PATH="$PATH:/usr/local/go/bin:$HOME/go/bin:$HOME/.cargo/bin"

# 4. The exact commit.
if [[ "${SAMEBOX_SKIP_CLONE:-0}" != 1 ]]; then
  [[ "${SAMEBOX_COMMIT:-}" =~ ^[0-9a-f]{40}$ ]] || fail invalid_input "SAMEBOX_COMMIT '${SAMEBOX_COMMIT:-}' is not a full 40-character commit"
  log "cloning ${SAMEBOX_REPO_URL:?SAMEBOX_REPO_URL is not set} at $SAMEBOX_COMMIT"
  if ! { git clone --quiet --filter=blob:none "$SAMEBOX_REPO_URL" "$workdir" \
         && git -C "$workdir" checkout --quiet --detach "$SAMEBOX_COMMIT"; } >>"$status_dir/clone.log" 2>&1; then
    fail clone_failed "could not check out $SAMEBOX_COMMIT from $SAMEBOX_REPO_URL (see logs/clone.log)"
  fi
fi
cd "$workdir" || fail error "workdir $workdir does not exist"

if [[ -r terraform/allowed.json ]]; then
  python3 terraform/scripts/validate_inputs.py --studies "$SAMEBOX_STUDIES" --systems "$SAMEBOX_SYSTEMS" \
      --profile "$SAMEBOX_PROFILE" >>"$status_dir/validate.log" 2>&1 \
    || fail invalid_input "$(tail -n 1 "$status_dir/validate.log")"
fi

# pgvector: the PostgreSQL vec_* cells need it, and only the box can install it.
if [[ "${SAMEBOX_SKIP_PREREQS:-0}" != 1 ]]; then
  install_pgvector || fail error "installing PostgreSQL with pgvector failed (see logs/prereqs.log)"
fi

# 5. The benchmark, bounded so that the upload still fits before the timer.
margin=${SAMEBOX_UPLOAD_MARGIN_MINUTES:-15}
budget_s=$(( max_minutes * 60 - margin * 60 - ($(date +%s) - started_epoch) ))
# Tests (and impatient maintainers) may cap the budget further.
if [[ "${SAMEBOX_BENCH_BUDGET_SECONDS:-}" =~ ^[0-9]+$ ]] && (( SAMEBOX_BENCH_BUDGET_SECONDS < budget_s )); then
  budget_s=$SAMEBOX_BENCH_BUDGET_SECONDS
fi
(( budget_s > 0 )) || fail timeout "no time left for the benchmark (max ${max_minutes} min, upload margin ${margin} min)"
profile_arg=$SAMEBOX_PROFILE
if [[ -n "${SAMEBOX_WORKLOADS:-}" ]]; then
  profile_arg="$status_dir/profile-$run_id.json"
  python3 terraform/scripts/shard_profile.py --profile "$SAMEBOX_PROFILE" --studies "$SAMEBOX_STUDIES" \
      --workloads "$SAMEBOX_WORKLOADS" --variants "${SAMEBOX_VARIANTS:-}" --out "$profile_arg" >>"$status_dir/validate.log" 2>&1 \
    || fail invalid_input "$(tail -n 1 "$status_dir/validate.log")"
fi

main=${SAMEBOX_MAIN:-pipeline/bin/main}
[[ -f "$main" ]] || fail error "$main does not exist at this commit"
start_uploader
log "running $main --profile $profile_arg --studies $SAMEBOX_STUDIES --systems $SAMEBOX_SYSTEMS --run-id $run_id (limit ${budget_s}s)"
timeout --signal=TERM --kill-after=120 "$budget_s" \
  bash "$main" --profile "$profile_arg" --studies "$SAMEBOX_STUDIES" --systems "$SAMEBOX_SYSTEMS" \
  --run-id "$run_id" --no-site >>"$main_log" 2>&1 &
bench_pid=$!
our_groups[$bench_pid]=1 # timeout(1) leads its own process group: the suite's orphans stay in it
# wait returns early when a signal arrives; the trap's exit runs finish, which ends the suite
# (stop_bench) before uploading.
wait "$bench_pid"
exit_code=$?
bench_pid=""
if (( exit_code == 0 )); then
  status=ok
elif (( exit_code == 124 || exit_code == 137 )); then
  status=timeout; detail="the benchmark ran out of its ${budget_s}s budget"
elif [[ -f "data/runs/$run_id/manifest.json" ]]; then
  status=cells_failed; detail="some cells failed; the run folder was written"
else
  status=failed; detail="$main exited $exit_code without writing data/runs/$run_id"
fi
exit 0
