# shellcheck shell=bash disable=SC2034  # SYSTEM_* and SELF_* are read by the sourcing verbs
# What a study (or a system's own verbs) knows about a system, asked of its folder
# bench-scripts/systems/<name>/: system.json (pipeline/schema/system.schema.json) and the verbs.
# Source it after lib/common.sh. No function here lists or `case`s system names: engine
# knowledge lives in the system folder, so a copy of a folder under a new name is a new system.
#
# For studies:
#   system_use NAME          validate NAME, export SYSTEM_* and the env verb's KEY=VALUE lines
#   system_has CAP           true when the system declares capability CAP
#   system_require CAP...    exit 3 (not available) naming the first missing capability and its note
#   system_check             exit 1 unless the system answers (its check verb)
#   system_dsn FORMAT [DB]   the ONE place connection strings are built (url | go)
#   system_client_argv ...   (lib/sql-clients.sh / helper HA) the argv running a SQL file
# For a system's own verbs (systems/<name>/_lib.sh):
#   system_self_init         SELF_NAME SELF_DIR SELF_STATE from the verb's own folder
#   system_self_port VAR ORIGINAL FALLBACK   the folder's port (see there)

# shellcheck source=./common.sh
declare -F not_available >/dev/null || . "$(dirname "${BASH_SOURCE[0]}")/common.sh"
# shellcheck source=./sql-clients.sh
declare -F sql_client_null >/dev/null || . "$(dirname "${BASH_SOURCE[0]}")/sql-clients.sh"

SYSTEMS_DIR="$BENCH_SCRIPTS_DIR/systems"

