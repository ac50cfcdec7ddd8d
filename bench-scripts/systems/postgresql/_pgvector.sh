# shellcheck shell=bash
# pgvector for our PostgreSQL (sourced by install, not a verb). The distribution's package where
# there is one (PGDG on the cloud box: postgresql-<major>-pgvector); otherwise built from source
# (SAMEBOX_PGVECTOR_SRC: a git URL or a local clone; default upstream) at the pinned release with
# PGXS against postgresql-server-dev-<major>, recorded in $PGVECTOR_HOME/build.json. pgvector is
# optional for PostgreSQL: without a source the vec_* cells are skipped (run checks
# pg_available_extensions), so failures here warn and never fail the PostgreSQL install.

# shellcheck source=../../lib/source-build.sh
. "$BENCH_SCRIPTS_DIR/lib/source-build.sh"

PGVECTOR_UPSTREAM="https://github.com/pgvector/pgvector"
PGVECTOR_TAG="v0.8.6"
PGVECTOR_COMMIT="8ee86c96f0fd72390f890aa8a336fda6d3ab4c6c"
PGVECTOR_HOME="${SAMEBOX_PGVECTOR_HOME:-$SAMEBOX_OPT/pgvector-pg$PG_MAJOR}"
PGVECTOR_STAMP="$PGVECTOR_HOME/build.json"

pgvector_present() { [[ -f "/usr/share/postgresql/$PG_MAJOR/extension/vector.control" && -f "/usr/lib/postgresql/$PG_MAJOR/lib/vector.so" ]]; }

pgvector_apt_candidate() {
  local cand
  cand="$(apt-cache policy "postgresql-$PG_MAJOR-pgvector" 2>/dev/null | awk '/Candidate:/ { print $2 }')"
  [[ -n "$cand" && "$cand" != "(none)" ]]
}

# pgvector_build: clone/checkout the pinned commit and make && make install with PGXS.
pgvector_build() {
  local pg_config="$PG_BIN/pg_config" flags started seconds
  apt_install build-essential git "postgresql-server-dev-$PG_MAJOR"
  [[ -x "$pg_config" ]] || pg_config="/usr/lib/postgresql/$PG_MAJOR/bin/pg_config"
  [[ -x "$pg_config" ]] || die "pgvector: pg_config for PostgreSQL $PG_MAJOR not found (postgresql-server-dev-$PG_MAJOR)"
  source_checkout pgvector SAMEBOX_PGVECTOR_SRC "${SAMEBOX_PGVECTOR_SRC:-}" "$PGVECTOR_UPSTREAM" "$PGVECTOR_COMMIT" "$PGVECTOR_HOME/src"
  # shellcheck disable=SC2016  # $(...) here is make's, expanded by make --eval
  flags="PG_CONFIG=$pg_config; CC=$("$pg_config" --cc) $("$pg_config" --cflags) $(make -s -C "$PGVECTOR_HOME/src" --no-print-directory PG_CONFIG="$pg_config" --eval='samebox-print-flags: ; @echo $(PG_CFLAGS)' samebox-print-flags)"
  if pgvector_present && source_stamp_current "$PGVECTOR_STAMP" "$PGVECTOR_COMMIT" "$flags"; then
    log "already built: pgvector $PGVECTOR_TAG ($PGVECTOR_COMMIT) for PostgreSQL $PG_MAJOR; no rebuild"
    return 0
  fi
  log "building pgvector $PGVECTOR_TAG ($PGVECTOR_COMMIT) for PostgreSQL $PG_MAJOR"
  started="$(date +%s.%N)"
  make -C "$PGVECTOR_HOME/src" -j"$(nproc)" PG_CONFIG="$pg_config" >&2 || die "pgvector: make failed (tree: $PGVECTOR_HOME/src)"
  make -C "$PGVECTOR_HOME/src" PG_CONFIG="$pg_config" install >&2 || die "pgvector: make install failed"
  seconds="$(awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')"
  CC="$("$pg_config" --cc)" source_write_stamp "$PGVECTOR_STAMP" pgvector "${SAMEBOX_PGVECTOR_SRC:-$PGVECTOR_UPSTREAM}" "$PGVECTOR_COMMIT" "$flags" "$seconds"
  log "installed: pgvector $PGVECTOR_TAG for PostgreSQL $PG_MAJOR (built in ${seconds}s)"
}

# pgvector_install: the package, else the source build; a build that cannot proceed only warns.
pgvector_install() {
  if pgvector_apt_candidate; then
    apt_install "postgresql-$PG_MAJOR-pgvector"
    return 0
  fi
  local rc=0
  ( pgvector_build ) || rc=$?
  if (( rc == EXIT_NOT_AVAILABLE )); then
    log "warning: pgvector not installed (no postgresql-$PG_MAJOR-pgvector package, no source): the vec_* workloads are skipped on PostgreSQL; set SAMEBOX_PGVECTOR_SRC to a clone of $PGVECTOR_UPSTREAM"
  elif (( rc != 0 )); then
    die "pgvector: the build from ${SAMEBOX_PGVECTOR_SRC:-$PGVECTOR_UPSTREAM} failed (see above)"
  fi
}

# pgvector_version: "0.8.6 (package)" / "0.8.6 (source 8ee86c96f0fd)" / nothing when absent.
pgvector_version() {
  pgvector_present || return 0
  local v
  v="$(sed -n "s/^default_version *= *'\([^']*\)'.*/\1/p" "/usr/share/postgresql/$PG_MAJOR/extension/vector.control")"
  if [[ -f "$PGVECTOR_STAMP" ]]; then
    printf '%s (source %s)\n' "$v" "$(source_stamp_get "$PGVECTOR_STAMP" commit | cut -c1-12)"
  else
    printf '%s (package)\n' "$v"
  fi
}
