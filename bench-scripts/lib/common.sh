# shellcheck shell=bash disable=SC2034  # BENCH_SCRIPTS_DIR etc. are used by the sourcing verbs
# Shared helpers for every system and study verb. Source it, do not run it:
#   . "$(dirname "$0")/../../lib/common.sh"
# Contract (bench-scripts/README.md): exit 0 ok, 3 not available here (one line why),
# anything else a failure with the reason on stderr.

set -euo pipefail

BENCH_SCRIPTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SAMEBOX_VERB="${SAMEBOX_VERB:-$(basename "$(cd "$(dirname "$0")" && pwd)")/$(basename "$0")}"
EXIT_NOT_AVAILABLE=3
EXIT_BAD_INPUT=2
# The scripts' own stdlib-only helpers (json_path, system_use, ...) run on the system interpreter when
# there is one: a version manager's shim (pyenv) costs ~75 ms a call, and one analytical cell made ~10
# such calls through its verbs (measured: ~0.75 s of a ~2 s cell). Installs keep `python3` as found.
if [[ -x /usr/bin/python3 ]]; then SAMEBOX_PY=/usr/bin/python3; else SAMEBOX_PY="$(command -v python3 || echo python3)"; fi

# Logging goes to stderr so stdout stays the verb's output (env lines, tool output, ...).
log() { printf '%s %s: %s\n' "$(date -u +%H:%M:%S)" "$SAMEBOX_VERB" "$*" >&2; }
die() { log "error: $*"; exit 1; }

# Exit 3 with one line why. The line goes to stdout (what the pipeline records as the
# skip reason) and to stderr (so a person running the verb sees it too).
not_available() {
  printf '%s\n' "$*"
  printf '%s: not available: %s\n' "$SAMEBOX_VERB" "$*" >&2
  exit "$EXIT_NOT_AVAILABLE"
}

# Bad input (an unknown name, an out-of-range number): one line naming what is wrong and
# what is valid, exit 2, so the pipeline tells a caller's mistake from a failed benchmark.
bad_input() {
  log "error: $*"
  exit "$EXIT_BAD_INPUT"
}

require_root() {
  [[ "$(id -u)" -eq 0 ]] || die "must run as root (or through sudo); running as uid $(id -u)"
}

# ---- OS detection -------------------------------------------------------------------
# Sets OS_ID (debian, ubuntu, ...), OS_VERSION_ID (12, 24.04, ...) and OS_CODENAME.
detect_os() {
  [[ -r /etc/os-release ]] || die "/etc/os-release is missing: cannot tell which OS this is"
  OS_ID="$(. /etc/os-release && printf '%s' "${ID:-unknown}")"
  OS_VERSION_ID="$(. /etc/os-release && printf '%s' "${VERSION_ID:-unknown}")"
  OS_CODENAME="$(. /etc/os-release && printf '%s' "${VERSION_CODENAME:-unknown}")"
  export OS_ID OS_VERSION_ID OS_CODENAME
}

is_debian_family() {
  detect_os
  [[ "$OS_ID" == debian || "$OS_ID" == ubuntu ]]
}

