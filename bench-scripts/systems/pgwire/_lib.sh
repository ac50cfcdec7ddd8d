# shellcheck shell=bash disable=SC2034  # variables here are used by the verbs that source this
# pgwire (sourced, not a verb): a PostgreSQL-wire server given by PGWIRE_DSN, reached with psql.
# shellcheck source=../../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../lib/common.sh"

pgwire_require_dsn() {
  [[ -n "${PGWIRE_DSN:-}" ]] || not_available "pgwire: set PGWIRE_DSN=postgresql://user:password@127.0.0.1:port/db to benchmark a PostgreSQL-wire server"
  [[ "$PGWIRE_DSN" =~ ^postgres(ql)?://([^@/]*@)?(127\.[0-9]+\.[0-9]+\.[0-9]+|localhost|\[::1\])(:[0-9]+)?(/|$) ]] \
    || die "pgwire: PGWIRE_DSN must point at a loopback address (127.x.x.x, localhost or [::1]); got '$(pgwire_dsn_redacted)'"
  command -v psql >/dev/null || not_available "pgwire: psql is not installed: run systems/pgwire/install"
}

pgwire_psql() { PGCONNECT_TIMEOUT=5 psql "$PGWIRE_DSN" -X -q -tA -v ON_ERROR_STOP=1 "$@"; }

# The DSN without its password, for manifests and logs.
pgwire_dsn_redacted() { sed -E 's#(://[^:/@]*):[^@]*@#\1:***@#' <<<"$PGWIRE_DSN"; }
