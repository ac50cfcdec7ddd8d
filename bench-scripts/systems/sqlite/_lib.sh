# shellcheck shell=bash disable=SC2034  # variables here are used by the verbs that source this
# SQLite (embedded; sourced, not a verb): the distro's sqlite3 CLI. There is no server, so
# start/stop/check only prove the binary works and pids prints nothing.
# shellcheck source=../../lib/system.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../lib/system.sh"
system_self_init

SQLITE_CLI=/usr/bin/sqlite3
SQLITE_DB="$SELF_STATE/bench.db"

sqlite_require_installed() {
  is_debian_family || not_available "sqlite: only Debian/Ubuntu are supported (this is $OS_ID $OS_VERSION_ID)"
  [[ -x "$SQLITE_CLI" ]] || not_available "sqlite is not installed ($SQLITE_CLI missing): run systems/sqlite/install"
}

# "3.40.1 2022-12-28 14:03:47 df5c..." -> 3.40.1
sqlite_version() { "$SQLITE_CLI" --version | awk '{ print $1 }'; }

sqlite_works() {
  local out
  out="$("$SQLITE_CLI" :memory: 'SELECT 6 * 7;' 2>&1)" || die "$SQLITE_CLI failed: $out"
  [[ "$out" == 42 ]] || die "$SQLITE_CLI answered '$out' to SELECT 6 * 7"
}
