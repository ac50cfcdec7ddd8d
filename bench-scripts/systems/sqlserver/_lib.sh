# shellcheck shell=bash disable=SC2034  # variables here are used by the verbs that source this
# Microsoft SQL Server 2022 definitions shared by the verbs in this folder (sourced, not a verb).
# Cloud box (Ubuntu 24.04, x86_64) only: Microsoft's apt packages, the product's own systemd
# unit (sqlservr runs as OS user mssql), configured with mssql-conf. Every verb but stop and
# pids exits 3 with one line anywhere else.
#
# Where the data lives: the instance root stays the product's /var/opt/mssql (mssql.conf, the
# system databases master/model/msdb/tempdb: sqlservr has no "other instance root" option and
# moving master needs copying its files). User databases (sbtest, the studies' mcpdb_*) go under
# $SAMEBOX_STATE/sqlserver through filelocation.defaultdatadir/defaultlogdir.

# shellcheck source=../../lib/system.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../lib/system.sh"
system_self_init

MSSQL_HOME=/opt/mssql
MSSQL_CONF_BIN="$MSSQL_HOME/bin/mssql-conf"
MSSQL_SERVER_BIN="$MSSQL_HOME/bin/sqlservr"
MSSQL_VAR=/var/opt/mssql
MSSQL_CONF_FILE="$MSSQL_VAR/mssql.conf"
MSSQL_UNIT=mssql-server
MSSQL_TOOLS_BIN=/opt/mssql-tools18/bin
MSSQL_SQLCMD="$MSSQL_TOOLS_BIN/sqlcmd"
MSSQL_BCP="$MSSQL_TOOLS_BIN/bcp"
# The sa password lives with the instance (not under $SAMEBOX_STATE, which tests point
# elsewhere): install writes it, start reads it. root-only.
MSSQL_SA_PASSWORD_FILE="$MSSQL_VAR/samebox-sa-password"
MSSQL_STATE="$SELF_STATE"
MSSQL_DATA_DIR="$MSSQL_STATE/data"
MSSQL_LOG_DIR="$MSSQL_STATE/log"
MSSQL_PORT="$(system_self_port SAMEBOX_MSSQL_PORT sqlserver 14339)"
# SQL Server's password policy rejects the contract's bench/bench (8+ characters from three of
# upper, lower, digit, symbol; not containing the login name). Letters and digits only, so it
# goes into DSNs and command lines without escaping.
MSSQL_BENCH_PASSWORD="${SAMEBOX_MSSQL_BENCH_PASSWORD:-Sbx2022LoadPw}"
# SQL Server on Linux refuses to start with less than 2 GB.
MSSQL_MIN_MEMORY_MB=2048

