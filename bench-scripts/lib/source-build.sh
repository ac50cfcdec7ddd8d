# shellcheck shell=bash
# Building a system from its public source at a pinned commit (sourced, not a verb). Used by
# systems/mskql (the engine) and systems/postgresql (the pgvector extension).
#
#   source_checkout NAME SRC DEFAULT_URL COMMIT DIR   a work tree of SRC at COMMIT in DIR
#   source_stamp_current STAMP COMMIT FLAGS           0 when STAMP records this commit and flags
#   source_write_stamp STAMP NAME SRC COMMIT FLAGS SECONDS   the build record (JSON)
#
# SRC is what the user gave (SAMEBOX_<NAME>_SRC: a git URL or a local clone); empty means the
# upstream DEFAULT_URL. An explicit source that is missing, not git or without the pinned commit is
# an error (exit 1, one line); an unreachable default is "not available" (exit 3) with how to
# provide a source, so a machine without network access skips the cells instead of failing them.

SOURCE_GIT_TIMEOUT_S="${SOURCE_GIT_TIMEOUT_S:-120}"

# source_is_url SRC: a git URL (https://, http://, git://, ssh://, file:// or user@host:path).
source_is_url() { [[ "$1" =~ ^(https?|git|ssh|file)://.+ || "$1" =~ ^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:.+ ]]; }

# source_validate NAME VAR SRC DEFAULT_URL: dies (or exits 3 for the default) on an unusable source.
source_validate() {
  local name="$1" var="$2" src="$3" default_url="$4"
  if [[ -z "$src" ]]; then
    timeout "$SOURCE_GIT_TIMEOUT_S" git ls-remote --exit-code "$default_url" HEAD >/dev/null 2>&1 \
      || not_available "$name: no source: $default_url is not reachable from here; set $var to a local clone or a git URL of it"
    return 0
  fi
  if source_is_url "$src"; then return 0; fi
  [[ -e "$src" ]] || die "$name: $var=$src does not exist (valid: a local git clone of $default_url or a git URL)"
  git -C "$src" rev-parse --git-dir >/dev/null 2>&1 \
    || die "$name: $var=$src is not a git clone (valid: a local git clone of $default_url or a git URL)"
}

# source_checkout NAME VAR SRC DEFAULT_URL COMMIT DIR: DIR holds SRC's tree at exactly COMMIT.
source_checkout() {
  local name="$1" var="$2" src="$3" default_url="$4" commit="$5" dir="$6" from
  source_validate "$name" "$var" "$src" "$default_url"
  from="${src:-$default_url}"
  [[ -d "$from" ]] && from="$(cd "$from" && pwd)"
  if [[ ! -d "$dir/.git" ]]; then
    rm -rf "$dir"; mkdir -p "$(dirname "$dir")"
    timeout "$SOURCE_GIT_TIMEOUT_S" git clone -q --no-checkout "$from" "$dir" >&2 \
      || die "$name: git clone of $from failed"
  fi
  git -C "$dir" remote set-url origin "$from"
  if ! git -C "$dir" cat-file -e "$commit^{commit}" 2>/dev/null; then
    timeout "$SOURCE_GIT_TIMEOUT_S" git -C "$dir" fetch -q origin >&2 || die "$name: git fetch from $from failed"
  fi
  git -C "$dir" cat-file -e "$commit^{commit}" 2>/dev/null \
    || die "$name: the source $from does not contain the pinned commit $commit (update the clone: git -C <clone> fetch)"
  git -C "$dir" -c advice.detachedHead=false checkout -q --force "$commit" >&2
  git -C "$dir" clean -qfdx >&2
  [[ "$(git -C "$dir" rev-parse HEAD)" == "$commit" ]] || die "$name: checkout of $commit in $dir failed"
}

# source_stamp_current STAMP COMMIT FLAGS: the build STAMP records is this commit with these flags.
source_stamp_current() {
  [[ -f "$1" ]] || return 1
  python3 - "$@" <<'PY'
import json, sys
stamp, commit, flags = sys.argv[1:4]
d = json.load(open(stamp))
sys.exit(0 if d.get("commit") == commit and d.get("flags") == flags else 1)
PY
}

# source_write_stamp STAMP NAME SRC COMMIT FLAGS SECONDS: what was built, from where, how.
source_write_stamp() {
  local cc_version
  cc_version="$(${CC:-cc} --version 2>/dev/null | head -n 1)"
  python3 - "$@" "$cc_version" <<'PY'
import json, sys, re
stamp, name, src, commit, flags, seconds, cc = sys.argv[1:8]
src = re.sub(r"(://[^:/@]*):[^@]*@", r"\1:***@", src)
json.dump({"name": name, "source": src, "commit": commit, "compiler": cc, "flags": flags,
           "build_seconds": float(seconds)}, open(stamp, "w"), indent=1)
PY
}

# source_stamp_get STAMP KEY: one field of the build record (empty when there is none).
source_stamp_get() {
  [[ -f "$1" ]] || return 0
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get(sys.argv[2], ""))' "$1" "$2"
}
