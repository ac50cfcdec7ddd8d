# shellcheck shell=bash disable=SC2034  # MF_* paths are used by the system verbs
# What MariaDB and Oracle MySQL have in common: own datadir under $SAMEBOX_STATE/<name>,
# server started in the background as OS user mysql on 127.0.0.1, own socket and pid
# file, a generated cnf (no /etc/mysql files are read), user bench/bench, database sbtest.
#
# The sourcing systems/<name>/_lib.sh calls system_self_init (lib/system.sh) and sets, before
# calling any mf_* function:
#   MF_NAME (= SELF_NAME, the folder's name) MF_LABEL MF_PORT MF_SERVER MF_CLIENT MF_ADMIN   names, port, binaries
#   MF_AUTH          how bench is identified, e.g. "IDENTIFIED BY 'bench'"
#   MF_REDO_CNF      the redo-log line of the cnf (the two spell 256M differently)
#   MF_EXTRA_CNF     further [mysqld] lines (may be empty)
#   MF_CONFIG_VARS   array: server variables the config verb reports
# and defines the functions mf_installed (true when binaries are there),
# mf_require_installed (exit 3 with why otherwise) and mf_initialize_datadir.

# shellcheck source=./system.sh
. "$(dirname "${BASH_SOURCE[0]}")/system.sh"

mf_paths() {
  MF_STATE="$SELF_STATE"
  MF_DATA="$MF_STATE/data"
  MF_RUN="$MF_STATE/run"
  MF_SOCKET="$MF_RUN/mysqld.sock"
  MF_PIDFILE="$MF_RUN/mysqld.pid"
  MF_LOG="$MF_STATE/log/error.log"
  MF_CNF="$MF_STATE/my.cnf"
  MF_BENCH_CNF="$MF_STATE/client-bench.cnf"
}

# Tuning from seed 002 (MariaDB bench.cnf: buffer pool 2G of 8 GB RAM, log file 256M,
# max_connections 200, flush_log_at_trx_commit 1) with the buffer pool scaled to RAM.
mf_buffer_pool_mib() { mem_fraction_mib "$(buffer_fraction)"; }

mf_cnf_text() {
  local pool_mib
  pool_mib="$(mf_buffer_pool_mib)"
  cat <<CNF
# Written by samebox bench-scripts/systems/$MF_NAME/start on every start; edits are lost.
[mysqld]
user = mysql
datadir = $MF_DATA
socket = $MF_SOCKET
pid-file = $MF_PIDFILE
log-error = $MF_LOG
port = $MF_PORT
bind-address = 127.0.0.1
# Clients come from 127.0.0.1 or the socket; no reverse DNS on connect.
skip-name-resolve
innodb_buffer_pool_size = ${pool_mib}M
$MF_REDO_CNF
max_connections = 200
innodb_flush_log_at_trx_commit = 1
$MF_EXTRA_CNF
CNF
}

mf_write_cnf() {
  mf_cnf_text > "$MF_CNF"
  chmod 0644 "$MF_CNF"
}

mf_pid() { pidfile_pid "$MF_PIDFILE"; }

mf_running() { [[ -n "$(mf_pid)" ]]; }

# root over our socket: unix_socket auth (MariaDB) / empty password (MySQL --initialize-insecure).
mf_admin_sql() {
  "$MF_CLIENT" --no-defaults --socket="$MF_SOCKET" --user=root --connect-timeout=5 \
    --batch --skip-column-names -e "$1"
}

mf_ping() { "$MF_ADMIN" --no-defaults --socket="$MF_SOCKET" --user=root --connect-timeout=2 ping >/dev/null 2>&1; }

# bench over loopback TCP, the workloads' path; password from a 0600 client file so it
# never shows in ps and the client prints no "password on the command line" warning.
mf_bench_sql() {
  mkdir -p "$MF_STATE"
  (umask 077; printf '[client]\nuser=bench\npassword=bench\nhost=127.0.0.1\nport=%s\ndatabase=sbtest\n' \
    "$MF_PORT" > "$MF_BENCH_CNF")
  "$MF_CLIENT" --defaults-file="$MF_BENCH_CNF" --protocol=TCP --connect-timeout=5 \
    --batch --skip-column-names -e "$1"
}

