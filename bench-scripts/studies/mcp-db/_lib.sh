# shellcheck shell=bash disable=SC2034  # variables here are used by the verbs that source this
# Shared by the mcp-db study's verbs (sourced, not a verb). The study loads one data set into
# two databases per system, `mcpdb_baseline` (primary keys only) and `mcpdb_indexed` (plus
# sql/indexes.sql), so baseline and indexed cells read the same rows on the same server and
# can run in any order; see study.json.

# shellcheck source=../../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../lib/common.sh"
# shellcheck source=../../lib/system.sh
. "$BENCH_SCRIPTS_DIR/lib/system.sh"
# This study's own python3 calls (faults, args, counts) take the interpreter lib/common.sh picked
# (SAMEBOX_PY: the system one, not a version manager's slow shim).
python3() { "$SAMEBOX_PY" "$@"; }

MCPDB_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
MCPDB_SERVERS_DIR="$MCPDB_DIR/servers"
MCPDB_STATE="$SAMEBOX_STATE/mcp-db"
MCPDB_BIN="$MCPDB_STATE/bin"
# toolboxsafe: MCP Toolbox with --allowed-hosts 127.0.0.1,localhost (Toolbox's default '*'
# fails dns-rebinding-protection; the study measures both to show what safety costs).
MCPDB_SERVERS=(faucet dbhub toolbox toolboxsafe)
# The Go drivers mcpdb-direct links (tools/internal/rows): a system whose drivers.go is another
# (sqlserver) gets no direct-driver timing, only the MCP path.
MCPDB_DIRECT_DRIVERS=(pgx mysql sqlite)
MCPDB_STATES=(baseline indexed)
# Bump when the generator's output changes, so prepared databases are reloaded.
MCPDB_DATA_VERSION=1
# The MCP revision every cell speaks (database cells and the client ceiling alike), passed
# explicitly so mcp-load's and k6's sessions are the same protocol.
MCPDB_PROTOCOL=2025-06-18
MCPDB_LOADGEN="$BENCH_SCRIPTS_DIR/loadgen/mcp-load"
export PATH="/usr/local/go/bin:$PATH"

# Scale factor from the profile (MCPDB_SCALE); 1 = seed 000's ~25.6M rows.
mcpdb_scale() {
  local s="${MCPDB_SCALE:-0.0002}"
  [[ "$s" =~ ^[0-9]*\.?[0-9]+$ ]] && awk -v s="$s" 'BEGIN { exit !(s > 0 && s <= 10) }' \
    || die "MCPDB_SCALE='$s' is not valid (valid: a number in (0, 10]; full 1, quick 0.002, ci 0.0002)"
  printf '%s\n' "$s"
}

# mcpdb_use_system SYSTEM: validate it against the study's needs (study.json requires and
# dialects: there is a sql/schema.<dialect>.sql for it), load its env (system_use).
mcpdb_use_system() {
  system_use_for "$MCPDB_DIR/study.json" "${1:-}"
}

# src_hash DIR: a short hash of a Go module's sources (k6/ is mcp-load's separate tools module).
src_hash() {
  (cd "$1" && find . -path ./k6 -prune -o \( -name '*.go' -o -name go.mod -o -name go.sum \) -type f -print \
    | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -c1-16)
}

# The Go helpers (data generator, direct-driver timer, answer checker), rebuilt when their
# sources change. mcp-load is the load client's own module.
mcpdb_build_tools() {
  local stamp want
  mkdir -p "$MCPDB_BIN"
  want="$(src_hash "$MCPDB_DIR/tools")"
  stamp="$MCPDB_BIN/.tools-$want"
  if [[ ! -f "$stamp" || ! -x "$MCPDB_BIN/mcpdb-gen" || ! -x "$MCPDB_BIN/mcpdb-direct" || ! -x "$MCPDB_BIN/mcpdb-answers" ]]; then
    command -v go >/dev/null || die "go is not installed (needed to build the study's tools; CI has /usr/local/go)"
    log "building mcpdb-gen, mcpdb-direct, mcpdb-answers"
    (cd "$MCPDB_DIR/tools" && go build -trimpath -o "$MCPDB_BIN/" ./cmd/...) >&2
    rm -f "$MCPDB_BIN"/.tools-*
    touch "$stamp"
  fi
  # The client ceiling's target is mcp-null (tools/cmd, built above): the one cheapest server.
  want="$(src_hash "$MCPDB_LOADGEN")"
  stamp="$MCPDB_BIN/.mcp-load-$want"
  if [[ ! -f "$stamp" || ! -x "$MCPDB_BIN/mcp-load" ]]; then
    log "building mcp-load"
    (cd "$MCPDB_LOADGEN" && go build -trimpath -o "$MCPDB_BIN/" ./cmd/mcp-load) >&2
    rm -f "$MCPDB_BIN"/.mcp-load-*
    touch "$stamp"
  fi
}

