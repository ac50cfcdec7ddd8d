#!/usr/bin/env bash
# Suite: systems built from source (mskql; pgvector for PostgreSQL) through bench-scripts/lib/source-build.sh
# and the mskql verbs. No network and no upstream source needed: a local fixture repository (a tiny C
# program with mskql's `make -C src release` layout, two commits) stands in for the source, so the
# checks run on a fresh CI machine: a missing, non-git or commit-less source is a one-line error; an
# unreachable default source is "not available" (exit 3) saying how to provide one; the pinned commit
# is the one built and recorded; a current build is not rebuilt; a new pin rebuilds. With
# SAMEBOX_MSKQL_SRC set (a real clone), the real mskql is also built, started, queried and stopped.
# Last line: "P passed, F failed".
# shellcheck disable=SC2317,SC2016  # helpers are called through t(); bash -c bodies are single-quoted on purpose
set -uo pipefail
cd "$(dirname "$0")/../../.." || exit 1
repo="$(pwd)"
mskql="$repo/bench-scripts/systems/mskql"
# shellcheck source=SCRIPTDIR/../test-lib.sh
. "$repo/pipeline/bin/test-lib.sh"
if [[ "$(id -u)" -ne 0 ]]; then bad "must run as root (install creates OS user mskql and installs packages)"; finish; fi

work="$(mktemp -d /tmp/samebox-test-srcbuild.XXXXXX)"
chmod 0755 "$work"   # the server runs as OS user mskql, which must reach the binary
export SAMEBOX_STATE="$work/state" SAMEBOX_MSKQL_HOME="$work/home" SAMEBOX_PORT_MSKQL="${SAMEBOX_TEST_MSKQL_PORT:-54343}"
cleanup() { "$mskql/stop" >/dev/null 2>&1; rm -rf "$work"; }
trap cleanup EXIT

# ---- the fixture source: mskql's layout (src/Makefile with RELEASE_CFLAGS and a release target) --------
fx="$work/fixture-src"
mkdir -p "$fx/src"
cat > "$fx/src/Makefile" <<'MK'
RELEASE_CFLAGS = -O2 -std=c11
release:
	mkdir -p ../build && $(CC) $(RELEASE_CFLAGS) -o ../build/mskql main.c
MK
printf '#include <stdio.h>\nint main(void) { puts("fixture one"); return 0; }\n' > "$fx/src/main.c"
git -C "$fx" init -q && git -C "$fx" add -A && git -C "$fx" -c user.name=t -c user.email=t@t commit -qm one
commit_one="$(git -C "$fx" rev-parse HEAD)"
sed -i 's/fixture one/fixture two/' "$fx/src/main.c"
git -C "$fx" -c user.name=t -c user.email=t@t commit -qam two
commit_two="$(git -C "$fx" rev-parse HEAD)"

# expect_fail RC PATTERN CMD...: CMD exits RC and its last stderr line matches PATTERN (one line)
expect_fail() {
  local want_rc="$1" pattern="$2" out rc
  shift 2
  out="$("$@" 2>&1 >/dev/null)"; rc=$?
  [[ $rc -eq $want_rc ]] || { echo "exit $rc, want $want_rc: $out"; return 1; }
  [[ "$(tail -n 1 <<< "$out")" =~ $pattern ]] || { echo "last line does not match /$pattern/: $out"; return 1; }
}

# ---- bad sources ---------------------------------------------------------------------------------------
t "missing source: one-line error naming the variable" \
  expect_fail 1 'SAMEBOX_MSKQL_SRC=/nonexistent/mskql does not exist' env SAMEBOX_MSKQL_SRC=/nonexistent/mskql "$mskql/install"
mkdir -p "$work/not-git"
t "a folder that is not a git clone: one-line error" \
  expect_fail 1 'is not a git clone' env SAMEBOX_MSKQL_SRC="$work/not-git" "$mskql/install"
t "a clone without the pinned commit: one-line error naming the commit" \
  expect_fail 1 'does not contain the pinned commit b3661c9814f6' env SAMEBOX_MSKQL_SRC="$fx" "$mskql/install"
