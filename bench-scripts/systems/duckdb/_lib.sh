# shellcheck shell=bash disable=SC2034  # variables here are used by the verbs that source this
# DuckDB (embedded; sourced, not a verb). The CLI comes from PyPI's duckdb-cli package
# (DuckDB's own CLI binary, packaged as a wheel: PyPI is reachable where GitHub release
# downloads are not) in a dedicated venv at $SAMEBOX_OPT/venv (default /opt/samebox), so it never touches the
# system Python and every verb finds it at one fixed path.
# shellcheck source=../../lib/system.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../lib/system.sh"
system_self_init

DUCKDB_CLI_VERSION="${SAMEBOX_DUCKDB_VERSION:-1.5.6}"
SAMEBOX_VENV="${SAMEBOX_VENV:-$SAMEBOX_OPT/venv}"
DUCKDB_CLI="$SAMEBOX_VENV/bin/duckdb"
DUCKDB_DB="$SELF_STATE/bench.duckdb"

duckdb_require_installed() {
  is_debian_family || not_available "duckdb: only Debian/Ubuntu are supported (this is $OS_ID $OS_VERSION_ID)"
  [[ -x "$DUCKDB_CLI" ]] || not_available "duckdb is not installed ($DUCKDB_CLI missing): run systems/duckdb/install"
}

# "v1.5.6 (Variegata) 1a2b3c4d5e" -> 1.5.6
duckdb_version() { "$DUCKDB_CLI" --version | awk '{ sub(/^v/, "", $1); print $1 }'; }

duckdb_query() { "$DUCKDB_CLI" -noheader -csv :memory: -c "$1"; }

duckdb_works() {
  local out
  out="$(duckdb_query 'SELECT 6 * 7;' 2>&1)" || die "$DUCKDB_CLI failed: $out"
  [[ "$out" == 42 ]] || die "$DUCKDB_CLI answered '$out' to SELECT 6 * 7"
}
