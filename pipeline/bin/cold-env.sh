# shellcheck shell=bash
# Sourced by `pipeline/bin/test --cold` (and `main --cold`): points everything an earlier run leaves
# outside the clone at empty folders under one root, so the command runs as on a machine where samebox
# never ran. What is emptied: HOME (the Go module and build caches, Cargo's registry, ~/.m2, the npm and
# pip caches, ~/.cache/samebox-tools), SAMEBOX_OPT (the built systems, MCP servers, Go tools; default
# /opt/samebox) and SAMEBOX_STATE (data dirs, pid files; default /var/lib/samebox). What is kept, as a
# new machine has it: packages from the distribution, the toolchains installed before the session (Go
# in /usr/local/go, rustup's toolchains, pyenv's Pythons, the JDKs) and the machine's own settings in
# HOME (.npmrc, .gitconfig, go env), copied into the new HOME. SAMEBOX_COLD_ROOT names the root
# (default a new folder under TMPDIR); it must be empty or absent, so a cold run never starts warm.

cold_env_setup() {
  local old_home="$HOME" root="${SAMEBOX_COLD_ROOT:-}" f
  if [[ -z "$root" ]]; then
    root="$(mktemp -d "${TMPDIR:-/tmp}/samebox-cold.XXXXXX")"
  elif [[ -e "$root" && -n "$(ls -A "$root" 2>/dev/null)" ]]; then
    echo "cold: SAMEBOX_COLD_ROOT=$root is not empty (a cold run starts from empty folders: give a new path)" >&2
    return 2
  fi
  [[ ! -e node_modules ]] || echo "cold: note: this checkout already has node_modules/ (a fresh clone has none; clone first for a cold run of the clone's own installs)" >&2
  mkdir -p "$root/home/.config" "$root/opt" "$root/state" && chmod 0755 "$root" "$root/home" || return 1
  # 0755: server users (postgres, mskql) traverse down to their data dirs and binaries here
  for f in .npmrc .gitconfig .config/go; do
    [[ -e "$old_home/$f" ]] && cp -a "$old_home/$f" "$root/home/$f"
  done
  # Toolchains stay where the machine has them; only their caches move into the new HOME.
  [[ -d "$old_home/.rustup" ]] && export RUSTUP_HOME="${RUSTUP_HOME:-$old_home/.rustup}"
  [[ -d "$old_home/.pyenv" ]] && export PYENV_ROOT="${PYENV_ROOT:-$old_home/.pyenv}"
  [[ -d "$old_home/.cargo/bin" ]] && export PATH="$PATH:$old_home/.cargo/bin"
  export HOME="$root/home" CARGO_HOME="$root/home/.cargo" SAMEBOX_OPT="$root/opt" SAMEBOX_STATE="$root/state"
  unset GOPATH GOMODCACHE GOCACHE XDG_CACHE_HOME npm_config_cache SAMEBOX_TOOLS_DIR
  export SAMEBOX_COLD_ROOT="$root"
  echo "cold: HOME=$HOME SAMEBOX_OPT=$SAMEBOX_OPT SAMEBOX_STATE=$SAMEBOX_STATE (empty; remove $root when done)" >&2
}