t "a malformed SAMEBOX_MSKQL_COMMIT is bad input (exit 2)" \
  expect_fail 2 'must be a full commit id' env SAMEBOX_MSKQL_SRC="$fx" SAMEBOX_MSKQL_COMMIT=abc "$mskql/install"
unreachable_default() {
  # shellcheck source=SCRIPTDIR/../../../bench-scripts/lib/common.sh
  . "$repo/bench-scripts/lib/common.sh"
  # shellcheck source=SCRIPTDIR/../../../bench-scripts/lib/source-build.sh
  . "$repo/bench-scripts/lib/source-build.sh"
  SOURCE_GIT_TIMEOUT_S=10 source_checkout demo SAMEBOX_DEMO_SRC "" "file://$work/no-such-repo" "$commit_one" "$work/demo"
}
t "no source and the default unreachable: exit 3 saying how to provide one" \
  expect_fail 3 'no source: .* is not reachable from here; set SAMEBOX_DEMO_SRC to a local clone' unreachable_default

# ---- without a build, the verbs say how to build ---------------------------------------------------------
t "not built: env exits 3 naming SAMEBOX_MSKQL_SRC" expect_fail 3 'set SAMEBOX_MSKQL_SRC' "$mskql/env"

# ---- the pinned commit is the one built; current builds are kept ------------------------------------------
build_at() { SAMEBOX_MSKQL_SRC="$fx" SAMEBOX_MSKQL_COMMIT="$1" "$mskql/install"; }
stamp() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$SAMEBOX_MSKQL_HOME/build.json" "$1"; }
t "install builds the pinned commit (not the clone's HEAD)" build_at "$commit_one"
t "the binary is commit one's" bash -c '[[ "$("$1")" == "fixture one" ]]' _ "$SAMEBOX_MSKQL_HOME/bin/mskql"
t "build.json records the pinned commit" bash -c '[[ "$1" == "$2" ]]' _ "$(stamp commit)" "$commit_one"
t "build.json records compiler and flags" bash -c '[[ "$1" == *cc* && "$2" == *"-O2 -std=c11"* ]]' _ "$(stamp compiler)" "$(stamp flags)"
t "version names the commit built" bash -c '[[ "$("$1/version" 2>/dev/null)" == "git ${2:0:12} "* ]]' _ "$mskql" "$commit_one"
before="$(stat -c %Y.%N "$SAMEBOX_MSKQL_HOME/bin/mskql")"
t "a second install of the same pin says no rebuild" bash -c 'SAMEBOX_MSKQL_SRC="$1" SAMEBOX_MSKQL_COMMIT="$2" "$3/install" 2>&1 | grep -q "no rebuild"' _ "$fx" "$commit_one" "$mskql"
t "... and leaves the binary untouched" bash -c '[[ "$(stat -c %Y.%N "$1")" == "$2" ]]' _ "$SAMEBOX_MSKQL_HOME/bin/mskql" "$before"
t "a new pin rebuilds" build_at "$commit_two"
t "... to the new commit" bash -c '[[ "$("$1")" == "fixture two" ]]' _ "$SAMEBOX_MSKQL_HOME/bin/mskql"
# ---- the TCP_CORK shim (nocork.c, ours): on Linux mskql's never-uncorked TCP_CORK holds every reply 200 ms ------
t "install builds the TCP_CORK shim" test -s "$SAMEBOX_MSKQL_HOME/lib/nocork.so"
cork_after() { # prints TCP_CORK and TCP_NODELAY as read back after setting both to 1 (LD_PRELOAD=$1 when given)
  env ${1:+LD_PRELOAD="$1"} python3 -c 'import socket as s; k = s.socket(); k.setsockopt(s.IPPROTO_TCP, s.TCP_CORK, 1); k.setsockopt(s.IPPROTO_TCP, s.TCP_NODELAY, 1); print(k.getsockopt(s.IPPROTO_TCP, s.TCP_CORK), k.getsockopt(s.IPPROTO_TCP, s.TCP_NODELAY))'
}
t "without the shim the cork is set (the check can fail)" bash -c '[[ "$1" == "1 1" ]]' _ "$(cork_after "")"
t "with the shim setsockopt(TCP_CORK) is a no-op and TCP_NODELAY still applies" bash -c '[[ "$1" == "0 1" ]]' _ "$(cork_after "$SAMEBOX_MSKQL_HOME/lib/nocork.so")"
# ---- the loopback shim (loopback.c, ours): mskql binds INADDR_ANY with no option for the address ------------------
t "install builds the loopback shim" test -s "$SAMEBOX_MSKQL_HOME/lib/loopback.so"
bound_to() { # ADDRESS [SHIM]: the address a socket bound to ADDRESS (port 0) ends up on
  env ${2:+LD_PRELOAD="$2"} python3 -c 'import socket, sys; k = socket.socket(); k.bind((sys.argv[1], 0)); print(k.getsockname()[0])' "$1"
}
t "without the shim a bind to 0.0.0.0 listens on every interface (the check can fail)" bash -c '[[ "$1" == 0.0.0.0 ]]' _ "$(bound_to 0.0.0.0)"
t "with the shim a bind to 0.0.0.0 becomes 127.0.0.1" bash -c '[[ "$1" == 127.0.0.1 ]]' _ "$(bound_to 0.0.0.0 "$SAMEBOX_MSKQL_HOME/lib/loopback.so")"
t "... and a bind to a given address is left as it is" bash -c '[[ "$1" == 127.0.0.2 ]]' _ "$(bound_to 127.0.0.2 "$SAMEBOX_MSKQL_HOME/lib/loopback.so")"
t "SAMEBOX_MSKQL_TCP_CORK other than off/as-built is bad input (exit 2) naming the valid ones" \
  expect_fail 2 'must be as-built or off' env SAMEBOX_MSKQL_TCP_CORK=maybe "$mskql/version"