# Microsoft's repositories. SQL Server 2022 has no Ubuntu 24.04 repository (2025 is the first
# release built for it); Microsoft's 22.04 (jammy) repository is what runs on 24.04, with one
# library from Ubuntu 22.04 (see MSSQL_JAMMY_LIBS). mssql-tools18 has a native 24.04 repository.
MSSQL_SERVER_REPO="https://packages.microsoft.com/ubuntu/22.04/mssql-server-2022 jammy main"
MSSQL_TOOLS_REPO="https://packages.microsoft.com/ubuntu/24.04/prod noble main"
# Repositories created before May 2025 are signed with the legacy key, newer ones with the
# 2025 key: apt gets both (signed-by takes a list; .asc keyrings are read as they are).
MSSQL_KEY_URLS=(https://packages.microsoft.com/keys/microsoft.asc https://packages.microsoft.com/keys/microsoft-2025.asc)
MSSQL_KEY_FILES=(/etc/apt/keyrings/samebox-microsoft.asc /etc/apt/keyrings/samebox-microsoft-2025.asc)
MSSQL_SOURCES_FILE=/etc/apt/sources.list.d/samebox-mssql.list
# mssql-server 2022 (built for jammy) links OpenLDAP 2.5 (libldap-2.5-0); noble ships 2.6 under
# another soname. Ubuntu 22.04's updates/security pockets are added, pinned so that apt takes
# nothing else from them (and keeps that library patched).
MSSQL_JAMMY_LIBS=(libldap-2.5-0)
MSSQL_JAMMY_SOURCES_FILE=/etc/apt/sources.list.d/samebox-jammy-libldap.list
MSSQL_JAMMY_PIN_FILE=/etc/apt/preferences.d/samebox-jammy-libldap

mssql_os_supported() {
  detect_os
  [[ "$OS_ID" == ubuntu && "$OS_VERSION_ID" == 24.04 && "$(uname -m)" == x86_64 ]]
}

mssql_installed() {
  [[ -x "$MSSQL_SERVER_BIN" && -x "$MSSQL_CONF_BIN" && -x "$MSSQL_SQLCMD" && -x "$MSSQL_BCP" ]]
}

# Verbs other than install/stop/pids exit 3 when SQL Server cannot be here or is not installed.
mssql_require_installed() {
  if ! mssql_os_supported; then
    not_available "sqlserver: SQL Server 2022 installs from Microsoft's apt repository on Ubuntu 24.04 x86_64 only, the cloud box (this is $OS_ID $OS_VERSION_ID $(uname -m))"
  fi
  mssql_installed || not_available "sqlserver: SQL Server 2022 is not installed ($MSSQL_SERVER_BIN or $MSSQL_SQLCMD missing): run systems/sqlserver/install (Ubuntu 24.04)"
  [[ -d /run/systemd/system ]] || not_available "sqlserver: SQL Server runs under its systemd unit $MSSQL_UNIT and systemd is not running here (Ubuntu 24.04 without systemd, e.g. a container)"
}

mssql_running() { systemctl is-active --quiet "$MSSQL_UNIT" 2>/dev/null; }

# The unit's main process (sqlservr's watchdog; the engine is its child). Nothing when stopped.
mssql_pid() {
  local pid
  pid="$(systemctl show -p MainPID --value "$MSSQL_UNIT" 2>/dev/null || true)"
  [[ "$pid" =~ ^[0-9]+$ && "$pid" != 0 ]] && pid_alive "$pid" && printf '%s\n' "$pid"
  return 0
}

mssql_sa_password() {
  [[ -r "$MSSQL_SA_PASSWORD_FILE" ]] || die "$MSSQL_SA_PASSWORD_FILE is missing: rerun systems/sqlserver/install, or set one with '$MSSQL_CONF_BIN set-sa-password' and write it there (mode 0600)"
  cat "$MSSQL_SA_PASSWORD_FILE"
}

# sqlcmd over loopback TCP. -C trusts the server's self-signed certificate (tools18 encrypt by
# default), -b makes an SQL error exit non-zero, -l bounds the login wait.
mssql_sa_sqlcmd() {
  SQLCMDPASSWORD="$(mssql_sa_password)" "$MSSQL_SQLCMD" -C -S "127.0.0.1,$MSSQL_PORT" -U sa -l 10 -b -h -1 -W "$@"
}
mssql_bench_sqlcmd() {
  SQLCMDPASSWORD="$MSSQL_BENCH_PASSWORD" "$MSSQL_SQLCMD" -C -S "127.0.0.1,$MSSQL_PORT" -U bench -d sbtest -l 10 -b -h -1 -W "$@"
}

# Tuning scaled like the others (bench-scripts/README.md): memory.memorylimitmb = the buffer
# fraction of RAM. On SQL Server it caps the whole process (SQLPAL), which is what the buffer
# pool lives in; never below the 2 GB the server needs to start.
mssql_memory_limit_mb() {
  local mb
  mb="$(mem_fraction_mib "$(buffer_fraction)")"
  (( mb < MSSQL_MIN_MEMORY_MB )) && mb=$MSSQL_MIN_MEMORY_MB
  printf '%s\n' "$mb"
}

# mssql.conf settings start applies, as "section.key value" lines (mssql-conf's names).
mssql_tuning() {
  cat <<CONF
network.ipaddress 127.0.0.1
network.tcpport $MSSQL_PORT
memory.memorylimitmb $(mssql_memory_limit_mb)
filelocation.defaultdatadir $MSSQL_DATA_DIR
filelocation.defaultlogdir $MSSQL_LOG_DIR
CONF
}

# mssql_conf_get SECTION.KEY: the value in mssql.conf, nothing when unset.
mssql_conf_get() {
  [[ -r "$MSSQL_CONF_FILE" ]] || return 0
  python3 - "$MSSQL_CONF_FILE" "$1" <<'PY'
import configparser, sys
cp = configparser.ConfigParser()
cp.read(sys.argv[1])
section, _, key = sys.argv[2].partition(".")
print(cp.get(section, key, fallback=""))
PY
}

mssql_apply_tuning() {
  local name value
  while read -r name value; do
    if [[ "$(mssql_conf_get "$name")" != "$value" ]]; then
      log "mssql-conf set $name $value"
      "$MSSQL_CONF_BIN" set "$name" "$value" >&2 || die "mssql-conf set $name $value failed"
    fi
  done < <(mssql_tuning)
}