# system_names: every folder with a system.json, one a line, sorted.
system_names() {
  local f
  for f in "$SYSTEMS_DIR"/*/system.json; do
    [[ -f "$f" ]] && basename "$(dirname "$f")"
  done
  return 0
}

# system_valid_name NAME: NAME is a folder of systems/ with a system.json.
system_valid_name() {
  [[ "${1:-}" =~ ^[a-z0-9][a-z0-9-]*$ && -f "$SYSTEMS_DIR/$1/system.json" ]]
}

# system_require_name NAME: exit 2 naming the valid systems unless NAME is one.
system_require_name() {
  local valid
  system_valid_name "${1:-}" && return 0
  valid="$(system_names | paste -sd, -)"
  [[ -n "${1:-}" ]] || bad_input "missing system argument (valid: $valid)"
  bad_input "unknown system '$1' (valid: $valid)"
}

# system_use NAME: validate NAME, read its system.json, run its env verb and export its lines.
# Exports SYSTEM_NAME SYSTEM_DIR SYSTEM_JSON SYSTEM_KIND SYSTEM_LABEL SYSTEM_PORT SYSTEM_DIALECT
# SYSTEM_CLIENT SYSTEM_LOAD (default native) SYSTEM_CAPS (space-separated) SYSTEM_GO_DRIVER
# SYSTEM_SYSBENCH_DRIVER (empty when the system has none). The env verb's exit 3 passes
# through as not available (its line is the reason); another failure dies.
system_use() {
  local name="${1:-}" fields out rc=0
  system_require_name "$name"
  SYSTEM_NAME="$name"
  SYSTEM_DIR="$SYSTEMS_DIR/$name"
  SYSTEM_JSON="$SYSTEM_DIR/system.json"
  fields="$("$SAMEBOX_PY" - "$SYSTEM_JSON" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
sql = doc.get("sql") or {}
drivers = doc.get("drivers") or {}
fields = {
    "SYSTEM_KIND": doc.get("kind", ""),
    "SYSTEM_LABEL": doc.get("label", ""),
    "SYSTEM_PORT": doc.get("port", ""),
    "SYSTEM_DIALECT": sql.get("dialect", ""),
    "SYSTEM_SQL_FLAVOR": sql.get("flavor", ""),
    "SYSTEM_CLIENT": sql.get("client", ""),
    "SYSTEM_LOAD": sql.get("load", "native") if sql else "",
    "SYSTEM_CAPS": " ".join(doc.get("capabilities") or []),
    "SYSTEM_GO_DRIVER": drivers.get("go", ""),
    "SYSTEM_SYSBENCH_DRIVER": drivers.get("sysbench", ""),
}
for k, v in fields.items():
    print(f"{k}={v}")
PY
)" || die "cannot read $SYSTEM_JSON"
  load_env_lines <<< "$fields"
  export SYSTEM_NAME SYSTEM_DIR SYSTEM_JSON
  # Nothing from another system (or the caller's environment) may stand in for a key this
  # system's env does not print.
  unset DB_HOST DB_PORT DB_USER DB_PASSWORD DB_NAME DB_SOCKET DB_URL DB_PATH DB_CLI PG_BIN
  out="$("$SYSTEM_DIR/env")" || rc=$?
  if (( rc != 0 )); then
    (( rc == EXIT_NOT_AVAILABLE )) && not_available "$out"
    die "systems/$name/env failed (exit $rc)"
  fi
  load_env_lines <<< "$out"
}

# system_has CAP: the system (system_use first) declares capability CAP.
system_has() { [[ " ${SYSTEM_CAPS:-} " == *" $1 "* ]]; }

# system_capability_note CAP: the system's capability_notes text for CAP (may be empty).
system_capability_note() { json_path "$SYSTEM_JSON" "capability_notes.$1"; }

# system_require CAP...: not available (exit 3) unless the system has every CAP; the reason
# names the capability and the system's capability_notes text for it.
system_require() {
  local cap note
  for cap in "$@"; do
    system_has "$cap" && continue
    note="$(system_capability_note "$cap")"
    not_available "$SYSTEM_NAME lacks capability '$cap'${note:+: $note} (it has: ${SYSTEM_CAPS:-none})"
  done
}

# system_check: the system answers (its check verb); dies with what to do otherwise.
system_check() {
  "$SYSTEM_DIR/check" >/dev/null 2>&1 \
    || die "$SYSTEM_NAME does not answer${DB_HOST:+ on $DB_HOST:${DB_PORT:-}}: run systems/$SYSTEM_NAME/start first"
}

# system_require_env KEY...: the env verb printed every KEY (non-empty).
system_require_env() {
  local key
  for key in "$@"; do
    [[ -n "${!key:-}" ]] || die "systems/$SYSTEM_NAME/env printed no $key"
  done
}

# urlencode TEXT: percent-encode everything but RFC 3986 unreserved characters.
urlencode() {
  local s="$1" out="" c i
  for (( i = 0; i < ${#s}; i++ )); do
    c="${s:i:1}"
    case "$c" in
      [A-Za-z0-9._~-]) out+="$c" ;;
      *) printf -v c '%%%02X' "'$c"; out+="$c" ;;
    esac
  done
  printf '%s' "$out"
}

# system_dsn FORMAT [DBNAME]: the connection string of the system (system_use first) for
# database DBNAME (default DB_NAME; for an embedded system, DBNAME is the database file,
# default DB_PATH). The ONE place connection strings are built.
#   url  postgres://u:p@h:port/db?sslmode=disable, mysql://u:p@h:port/db,
#        sqlserver://u:p@h:port?database=db, file:PATH (embedded): keyed by the SQL dialect
#   go   what our Go tools hand their database/sql driver (drivers.go): pgx the postgres URL,
#        mysql u:p@tcp(h:port)/db, sqlite file:PATH, sqlserver sqlserver://u:p@h:port?database=db
# An external system whose env printed DB_URL (the DSN it was given) gets that URL back for
# its own database (no DBNAME), so options in the given DSN are kept.
system_dsn() {
  local format="${1:-}" db="${2:-}" key
  case "$format" in
    url) key="${SYSTEM_DIALECT:-}" ;;
    go) key="${SYSTEM_GO_DRIVER:-}" ;;
    *) bad_input "system_dsn: unknown format '$format' (valid: url, go)" ;;
  esac
  if [[ "$SYSTEM_KIND" == embedded ]]; then
    local path="${db:-${DB_PATH:-}}"
    [[ -n "$path" ]] || die "systems/$SYSTEM_NAME/env printed no DB_PATH"
    printf 'file:%s\n' "$path"
    return 0
  fi
  if [[ -z "$db" && -n "${DB_URL:-}" && "$format" == url ]]; then
    printf '%s\n' "$DB_URL"
    return 0
  fi
  system_require_env DB_HOST DB_PORT DB_USER
  db="${db:-${DB_NAME:-}}"
  local user pass
  user="$(urlencode "$DB_USER")"
  pass="$(urlencode "${DB_PASSWORD:-}")"
  case "$key" in
    postgresql | pgx) printf 'postgres://%s:%s@%s:%s/%s?sslmode=disable\n' "$user" "$pass" "$DB_HOST" "$DB_PORT" "$db" ;;
    mysql)
      if [[ "$format" == url ]]; then
        printf 'mysql://%s:%s@%s:%s/%s\n' "$user" "$pass" "$DB_HOST" "$DB_PORT" "$db"
      else
        # go-sql-driver's own DSN form: the password is taken up to the last '@', unescaped.
        printf '%s:%s@tcp(%s:%s)/%s\n' "$DB_USER" "${DB_PASSWORD:-}" "$DB_HOST" "$DB_PORT" "$db"
      fi ;;
    tsql | sqlserver) printf 'sqlserver://%s:%s@%s:%s?database=%s\n' "$user" "$pass" "$DB_HOST" "$DB_PORT" "$db" ;;
    "") die "$SYSTEM_NAME declares no $([[ $format == url ]] && echo sql.dialect || echo drivers.go) in its system.json: no $format DSN" ;;
    *) die "system_dsn: no $format DSN form for '$key' (valid: postgresql/pgx, mysql, tsql/sqlserver, embedded)" ;;
  esac
}

# ---- a study's needs against a system ----------------------------------------------------
# A study.json says what it needs (`requires`: capabilities, optional `dialects`); a workload
# file may add its own `requires`. These match them against a system, never a name list.

# system_meets STUDY_JSON [NAME]: NAME (default the system in use) has every capability the
# study requires and, when the study lists dialects, one of them.
system_meets() {
  "$SAMEBOX_PY" - "$1" "$SYSTEMS_DIR/${2:-$SYSTEM_NAME}/system.json" <<'PY'
import json, sys
study, system = (json.load(open(p)) for p in sys.argv[1:3])
caps = set(system.get("capabilities") or [])
ok = set(study.get("requires") or []) <= caps
dialects = study.get("dialects")
if dialects is not None:
    ok = ok and (system.get("sql") or {}).get("dialect") in dialects
sys.exit(0 if ok else 1)
PY
}

# system_names_for STUDY_JSON: the systems that meet the study's needs, one a line.
system_names_for() {
  local name
  while IFS= read -r name; do
    system_meets "$1" "$name" && printf '%s\n' "$name"
  done < <(system_names)
  return 0
}

# system_use_for STUDY_JSON NAME: system_use for a study. An unknown NAME is bad input (exit 2)
# naming the systems that meet the study's needs; a known system that lacks a capability the
# study requires, or speaks a dialect it has no files for, is not available (exit 3).
system_use_for() {
  local study_json="$1" name="${2:-}" study valid dialects requires keys
  # one interpreter start for the three keys (every cell of every study passes here)
  keys="$("$SAMEBOX_PY" - "$study_json" <<'PY'
import json, shlex, sys
doc = json.load(open(sys.argv[1]))
def text(v):
    return "\n".join(str(x) for x in v) if isinstance(v, list) else ("" if v is None else str(v))
for var, key in (("study", "name"), ("requires", "requires"), ("dialects", "dialects")):
    print(f"{var}={shlex.quote(text(doc.get(key)))}")
PY
)" || die "cannot read $study_json"
  eval "$keys"
  if ! system_valid_name "$name"; then
    valid="$(system_names_for "$study_json" | paste -sd, -)"
    [[ -n "$name" ]] || bad_input "missing system argument (valid for $study: $valid)"
    bad_input "unknown system '$name' (valid for $study: $valid)"
  fi
  system_use "$name"
  # shellcheck disable=SC2086  # one capability a word
  system_require $requires
  if [[ -n "$dialects" ]] && ! list_contains "$dialects" "$SYSTEM_DIALECT"; then
    not_available "the $study study has no SQL for dialect '${SYSTEM_DIALECT:-none}' of $name (it has: ${dialects//$'\n'/,})"
  fi
}

# system_require_workload WORKLOAD_JSON: not available unless the system has every capability
# the workload file requires (the runner plans such a cell as skipped; this covers a direct call).
system_require_workload() {
  # shellcheck disable=SC2046  # one capability a word
  system_require $(json_get "$1" requires)
}

# ---- for the verbs of a system folder -------------------------------------------------
# system_self_init: the folder the running verb lives in is the system: SELF_NAME (its folder
# name), SELF_DIR, SELF_JSON, SELF_STATE ($SAMEBOX_STATE/<folder name>, so a copy of the folder
# never shares the original's data).
system_self_init() {
  SELF_DIR="$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)"
  SELF_NAME="$(basename "$SELF_DIR")"
  SELF_JSON="$SELF_DIR/system.json"
  SELF_STATE="$SAMEBOX_STATE/$SELF_NAME"
}

# system_self_port OVERRIDE_VAR ORIGINAL FALLBACK: the port this folder serves on. The legacy
# override (e.g. SAMEBOX_PG_PORT) applies to the folder named ORIGINAL only, so a copy next to
# it never takes the original's port; any folder also honours SAMEBOX_PORT_<NAME> (upper case,
# '-' as '_'); else system.json `port`, else FALLBACK.
system_self_port() {
  local override="$1" original="$2" fallback="$3" own port=""
  own="SAMEBOX_PORT_$(tr 'a-z-' 'A-Z_' <<< "$SELF_NAME")"
  if [[ "$SELF_NAME" == "$original" && -n "${!override:-}" ]]; then
    port="${!override}"
    require_port "$override" "$port"
  elif [[ -n "${!own:-}" ]]; then
    port="${!own}"
    require_port "$own" "$port"
  elif [[ "${SYSTEM_JSON:-}" == "$SELF_JSON" && -n "${SYSTEM_PORT:-}" ]]; then
    # a study's system_use already read this folder's system.json (and exported SYSTEM_*): its
    # port, without another interpreter start in each verb the study calls
    port="$SYSTEM_PORT"
    require_port "port in $SELF_JSON" "$port"
  else
    port="$(json_get "$SELF_JSON" port)"
    port="${port:-$fallback}"
    require_port "port in $SELF_JSON" "$port"
  fi
  printf '%s\n' "$port"
}

# system_client_argv MODE FILE [DBNAME]: fill the array CLIENT_ARGV with the argv that runs the
# SQL file FILE on the system (system_use first) through its `client` verb (lib/sql-clients.sh):
# MODE exec (results discarded) or query (rows tab-separated, no header; CLIENT_NULL is how
# NULL is spelled: \N, or NULL for clients that cannot print anything else). DBNAME: servers
# the database (default DB_NAME), embedded engines the database file (default DB_PATH). The
# verb's leading NAME=VALUE words (passwords) are exported here and kept in CLIENT_ENV, so
# CLIENT_ARGV[0] is the client binary itself: hyperfine times it with no wrapper in between.
system_client_argv() {
  local mode="${1:-}" file="${2:-}" db="${3:-}" tmp rc=0
  [[ -x "$SYSTEM_DIR/client" ]] \
    || not_available "$SYSTEM_NAME has no client verb (systems/$SYSTEM_NAME/client), so it cannot run SQL files"
  tmp="$(mktemp)"
  "$SYSTEM_DIR/client" "$mode" "$file" ${db:+"$db"} > "$tmp" || rc=$?
  if (( rc != 0 )); then
    local said
    said="$(tr '\0' ' ' < "$tmp")"
    rm -f "$tmp"
    (( rc == EXIT_NOT_AVAILABLE )) && not_available "$said"
    (( rc == EXIT_BAD_INPUT )) && bad_input "systems/$SYSTEM_NAME/client $mode: bad arguments (its error is above)"
    die "systems/$SYSTEM_NAME/client $mode $file failed (exit $rc)"
  fi
  mapfile -d '' -t CLIENT_ARGV < "$tmp"
  rm -f "$tmp"
  CLIENT_ENV=()
  while (( ${#CLIENT_ARGV[@]} )) && [[ "${CLIENT_ARGV[0]}" =~ ^[A-Za-z_][A-Za-z0-9_]*= ]]; do
    CLIENT_ENV+=("${CLIENT_ARGV[0]}")
    export "${CLIENT_ARGV[0]?}"
    CLIENT_ARGV=("${CLIENT_ARGV[@]:1}")
  done
  (( ${#CLIENT_ARGV[@]} )) || die "systems/$SYSTEM_NAME/client $mode printed no command"
  CLIENT_NULL='\N'
  if [[ "$mode" == query ]]; then
    # the family system_use read gives the spelling; the verb is asked only when there is none
    if [[ -n "${SYSTEM_CLIENT:-}" ]]; then CLIENT_NULL="$(sql_client_null "$SYSTEM_CLIENT")"; else CLIENT_NULL="$("$SYSTEM_DIR/client" null)"; fi
  fi
}
