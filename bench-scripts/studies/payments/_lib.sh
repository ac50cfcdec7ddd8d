# shellcheck shell=bash disable=SC2034  # variables here are used by the verbs that source this
# payments study helpers (sourced, not a verb): parameters, the system's connection, the reserva
# load generator (bench-scripts/loadgen/reserva) and how to build it.

# shellcheck source=../../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../lib/common.sh"
# shellcheck source=../../lib/system.sh
. "$BENCH_SCRIPTS_DIR/lib/system.sh"
# shellcheck source=../../lib/toolchains.sh
. "$BENCH_SCRIPTS_DIR/lib/toolchains.sh"

STUDY_DIR="$BENCH_SCRIPTS_DIR/studies/payments"
RESERVA_SRC="$BENCH_SCRIPTS_DIR/loadgen/reserva"
RESERVA_BIN="$RESERVA_SRC/bin/reserva"

# require_count NAME VALUE MIN MAX: a whole number in [MIN, MAX], else exit 2.
require_count() {
  local name="$1" value="$2" min="$3" max="$4"
  if [[ ! "$value" =~ ^[0-9]+$ ]] || (( 10#$value < min || 10#$value > max )); then
    bad_input "$name='$value' is not valid (valid: a whole number $min..$max)"
  fi
}

# Parameters from the suite profile; defaults are seed 004's (1,000,000 accounts, 64 transfers in
# flight, deletes on; the seed measured 60 minutes).
payments_params() {
  THREADS="${THREADS:-64}"
  DURATION="${DURATION:-3600}"
  WARMUP="${WARMUP:-180}"
  ACCOUNTS="${ACCOUNTS:-1000000}"
  SEED="${SEED:-4}"
  DELETES="${DELETES:-true}"
  QUERY_TIMEOUT_S="${QUERY_TIMEOUT_S:-60}"
  require_count THREADS "$THREADS" 1 190   # the servers allow 200 connections
  require_count DURATION "$DURATION" 1 21600
  require_count WARMUP "$WARMUP" 0 3600
  require_count ACCOUNTS "$ACCOUNTS" 100 10000000
  require_count SEED "$SEED" 0 4294967295
  require_count QUERY_TIMEOUT_S "$QUERY_TIMEOUT_S" 1 600
  [[ "$DELETES" == true || "$DELETES" == false ]] || bad_input "DELETES='$DELETES' is not valid (valid: true, false)"
}

payments_variants() { json_get "$STUDY_DIR/study.json" variants; }

# payments_use_system SYSTEM: validate it against the study's needs (study.json requires and
# dialects), load its env, check it answers; sets DSN (system_dsn go), DRIVER (drivers.go),
# SQL_DIR (sql/<dialect>) and ENGINE (the system's name, reserva's -label).
payments_use_system() {
  system_use_for "$STUDY_DIR/study.json" "${1:-}"
  system_require_env DB_HOST DB_PORT DB_USER DB_PASSWORD DB_NAME
  system_check
  ENGINE="$SYSTEM_NAME"
  DRIVER="$SYSTEM_GO_DRIVER"
  [[ -n "$DRIVER" ]] || not_available "$ENGINE declares no Go driver (drivers.go in its system.json): reserva cannot connect to it"
  DSN="$(system_dsn go)"
  SQL_DIR="$STUDY_DIR/sql/$SYSTEM_DIALECT"
  [[ -d "$SQL_DIR" ]] || not_available "the payments study has no SQL for dialect '$SYSTEM_DIALECT' (sql/$SYSTEM_DIALECT)"
}

# The binary is current when it exists and no source is newer than it.
reserva_built() {
  [[ -x "$RESERVA_BIN" ]] && [[ -z "$(find "$RESERVA_SRC" -maxdepth 1 \( -name '*.go' -o -name 'go.mod' -o -name 'go.sum' \) -newer "$RESERVA_BIN" 2>/dev/null)" ]]
}

reserva_build() {
  reserva_built && return 0
  need_go 1.23
  log "building reserva ($RESERVA_SRC)"
  (cd "$RESERVA_SRC" && go build -trimpath -o bin/reserva .) >&2 || die "go build of reserva failed"
}