# ---- the real engine, when a source is given -------------------------------------------------------------
if [[ -n "${SAMEBOX_MSKQL_SRC:-}" ]]; then
  export SAMEBOX_MSKQL_HOME="$work/real"
  t "real mskql builds from SAMEBOX_MSKQL_SRC at the pin" "$mskql/install"
  t "real mskql starts, answers SELECT 1 and stops" bash -c '"$1/start" && "$1/check" && "$1/stop" && [[ -z "$("$1/pids")" ]]' _ "$mskql"
  listens_on() { # the local addresses of the sockets listening on mskql's port while it runs
    "$mskql/start" >/dev/null 2>&1 || return 1
    ss -Hltn "sport = :$SAMEBOX_PORT_MSKQL" | awk '{ print $4 }' | sort -u | tr '\n' ' '
    "$mskql/stop" >/dev/null 2>&1
  }
  t "real mskql listens on 127.0.0.1 only, not on every interface" bash -c '[[ "$1" == "127.0.0.1:$2 " ]]' _ "$(listens_on)" "$SAMEBOX_PORT_MSKQL"
  selects_s() { # MODE: seconds for 20 x SELECT 1 through psql with mskql started in TCP_CORK mode MODE
    SAMEBOX_MSKQL_TCP_CORK="$1" "$mskql/start" >/dev/null 2>&1 || return 1
    local t0; t0=$(date +%s.%N)
    # shellcheck disable=SC2046
    printf 'SELECT 1;\n%.0s' $(seq 20) | PGPASSWORD=bench psql -X -q -At -h 127.0.0.1 -p "$SAMEBOX_PORT_MSKQL" -U bench -d mskql >/dev/null || return 1
    awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }'
    "$mskql/stop" >/dev/null 2>&1
  }
  off_s="$(selects_s off)"; built_s="$(selects_s as-built)"
  t "TCP_CORK off: 20 x SELECT 1 in ${off_s:-?} s (< 2); as built: ${built_s:-?} s (> 3: the 200 ms cork timer)" \
    awk -v o="${off_s:-99}" -v b="${built_s:-0}" 'BEGIN { exit !(o < 2 && b > 3) }'
else
  echo "skip real mskql build: SAMEBOX_MSKQL_SRC is not set (a clone of https://github.com/martinsk/mskql)"
fi
finish
