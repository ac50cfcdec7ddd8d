# shellcheck shell=bash
# Toolchains the install verbs build with, found or installed in one place so that `main`, CI and the
# cloud box (Ubuntu 24.04) get the same: every install/build verb calls `need_<tool>` instead of
# looking for a compiler itself. Sourced after lib/common.sh (uses log, die, apt_install,
# is_debian_family). Each function exports what the build needs (PATH, JAVA_HOME) and prints nothing on
# stdout; when the toolchain cannot be had on this machine it dies with one line saying what is missing
# and how to get it.

SAMEBOX_OPT="${SAMEBOX_OPT:-/opt/samebox}"

# version_ge A B: true when dotted version A >= B.
version_ge() { [[ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" == "$2" ]]; }

# need_go [MIN]: a Go toolchain >= MIN (default 1.23) on PATH. Looks on PATH, /usr/local/go and our own
# $SAMEBOX_OPT/go-<ver>; when none is new enough (Debian 12's golang-go is 1.19), fetches Go
# $SAMEBOX_GO_VERSION (default 1.26.8) the way `go` itself fetches toolchains: the module
# golang.org/toolchain from the Go module proxy ($GOPROXY's first URL, default proxy.golang.org),
# unpacked into $SAMEBOX_OPT/go-<ver>. Go modules that ask for a newer Go then fetch it themselves
# (GOTOOLCHAIN=auto).
need_go() {
  local min="${1:-1.23}" have=""
  export PATH="$PATH:/usr/local/go/bin:$HOME/go/bin"
  if command -v go >/dev/null; then have="$(go env GOVERSION 2>/dev/null | sed 's/^go//')"; fi
  if [[ -z "$have" ]] || ! version_ge "$have" "$min"; then
    go_from_proxy
    have="$(go env GOVERSION 2>/dev/null | sed 's/^go//')"
  fi
  version_ge "$have" "$min" || die "Go $have is older than $min and no newer Go could be fetched: install Go >= $min into /usr/local/go"
}

go_from_proxy() {
  local ver="${SAMEBOX_GO_VERSION:-1.26.8}" arch proxy dest zip
  case "$(uname -m)" in x86_64) arch=amd64 ;; aarch64 | arm64) arch=arm64 ;; *) die "no Go toolchain for $(uname -m) from the module proxy (valid: x86_64, aarch64)" ;; esac
  dest="$SAMEBOX_OPT/go-$ver"
  if [[ ! -x "$dest/bin/go" ]]; then
    proxy="${GOPROXY:-https://proxy.golang.org}"
    proxy="${proxy%%[,|]*}"
    [[ "$proxy" == http* ]] || proxy=https://proxy.golang.org
    command -v curl >/dev/null || apt_install curl ca-certificates >/dev/null
    command -v python3 >/dev/null || apt_install python3 >/dev/null
    zip="$(mktemp "${TMPDIR:-/tmp}/go-toolchain.XXXXXX.zip")"
    log "fetching Go $ver ($arch) as module golang.org/toolchain from $proxy"
    curl -fsSL --retry 3 -o "$zip" "$proxy/golang.org/toolchain/@v/v0.0.1-go$ver.linux-$arch.zip" \
      || { rm -f "$zip"; die "could not fetch Go $ver from $proxy (set SAMEBOX_GO_VERSION or install Go >= 1.23 into /usr/local/go)"; }
    rm -rf "$dest.tmp" && mkdir -p "$dest.tmp"
    python3 -m zipfile -e "$zip" "$dest.tmp" && rm -f "$zip"
    # module zips hold golang.org/toolchain@v0.0.1-go<ver>.linux-<arch>/...; zip drops the exec bits
    mv "$dest.tmp"/golang.org/toolchain@*/ "$dest" && rm -rf "$dest.tmp"
    chmod +x "$dest"/bin/* "$dest"/pkg/tool/*/*
  fi
  export PATH="$dest/bin:$PATH"
  "$dest/bin/go" version >/dev/null || die "$dest/bin/go does not run"
}

# need_cargo [MIN]: cargo/rustc >= MIN (default 1.85, edition 2024). Debian's cargo is older; the cloud
# box (internet) may use rustup; here ~/.cargo/bin has a current toolchain.
need_cargo() {
  local min="${1:-1.85}" have=""
  export PATH="$PATH:$HOME/.cargo/bin"
  if ! command -v cargo >/dev/null && [[ -n "${SAMEBOX_ALLOW_RUSTUP:-}" ]] && command -v curl >/dev/null; then
    log "installing Rust with rustup (SAMEBOX_ALLOW_RUSTUP is set)"
    curl -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal >&2 || die "rustup install failed"
  fi
  command -v cargo >/dev/null || die "no Rust toolchain: install Rust >= $min (rustup, or set SAMEBOX_ALLOW_RUSTUP=1 on a machine with internet)"
  have="$(rustc --version | awk '{print $2}')"
  version_ge "$have" "$min" || die "rustc $have is older than $min: update the toolchain (rustup update)"
}

# need_jdk [MAJOR]: JAVA_HOME of a JDK with exactly this major (default 25) — one JDK for every JVM
# server. Looks under /usr/lib/jvm, then installs openjdk-<major>-jdk-headless from apt.
need_jdk() {
  local major="${1:-25}" d v
  for d in /usr/lib/jvm/*; do
    [[ -x "$d/bin/javac" ]] || continue
    v="$("$d/bin/java" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ {print $2}')"
    if [[ "$v" == "$major" ]]; then export JAVA_HOME="$d"; export PATH="$JAVA_HOME/bin:$PATH"; return 0; fi
  done
  if is_debian_family; then apt_install "openjdk-$major-jdk-headless" >/dev/null 2>&1 || true; fi
  for d in /usr/lib/jvm/*"$major"*; do
    [[ -x "$d/bin/javac" ]] && { export JAVA_HOME="$d"; export PATH="$JAVA_HOME/bin:$PATH"; return 0; }
  done
  die "no JDK $major under /usr/lib/jvm: install one (Ubuntu: apt-get install openjdk-$major-jdk-headless; or Temurin $major)"
}

# need_maven: mvn on PATH (apt maven), batch mode and Maven Central only.
need_maven() {
  command -v mvn >/dev/null || { is_debian_family && apt_install maven >/dev/null; }
  command -v mvn >/dev/null || die "no Maven: apt-get install maven"
  export MAVEN_OPTS="${MAVEN_OPTS:-} -Dstyle.color=never"
}

# need_node24: the repository's Node 24 (npm devDependency node@24) as NODE24.
need_node24() {
  local root; root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
  NODE24="$root/node_modules/.bin/node"
  [[ -x "$NODE24" ]] || die "Node 24 is missing: run 'bash pipeline/bin/setup node' (installs the node@24 devDependency)"
  export NODE24
}

# need_python_venv: python3 with the venv module.
need_python_venv() {
  command -v python3 >/dev/null || apt_install python3
  python3 -c 'import venv, ensurepip' 2>/dev/null || apt_install python3-venv
  python3 -c 'import venv, ensurepip' 2>/dev/null || die "python3 has no working venv module: apt-get install python3-venv"
}
