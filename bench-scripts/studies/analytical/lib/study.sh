# shellcheck shell=bash
# shellcheck disable=SC2034  # the variables set here are used by the scripts that source this file
# What the analytical study's verbs share. No system is named here: a system is asked through
# lib/system.sh (its system.json and verbs): its SQL dialect picks the workloads' SQL, its kind
# says whether there is a server to restart, its capabilities say which workloads apply, and
# its `client` verb gives the command that runs a SQL file on it.

STUDY_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=../../../lib/common.sh
. "$STUDY_DIR/../../lib/common.sh"
# shellcheck source=../../../lib/system.sh
. "$BENCH_SCRIPTS_DIR/lib/system.sh"
PY="$STUDY_DIR/lib/analytical.py"
PYTHON="$SAMEBOX_PY"   # the system interpreter when there is one (lib/common.sh)
STATE_DIR="$SAMEBOX_STATE/analytical"
DATA_DIR="$STATE_DIR/data"
PARQUET_DIR="$DATA_DIR/parquet"

# analytical_use SYSTEM: SYSTEM for this study (lib/system.sh system_use_for: an unknown name exits
# 2 naming the valid ones; a system without capability sql or with a dialect the workloads have
# no SQL for exits 3), its system.json and env read, and what the verbs need set:
#   DB_FILE   embedded engines: the study's own database file (the client's DBNAME)
#   SCHEMA    the schema the study's tables live in ("" = the database's default)
analytical_use() {
  system_use_for "$STUDY_DIR/study.json" "$1"
  DB_FILE=""
  if [[ "$SYSTEM_KIND" == embedded ]]; then DB_FILE="$STATE_DIR/$SYSTEM_NAME.db"; mkdir -p "$STATE_DIR"; fi
  # A full PostgreSQL (native load) gets the tables in schema `analytical`, so the study never
  # touches other studies' tables in the same database; an engine loaded by plain INSERTs
  # (sql.load insert: a PostgreSQL-wire engine that need not implement COPY) need not implement
  # schemas either and gets its default one. psql and libpq read PGOPTIONS. `public` stays on the
  # path after it: extensions live there (pgvector's type `vector`, created by the system's start);
  # tables are still created in the first schema of the path.
  SCHEMA=""
  if [[ "$SYSTEM_DIALECT" == postgresql && "$SYSTEM_LOAD" == native ]]; then
    SCHEMA=analytical
    export PGOPTIONS="-c search_path=$SCHEMA,public"
  fi
}

# client_argv MODE FILE: CLIENT_ARGV (and its exported CLIENT_ENV, CLIENT_NULL) for the system.
client_argv() { system_client_argv "$1" "$2" ${DB_FILE:+"$DB_FILE"}; }

# sql_exec FILE: run a SQL file for its side effects (setup, loading), output discarded. A failure
# is a failure (exit 1), whatever the client's own exit code (psql exits 3 on a script error,
# which would read as "not available").
sql_exec() {
  client_argv exec "$1"
  "${CLIENT_ARGV[@]}" >/dev/null || die "$SYSTEM_NAME: $(basename "$1") failed (client exit $?)"
}

# write_command FILE.json NAME TIMED_BY ARGV...: the exact command a cell timed or ran, for the
# record and the site (FILE.json and the same as one shell line in FILE.txt): argv as run, the
# environment the client gets (CLIENT_ENV, values of *PASSWORD*/*PWD* redacted, as is a password
# inside a connection URI; PGOPTIONS when set) and TIMED_BY, what ran it (e.g. the hyperfine line).
# The .txt line spells the cell folder "$CELL_DIR" (CELL_DIR exported by the caller); the .json
# keeps the argv exactly as run and the folder it ran in (cell_dir).
write_command() {
  local out="$1" name="$2" timed_by="$3"
  shift 3
  "$PYTHON" - "$out" "$name" "$timed_by" "${PGOPTIONS:-}" "${#CLIENT_ENV[@]}" "${CLIENT_ENV[@]}" "$@" <<'PY'
import json, os, re, shlex, sys
out, name, timed_by, pgoptions, n = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
env_words, argv = sys.argv[6:6 + n], sys.argv[6 + n:]
def redact(word):
    return re.sub(r"(://[^:/@]*):[^@]*@", r"\1:***@", word)
env = {}
for w in env_words:
    k, v = w.split("=", 1)
    env[k] = "***" if re.search(r"PASSWORD|PWD", k) else v
if pgoptions:
    env["PGOPTIONS"] = pgoptions
argv = [redact(a) for a in argv]
cell_dir = os.environ.get("CELL_DIR", "")
def shell_word(word):
    # the cell folder's own path as "$CELL_DIR", so the line is the same for every cell that ran
    # the same command (and still runs, with CELL_DIR set to a cell folder)
    if not cell_dir or cell_dir not in word:
        return shlex.quote(word)
    return '"$CELL_DIR"'.join(shlex.quote(p) if p else "" for p in word.split(cell_dir))
shell = " ".join([f"{k}={shlex.quote(v)}" for k, v in env.items()] + [shell_word(a) for a in argv])
doc = {"name": name, "env": env, "argv": argv, "cell_dir": cell_dir, "shell": shell,
       "timed_by": redact(timed_by)}
with open(out, "w") as f:
    json.dump(doc, f, indent=1)
    f.write("\n")
with open(out[:-5] + ".txt", "w") as f:
    f.write(doc["shell"] + "\n")
PY
}
