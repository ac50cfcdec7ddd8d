# shellcheck shell=bash disable=SC2034  # variables here are used by the verbs that source this
# Oracle MySQL 8.4 LTS definitions (sourced, not a verb). Installed from Oracle's generic
# glibc 2.28 tarball into /opt/mysql-<version> so it never conflicts with MariaDB's
# packages; the server logic is shared with MariaDB in lib/mysql-family.sh.
# shellcheck source=../../lib/mysql-family.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../lib/mysql-family.sh"

# Pinned release (the seed measured 8.4.8). Oracle publishes only an MD5 per file on its
# download page; MYSQL_TARBALL_MD5 is that value. It was taken from a public copy of that
# page, not checked against a download from here (this sandbox cannot reach Oracle):
# confirm it on https://dev.mysql.com/downloads/mysql/ before the first cloud run. Either
# value can be overridden for another release.
MYSQL_VERSION="${SAMEBOX_MYSQL_VERSION:-8.4.8}"
MYSQL_TARBALL="mysql-${MYSQL_VERSION}-linux-glibc2.28-x86_64.tar.xz"
MYSQL_TARBALL_MD5="${SAMEBOX_MYSQL_TARBALL_MD5:-2183f24aeaef90d93905dcbd9215176c}"
MYSQL_TARBALL_URLS=(
  "https://cdn.mysql.com/Downloads/MySQL-8.4/$MYSQL_TARBALL"
  "https://cdn.mysql.com/archives/mysql-8.4/$MYSQL_TARBALL"
)
MYSQL_BASEDIR="/opt/mysql-$MYSQL_VERSION"
MYSQL_CACHE="$SAMEBOX_OPT/cache"

system_self_init
MF_NAME="$SELF_NAME"
MF_LABEL=MySQL
MF_PORT="$(system_self_port SAMEBOX_MYSQL_PORT mysql 33079)"
MF_SERVER="$MYSQL_BASEDIR/bin/mysqld"
MF_CLIENT="$MYSQL_BASEDIR/bin/mysql"
MF_ADMIN="$MYSQL_BASEDIR/bin/mysqladmin"
# caching_sha2_password (8.4's default) needs TLS or RSA key exchange on TCP; MariaDB's
# bench uses a plain password without TLS, so bench here uses mysql_native_password
# (disabled by default in 8.4, enabled in the cnf below) to keep the client path equal.
MF_AUTH="IDENTIFIED WITH mysql_native_password BY 'bench'"
# 8.4 sizes redo by total capacity; 256M matches MariaDB's single 256M log file.
MF_REDO_CNF="innodb_redo_log_capacity = 256M"
MF_EXTRA_CNF="basedir = $MYSQL_BASEDIR
mysql_native_password = ON
# The X plugin would listen on 33060 on all interfaces: off (servers bind 127.0.0.1 only).
mysqlx = OFF"
MF_CONFIG_VARS=(innodb_buffer_pool_size innodb_redo_log_capacity max_connections
  innodb_flush_log_at_trx_commit innodb_flush_method innodb_doublewrite log_bin sync_binlog
  performance_schema bind_address port)
mf_paths

mysql_os_supported() {
  detect_os
  [[ "$OS_ID" == ubuntu && "$OS_VERSION_ID" == 24.04 ]]
}

mf_installed() { [[ -x "$MF_SERVER" && -x "$MF_CLIENT" && -x "$MF_ADMIN" ]]; }

mf_require_installed() {
  if mf_installed; then return 0; fi
  if mysql_os_supported; then
    not_available "mysql $MYSQL_VERSION is not installed ($MF_SERVER missing): run systems/mysql/install"
  fi
  not_available "mysql $MYSQL_VERSION is not installed: it installs from Oracle's tarball on Ubuntu 24.04 only (this is $OS_ID $OS_VERSION_ID)"
}

mf_initialize_datadir() {
  # root@localhost with an empty password, reachable only through our socket.
  "$MF_SERVER" --defaults-file="$MF_CNF" --initialize-insecure --user=mysql >> "$MF_LOG" 2>&1
}