# ---- input validation -----------------------------------------------------------------
# require_uint NAME VALUE [MIN]: VALUE must be a whole number >= MIN (default 0).
require_uint() {
  local name="$1" value="$2" min="${3:-0}"
  [[ "$value" =~ ^[0-9]+$ ]] || die "$name='$value' is not a whole number (valid: an integer >= $min)"
  (( 10#$value >= min )) || die "$name=$value is too small (valid: an integer >= $min)"
}

require_port() {
  local name="$1" value="$2"
  if [[ ! "$value" =~ ^[0-9]+$ ]] || (( 10#$value < 1024 || 10#$value > 65535 )); then
    die "$name='$value' is not a usable TCP port (valid: 1024-65535)"
  fi
}

# ---- state and install directories ----------------------------------------------------
# SAMEBOX_STATE: data dirs, pid files, logs of running servers. SAMEBOX_OPT: what the install verbs
# build or download (systems, MCP servers, Go tools, toolchains fetched here). `test --cold` points
# both at empty folders.
SAMEBOX_STATE="${SAMEBOX_STATE:-/var/lib/samebox}"
[[ "$SAMEBOX_STATE" == /* ]] || die "SAMEBOX_STATE='$SAMEBOX_STATE' must be an absolute path"
SAMEBOX_OPT="${SAMEBOX_OPT:-/opt/samebox}"
[[ "$SAMEBOX_OPT" == /* ]] || die "SAMEBOX_OPT='$SAMEBOX_OPT' must be an absolute path"
export SAMEBOX_STATE SAMEBOX_OPT

# Server users (postgres, mysql) must be able to traverse down to their own data dirs.
ensure_state_root() {
  mkdir -p "$SAMEBOX_STATE"
  chmod 0755 "$SAMEBOX_STATE"
}

# ---- memory ---------------------------------------------------------------------------
mem_total_kib() {
  awk '/^MemTotal:/ { print $2; found = 1 } END { if (!found) exit 1 }' /proc/meminfo \
    || die "cannot read MemTotal from /proc/meminfo"
}

# The share of RAM given to the buffer pool / shared_buffers (seed 002: 2 GB of 8 GB).
buffer_fraction() {
  local f="${SAMEBOX_BUFFER_FRACTION:-0.25}"
  if [[ ! "$f" =~ ^0?\.[0-9]+$ ]] || ! awk -v f="$f" 'BEGIN { exit !(f > 0 && f <= 0.8) }'; then
    die "SAMEBOX_BUFFER_FRACTION='$f' is not valid (valid: a decimal in (0, 0.8], e.g. 0.25)"
  fi
  printf '%s\n' "$f"
}

# mem_fraction_mib FRACTION: floor(MemTotal * FRACTION) in MiB.
mem_fraction_mib() {
  local kib
  kib="$(mem_total_kib)"
  awk -v kib="$kib" -v f="$1" 'BEGIN { printf "%d\n", int(kib * f / 1024) }'
}

# ---- processes ------------------------------------------------------------------------
# wait_until TIMEOUT_S WHAT CMD...: poll CMD every 0.2 s until it succeeds; at most TIMEOUT_S (plus the checks' own time).
wait_until() {
  local timeout_s="$1" what="$2"
  shift 2
  local tries=$(( timeout_s * 5 )) i
  for (( i = 0; i < tries; i++ )); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.2
  done
  log "gave up after ${timeout_s}s waiting for: $what"
  return 1
}

# pid_alive PID: the process exists and has not exited. An exited process stays a zombie until its parent
# reaps it, and a server started in its own session (setsid) has PID 1 as its parent, which here reaps
# about once a second: counting zombies as alive made every stop wait ~1 s after the server had exited.
pid_alive() {
  [[ -n "${1:-}" ]] && kill -0 "$1" 2>/dev/null || return 1
  local stat
  read -r stat < "/proc/$1/stat" 2>/dev/null || return 1
  stat="${stat##*) }" # the state follows the command name, which may hold spaces and parentheses
  [[ "${stat%% *}" != Z ]]
}
pid_gone() { ! pid_alive "$1"; }

# pidfile_pid FILE: print the pid in FILE when that process is alive; nothing otherwise.
pidfile_pid() {
  [[ -f "$1" ]] || return 0
  local pid
  pid="$(tr -dc '0-9' < "$1")"
  pid_alive "$pid" && printf '%s\n' "$pid"
  return 0
}

# stop_group PIDFILE NAME: TERM the process group whose leader's pid PIDFILE holds (started with setsid),
# KILL when it has not exited within 10 s (checked every 0.05 s); children that left the group are not
# ours to chase. Exit 0 when it was not running.
stop_group() {
  local pid i
  pid="$(pidfile_pid "$1")"
  if [[ -z "$pid" ]]; then rm -f "$1"; return 0; fi
  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
  for (( i = 0; i < 200; i++ )); do pid_alive "$pid" || break; sleep 0.05; done
  if pid_alive "$pid"; then
    log "$2 (pid $pid) ignored TERM for 10 s: KILL"
    kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$1"
  log "$2 stopped"
}

# inside_pidfile PIDFILE: tells the runner's noise guard that the daemon whose pid this file holds is part
# of the system under test (a study's helper such as Redis, or an MCP server started with setsid, which
# leaves the runner's process tree), so its CPU counts as the cell's own and not as other work on the
# machine. The runner re-reads the listed files while a cell runs. No-op outside a run.
inside_pidfile() {
  [[ -n "${SAMEBOX_INSIDE_PIDFILES:-}" ]] || return 0
  grep -qxF "$1" "$SAMEBOX_INSIDE_PIDFILES" 2>/dev/null || printf '%s\n' "$1" >> "$SAMEBOX_INSIDE_PIDFILES"
}

# run_as USER CMD...: run a command as an OS user (server binaries refuse to run as root).
run_as() {
  local user="$1"
  shift
  if [[ "$(id -un)" == "$user" ]]; then "$@"; else runuser -u "$user" -- "$@"; fi
}

ensure_system_user() {
  local user="$1"
  id -u "$user" >/dev/null 2>&1 && return 0
  log "creating system user $user"
  useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$user"
}

# ---- packages -------------------------------------------------------------------------
pkg_installed() {
  [[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true)" == "install ok installed" ]]
}

# apt_install PKG...: apt-get update + install, skipped entirely when all are present
# (keeps repeated installs and CI reruns fast).
apt_install() {
  local missing=() p
  for p in "$@"; do pkg_installed "$p" || missing+=("$p"); done
  (( ${#missing[@]} == 0 )) && { log "already installed: $*"; return 0; }
  require_root
  log "apt-get install ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get -o DPkg::Lock::Timeout=600 update -q >&2
  # confdef/confold: never stop at a conffile prompt (we edit createcluster.conf, for one).
  apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends \
    -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold "${missing[@]}" >&2
}

# ---- KEY=VALUE output -----------------------------------------------------------------
# load_env_lines: read KEY=VALUE lines on stdin and export them (nothing is evaluated).
load_env_lines() {
  local line key
  while IFS= read -r line; do
    [[ -z "$line" ]] && continue
    [[ "$line" =~ ^([A-Z][A-Z0-9_]*)=(.*)$ ]] || die "bad env line '$line' (valid: KEY=VALUE)"
    key="${BASH_REMATCH[1]}"
    printf -v "$key" '%s' "${BASH_REMATCH[2]}"
    export "${key?}"
  done
}

# list_contains LIST ITEM: LIST has ITEM as one of its lines (no pipe: safe with pipefail).
list_contains() { [[ $'\n'"$1"$'\n' == *$'\n'"$2"$'\n'* ]]; }

# in_list ITEM WORD...: ITEM is one of the WORDs.
in_list() { local x="$1" y; shift; for y in "$@"; do [[ "$x" == "$y" ]] && return 0; done; return 1; }

# json_get FILE KEY: print a top-level value of a JSON file (arrays one item a line).
json_get() { json_path "$1" "$2"; }   # a top-level key is a one-part path

# json_path FILE DOTTED.PATH: a value by its dotted path, at any depth (e.g. sql.dialect,
# drivers.go); objects print as JSON, a missing key prints nothing.
json_path() {
  "$SAMEBOX_PY" - "$1" "$2" <<'PY'
import json, sys
path, dotted = sys.argv[1], sys.argv[2]
with open(path) as f:
    value = json.load(f)
for key in dotted.split("."):
    value = value.get(key) if isinstance(value, dict) else None
    if value is None:
        sys.exit(0)
if isinstance(value, list):
    print("\n".join(str(v) for v in value))
elif isinstance(value, bool):
    print("true" if value else "false")
elif isinstance(value, dict):
    print(json.dumps(value, sort_keys=True))
else:
    print(value)
PY
}

# ---- what a cell ran (CELL_DIR/command.txt, shown verbatim on the public site) -------------
# command_line ARGV...: ARGV as one shell line, each word quoted as needed, every password
# replaced by a reference to $DB_PASSWORD (option --x-password=..., NAME_PASSWORD=... / MYSQL_PWD=...
# words, URLs scheme://user:password@..., go-sql-driver user:password@tcp(...)).
command_line() {
  local a words=() q
  local re_opt='^(--?[A-Za-z0-9_-]*password=)(.+)$' re_env='^([A-Z][A-Z0-9_]*(PASSWORD|PWD))=(.+)$'
  local re_url='^(.*://[^:/@]*:)[^@/]+(@.*)$' re_go='^([^:/@()]+:)[^@]+(@(tcp|unix)\(.*)$'
  for a in "$@"; do
    if [[ $a =~ $re_opt ]]; then a="${BASH_REMATCH[1]}"$'\x01'
    elif [[ $a =~ $re_env ]]; then a="${BASH_REMATCH[1]}="$'\x01'
    elif [[ $a =~ $re_url || $a =~ $re_go ]]; then a="${BASH_REMATCH[1]}"$'\x01'"${BASH_REMATCH[2]}"
    fi
    if [[ "$a" == *$'\x01'* && "$a" != *[\"\\\`\$]* ]]; then
      q="\"${a//$'\x01'/\$DB_PASSWORD}\""
    else
      printf -v q '%q' "$a"
    fi
    words+=("$q")
  done
  printf '%s\n' "${words[*]}"
}

# record_command COMMENT ARGV...: append "# COMMENT" and the command line to $CELL_DIR/command.txt
# (nothing when CELL_DIR is unset: the verb was run by hand).
record_command() {
  [[ -n "${CELL_DIR:-}" ]] || return 0
  local comment="$1"
  shift
  mkdir -p "$CELL_DIR"
  { printf '# %s\n' "$comment"; command_line "$@"; } >> "$CELL_DIR/command.txt"
}
