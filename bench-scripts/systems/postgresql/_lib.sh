# shellcheck shell=bash disable=SC2034  # variables here are used by the verbs that source this
# PostgreSQL definitions shared by the verbs in this folder (sourced, not a verb).
# We never use the distro's cluster: our own data dir under $SAMEBOX_STATE, our port,
# our socket dir, started with pg_ctl as OS user postgres.

# shellcheck source=../../lib/system.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../lib/system.sh"
# This folder is the system: its name gives the state dir, its system.json the port, so a copy
# under another name with another port runs beside it.
system_self_init

# Debian 12 ships 15; on Ubuntu we add PGDG and use 18 (the newest major, closest to the
# seed's 17.9 without going older). SAMEBOX_PG_MAJOR overrides.
pg_default_major() {
  detect_os
  case "$OS_ID:$OS_VERSION_ID" in
    debian:12) echo 15 ;;
    debian:13) echo 17 ;;
    ubuntu:*) echo 18 ;;
    *) echo "" ;;
  esac
}

PG_MAJOR="${SAMEBOX_PG_MAJOR:-$(pg_default_major)}"
PG_BIN="/usr/lib/postgresql/${PG_MAJOR}/bin"
PG_STATE="$SELF_STATE"
PG_DATA="$PG_STATE/data"
PG_RUN="$PG_STATE/run"
PG_LOG="$PG_STATE/log/postgresql.log"
PG_TUNING_FILE="samebox-tuning.conf"
PG_PORT="$(system_self_port SAMEBOX_PG_PORT postgresql 54329)"

pg_os_supported() { [[ -n "$PG_MAJOR" ]]; }

pg_installed() { [[ -x "$PG_BIN/postgres" && -x "$PG_BIN/pg_ctl" && -x "$PG_BIN/pgbench" ]]; }

# Verbs other than install/stop exit 3 when PostgreSQL cannot be there.
pg_require_installed() {
  detect_os
  pg_os_supported || not_available "postgresql: no supported PostgreSQL major for $OS_ID $OS_VERSION_ID (supported: Debian 12/13, Ubuntu)"
  pg_installed || not_available "postgresql $PG_MAJOR is not installed ($PG_BIN/postgres missing): run systems/postgresql/install"
}

pg_ctl_as_postgres() { run_as postgres "$PG_BIN/pg_ctl" -D "$PG_DATA" "$@"; }

pg_running() { [[ -f "$PG_DATA/postmaster.pid" ]] && pg_ctl_as_postgres status >/dev/null 2>&1; }

pg_postmaster_pid() {
  [[ -f "$PG_DATA/postmaster.pid" ]] || return 0
  local pid
  pid="$(head -n 1 "$PG_DATA/postmaster.pid")"
  pid_alive "$pid" && printf '%s\n' "$pid"
  return 0
}

# Superuser psql over our unix socket (peer auth as OS user postgres).
pg_admin_psql() {
  run_as postgres "$PG_BIN/psql" -X -q -At -v ON_ERROR_STOP=1 -h "$PG_RUN" -p "$PG_PORT" -d postgres "$@"
}

# The bench user over loopback TCP with scram: the same path sysbench and pgbench use.
pg_bench_psql() {
  PGPASSWORD=bench PGCONNECT_TIMEOUT=5 "$PG_BIN/psql" -X -q -At -v ON_ERROR_STOP=1 \
    -h 127.0.0.1 -p "$PG_PORT" -U bench -d sbtest "$@"
}

# Tuning from seed 002 (2 GB shared_buffers on an 8 GB box, effective_cache_size 4 GB,
# work_mem 256MB, max_connections 200, checkpoint_completion_target 0.9, wal_buffers 64MB),
# with the memory settings scaled to this machine's RAM.
pg_tuning_conf() {
  local fraction shared_mib cache_mib
  fraction="$(buffer_fraction)"
  shared_mib="$(mem_fraction_mib "$fraction")"
  cache_mib="$(mem_fraction_mib "$(awk -v f="$fraction" 'BEGIN { print (2 * f > 0.9 ? 0.9 : 2 * f) }')")"
  cat <<CONF
# Written by samebox bench-scripts/systems/postgresql/start on every start; edits are lost.
listen_addresses = '127.0.0.1'
port = $PG_PORT
unix_socket_directories = '$PG_RUN'
shared_buffers = ${shared_mib}MB
effective_cache_size = ${cache_mib}MB
work_mem = 256MB
max_connections = 200
checkpoint_completion_target = 0.9
wal_buffers = 64MB
password_encryption = 'scram-sha-256'
CONF
}

# Settings reported by the config verb, in this order.
PG_CONFIG_SETTINGS=(shared_buffers effective_cache_size work_mem max_connections
  checkpoint_completion_target wal_buffers max_wal_size synchronous_commit fsync
  listen_addresses port lc_collate)