# k6 for the client_ceiling_k6 workload, built from go.k6.io/k6 by the load generator's own
# build script into loadgen/mcp-load/bin/k6 (gitignored) and reused from there: a cold build
# takes 5-7 minutes on 2 cores, so it is done once per machine, not per run.
MCPDB_K6="$MCPDB_LOADGEN/bin/k6"
mcpdb_k6_built() { [[ -x "$MCPDB_K6" && ! "$MCPDB_LOADGEN/k6/tools/go.mod" -nt "$MCPDB_K6" ]]; }
mcpdb_build_k6() {
  mcpdb_k6_built && return 0
  command -v go >/dev/null || die "go is not installed (needed to build k6 from go.k6.io/k6)"
  local start=$SECONDS
  log "building k6 from go.k6.io/k6 into $MCPDB_K6 (a cold build takes 5-7 minutes on 2 cores)"
  "$MCPDB_LOADGEN/build" k6 >&2
  log "k6 built in $(( SECONDS - start )) s: $("$MCPDB_K6" version 2>/dev/null | head -n 1)"
}

# Data folder for the current scale (generated once, reused by every system and run).
mcpdb_data_dir() { printf '%s/data-v%s-sf%s\n' "$MCPDB_STATE" "$MCPDB_DATA_VERSION" "$(mcpdb_scale)"; }

mcpdb_generate() {
  local dir
  dir="$(mcpdb_data_dir)"
  if [[ -f "$dir/counts.json" && -f "$dir/.complete" ]]; then return 0; fi
  rm -rf "$dir"
  log "generating data at scale $(mcpdb_scale) into $dir"
  "$MCPDB_BIN/mcpdb-gen" --out "$dir" --scale "$(mcpdb_scale)" --seed 42 >&2
  touch "$dir/.complete"
}

mcpdb_tables() { printf '%s\n' customers products orders order_items payments shipments reviews events; }

# mcpdb_database STATE: what names database mcpdb_<state> of the system in use, for system_dsn,
# the client verb and the MCP servers: its name on a server; for an embedded engine its file,
# one per system under the study's state ($MCPDB_STATE/<system>/mcpdb_<state>.db).
mcpdb_database() {
  if [[ "$SYSTEM_KIND" == embedded ]]; then
    printf '%s/%s/mcpdb_%s.db\n' "$MCPDB_STATE" "$SYSTEM_NAME" "$1"
  else
    printf 'mcpdb_%s\n' "$1"
  fi
}

# mcpdb_direct_ok: mcpdb-direct can time this system (its drivers.go is one the tool links).
mcpdb_direct_ok() { in_list "${SYSTEM_GO_DRIVER:-}" "${MCPDB_DIRECT_DRIVERS[@]}"; }

# DSN for the direct timer (the system's Go driver) for database mcpdb_<state>; an embedded
# database is opened read-only (the MCP servers read it at the same time).
mcpdb_direct_dsn() {
  local dsn
  dsn="$(system_dsn go "$(mcpdb_database "$1")")"
  if [[ "$SYSTEM_KIND" == embedded ]]; then dsn+="?mode=ro"; fi
  printf '%s\n' "$dsn"
}

# mcpdb_planned_workloads: the workloads this run plans for the system being prepared, one a
# line, from WORKLOADS (comma-separated, as the runner passes it to install and prepare);
# nothing when unset (a person running a verb by hand: everything may follow).
mcpdb_planned_workloads() {
  [[ -n "${WORKLOADS:-}" ]] || return 0
  tr ',' '\n' <<< "$WORKLOADS" | sed '/^$/d'
}
