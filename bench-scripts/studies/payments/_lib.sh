# shellcheck shell=bash disable=SC2034  # variables here are used by the verbs that source this
# payments study helpers (sourced, not a verb): parameters, the system's connection, the reserva
# load generator (bench-scripts/loadgen/reserva) and how to build it.

# shellcheck source=../../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../lib/common.sh"
# shellcheck source=../../lib/toolchains.sh
. "$BENCH_SCRIPTS_DIR/lib/toolchains.sh"

STUDY_DIR="$BENCH_SCRIPTS_DIR/studies/payments"
SYSTEMS_DIR="$BENCH_SCRIPTS_DIR/systems"
RESERVA_SRC="$BENCH_SCRIPTS_DIR/loadgen/reserva"
RESERVA_BIN="$RESERVA_SRC/bin/reserva"
EXIT_BAD_INPUT=2

# Bad input: one line naming what is wrong and what is valid, exit 2.
bad_input() {
  log "error: $*"
  exit "$EXIT_BAD_INPUT"
}

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

# payments_use_system SYSTEM: validate it, load its env, check it answers; sets DSN, ENGINE, SQL_DIR.
payments_use_system() {
  local system="${1:-}" systems valid out rc=0 key
  systems="$(json_get "$STUDY_DIR/study.json" systems)"
  valid="${systems//$'\n'/,}"
  [[ -n "$system" ]] || bad_input "missing system argument (valid: $valid)"
  list_contains "$systems" "$system" || bad_input "unknown system '$system' for the payments study (valid: $valid)"
  out="$("$SYSTEMS_DIR/$system/env")" || rc=$?
  (( rc == 0 )) || { (( rc == EXIT_NOT_AVAILABLE )) && not_available "$out"; die "$system/env failed (exit $rc)"; }
  load_env_lines <<< "$out"
  for key in DB_HOST DB_PORT DB_USER DB_PASSWORD DB_NAME; do
    [[ -n "${!key:-}" ]] || die "$system/env printed no $key"
  done
  "$SYSTEMS_DIR/$system/check" >/dev/null 2>&1 || die "$system does not answer on $DB_HOST:$DB_PORT: run systems/$system/start first"
  ENGINE="$system"
  case "$system" in
    postgresql)
      DSN="postgresql://$DB_USER:$DB_PASSWORD@$DB_HOST:$DB_PORT/$DB_NAME?sslmode=disable"
      SQL_DIR="$STUDY_DIR/sql/postgresql" ;;
    mariadb|mysql)
      DSN="$DB_USER:$DB_PASSWORD@tcp($DB_HOST:$DB_PORT)/$DB_NAME"
      SQL_DIR="$STUDY_DIR/sql/mysql-family" ;;
  esac
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