mf_start() {
  require_root
  mf_require_installed
  ensure_system_user mysql
  ensure_state_root
  mkdir -p "$MF_DATA" "$MF_RUN" "$(dirname "$MF_LOG")"
  chown mysql:mysql "$MF_STATE" "$MF_DATA" "$MF_RUN" "$(dirname "$MF_LOG")"
  chmod 0750 "$MF_DATA"
  mf_write_cnf

  if [[ ! -d "$MF_DATA/mysql" ]]; then
    log "initializing $MF_DATA"
    mf_initialize_datadir || die "initializing $MF_DATA failed (log: $MF_LOG)"
  fi

  if mf_running; then
    log "already running (pid $(mf_pid)); tuning changes apply after stop + start"
  else
    rm -f "$MF_SOCKET" "$MF_SOCKET.lock" "$MF_PIDFILE"
    log "starting $MF_LABEL on 127.0.0.1:$MF_PORT"
    # setsid: own session, so the server outlives whatever ran this verb. Its output
    # goes to the error log, never to our stdout (the caller would wait on that pipe).
    setsid "$MF_SERVER" --defaults-file="$MF_CNF" --user=mysql >> "$MF_LOG" 2>&1 < /dev/null &
    local server_pid=$! i ready=0
    for (( i = 0; i < 240; i++ )); do   # 120 s at most
      if mf_ping; then ready=1; break; fi
      pid_alive "$server_pid" || break
      sleep 0.5
    done
    if (( ! ready )); then
      tail -n 30 "$MF_LOG" >&2 || true
      pid_alive "$server_pid" && kill -TERM "$server_pid"
      die "$MF_LABEL did not become ready (log: $MF_LOG)"
    fi
  fi

  mf_admin_sql "CREATE DATABASE IF NOT EXISTS sbtest;
CREATE USER IF NOT EXISTS 'bench'@'127.0.0.1' $MF_AUTH;
CREATE USER IF NOT EXISTS 'bench'@'localhost' $MF_AUTH;
ALTER USER 'bench'@'127.0.0.1' $MF_AUTH;
ALTER USER 'bench'@'localhost' $MF_AUTH;
GRANT ALL PRIVILEGES ON sbtest.* TO 'bench'@'127.0.0.1';
GRANT ALL PRIVILEGES ON sbtest.* TO 'bench'@'localhost';" \
    || die "creating user bench / database sbtest failed"
  mf_check
  log "ready: $MF_LABEL $(mf_version) pid $(mf_pid)"
}

mf_check() {
  local out
  out="$(mf_bench_sql 'SELECT 1' 2>&1)" \
    || die "$MF_LABEL on 127.0.0.1:$MF_PORT does not accept a query as bench: ${out//$'\n'/ }"
  [[ "$out" == 1 ]] || die "unexpected answer to SELECT 1 from 127.0.0.1:$MF_PORT: $out"
}

mf_stop() {
  require_root
  local pid
  mf_installed && pid="$(mf_pid)" || pid=""
  if [[ -z "$pid" ]]; then
    log "not running"
    return 0
  fi
  log "stopping $MF_LABEL (pid $pid)"
  timeout 60 "$MF_ADMIN" --no-defaults --socket="$MF_SOCKET" --user=root shutdown >&2 \
    || log "admin shutdown did not finish cleanly; waiting for the process"
  if ! wait_until 60 "$MF_LABEL pid $pid to exit" pid_gone "$pid"; then
    log "sending SIGTERM to $pid"
    kill -TERM "$pid" 2>/dev/null || true
    if ! wait_until 30 "pid $pid to exit after SIGTERM" pid_gone "$pid"; then
      log "sending SIGKILL to $pid"
      kill -KILL "$pid" 2>/dev/null || true
      wait_until 10 "pid $pid to exit after SIGKILL" pid_gone "$pid" || die "could not stop pid $pid"
    fi
  fi
}

# "mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for ..." / "mysqld  Ver 8.4.8 for Linux ..." -> X.Y.Z
mf_version() {
  local out
  out="$("$MF_SERVER" --no-defaults --version)"
  # No early-exiting reader in a pipe: with pipefail a SIGPIPE'd writer fails the verb.
  sed -n '1s/.* Ver \([0-9][0-9]*\.[0-9][0-9]*\.[0-9][0-9]*\).*/\1/p' <<< "$out"
}

mf_env() {
  cat <<ENV
DB_HOST=127.0.0.1
DB_PORT=$MF_PORT
DB_USER=bench
DB_PASSWORD=bench
DB_NAME=sbtest
DB_SOCKET=$MF_SOCKET
DB_CLI=$MF_CLIENT
ENV
}

mf_config() {
  if mf_running; then
    local in_list
    in_list="$(printf "'%s'," "${MF_CONFIG_VARS[@]}")"
    mf_admin_sql "SHOW GLOBAL VARIABLES WHERE Variable_name IN (${in_list%,})" | tr '\t' '='
  else
    log "server not running: printing the tuning start would apply"
    mf_cnf_text | sed -n 's/^\(innodb_[a-z_]*\|max_connections\|port\|bind-address\|[a-z_]*_password\) = \(.*\)$/\1=\2/p'
  fi
}
