# shellcheck shell=bash disable=SC2034  # variables here are used by the verbs that source this
# MariaDB definitions (sourced, not a verb): the distro's 10.11 on Debian 12 / Ubuntu 24.04,
# run from our own datadir; the shared logic is in lib/mysql-family.sh.
# shellcheck source=../../lib/mysql-family.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../lib/mysql-family.sh"

system_self_init
MF_NAME="$SELF_NAME"
MF_LABEL=MariaDB
MF_PORT="$(system_self_port SAMEBOX_MARIADB_PORT mariadb 33069)"
MF_SERVER=/usr/sbin/mariadbd
MF_CLIENT=/usr/bin/mariadb
MF_ADMIN=/usr/bin/mariadb-admin
MF_INSTALL_DB=/usr/bin/mariadb-install-db
MF_AUTH="IDENTIFIED BY 'bench'"
# MariaDB >= 10.5 has a single redo log file: this is the seed's innodb_log_file_size.
MF_REDO_CNF="innodb_log_file_size = 256M"
MF_EXTRA_CNF=""
MF_CONFIG_VARS=(innodb_buffer_pool_size innodb_log_file_size max_connections
  innodb_flush_log_at_trx_commit innodb_flush_method innodb_doublewrite log_bin sync_binlog
  performance_schema bind_address port)
mf_paths

mf_installed() { [[ -x "$MF_SERVER" && -x "$MF_CLIENT" && -x "$MF_ADMIN" && -x "$MF_INSTALL_DB" ]]; }

mf_require_installed() {
  is_debian_family || not_available "mariadb: only Debian/Ubuntu are supported (this is $OS_ID $OS_VERSION_ID)"
  mf_installed || not_available "mariadb is not installed ($MF_SERVER missing): run systems/mariadb/install"
}

mf_initialize_datadir() {
  # root@localhost gets unix_socket auth: only OS root on our socket is admin.
  "$MF_INSTALL_DB" --defaults-file="$MF_CNF" --user=mysql --skip-test-db \
    --auth-root-authentication-method=socket >> "$MF_LOG" 2>&1
}
