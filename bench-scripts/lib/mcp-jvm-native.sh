# shellcheck shell=bash disable=SC2034  # variables here are used by the verbs that source this
# Shared by the GraalVM native MCP servers (mcp-java-native, mcp-java-vt-native,
# mcp-java-webflux-native, mcp-quarkus-native, mcp-micronaut-native): the same sources as their JVM
# twins (lib/mcp-jvm), compiled by GraalVM CE 25 native-image with `mvn -Pnative package`.
# GraalVM is downloaded only on the cloud box (Ubuntu 24.04, internet); on any other machine without
# native-image every verb that needs the binary exits 3 with the reason.
#
# A system's _lib.sh sets, before sourcing this (after lib/mcp-server.sh):
#   NATIVE_BUILD_IMPL whose build output it runs (java-vt-native runs java-native's binary)
# then calls native_framework FRAMEWORK (the JVM twin's word for jvm_framework), which sets the module,
# NATIVE_BINARY (the executable the build leaves, relative to the build dir), NATIVE_APP_ARGS,
# NATIVE_VERSION and NATIVE_CONFIG as the twin's.

NATIVE_GRAALVM_VERSION="${SAMEBOX_GRAALVM_VERSION:-25.0.1}"
NATIVE_GRAALVM_HOME="${GRAALVM_HOME:-$SAMEBOX_OPT/graalvm-ce-$NATIVE_GRAALVM_VERSION}"
NATIVE_UNAVAILABLE="GraalVM native-image is not available on this machine; the cloud box builds it"
JVM_BUILD_IMPL="$NATIVE_BUILD_IMPL"
# shellcheck source=./mcp-jvm.sh
. "$(dirname "${BASH_SOURCE[0]}")/mcp-jvm.sh"

# native_framework FRAMEWORK: the JVM twin's module, arguments, version and config (jvm_framework).
native_framework() {
  jvm_framework "$1"
  NATIVE_APP_ARGS=("${JVM_APP_ARGS[@]}")
  NATIVE_VERSION="$JVM_VERSION"
  NATIVE_CONFIG=("${JVM_CONFIG[@]}")
}

native_image_ok() { [[ -x "$NATIVE_GRAALVM_HOME/bin/native-image" ]]; }

# native_is_cloud_box: Ubuntu 24.04, where install may download GraalVM (the cloud box has internet).
native_is_cloud_box() {
  detect_os
  [[ "$OS_ID" == ubuntu && "$OS_VERSION_ID" == 24.04 ]]
}

# native_need_graalvm: GraalVM CE under $NATIVE_GRAALVM_HOME, downloaded on the cloud box; exit 3 elsewhere.
native_need_graalvm() {
  native_image_ok && return 0
  native_is_cloud_box || not_available "$NATIVE_UNAVAILABLE"
  local arch url tmp
  case "$(uname -m)" in
    x86_64) arch=x64 ;; aarch64) arch=aarch64 ;;
    *) not_available "GraalVM CE has no build for $(uname -m); the native servers need x86_64 or aarch64" ;;
  esac
  url="https://github.com/graalvm/graalvm-ce-builds/releases/download/jdk-$NATIVE_GRAALVM_VERSION/graalvm-community-jdk-${NATIVE_GRAALVM_VERSION}_linux-${arch}_bin.tar.gz"
  log "downloading GraalVM CE $NATIVE_GRAALVM_VERSION: $url"
  apt_install build-essential zlib1g-dev curl >/dev/null
  tmp="$(mktemp -d)"
  curl -fsSL --retry 3 -o "$tmp/graalvm.tar.gz" "$url" || { rm -rf "$tmp"; die "downloading GraalVM CE from $url failed"; }
  mkdir -p "$NATIVE_GRAALVM_HOME"
  tar -xzf "$tmp/graalvm.tar.gz" -C "$NATIVE_GRAALVM_HOME" --strip-components=1
  rm -rf "$tmp"
  native_image_ok || die "GraalVM CE unpacked into $NATIVE_GRAALVM_HOME has no bin/native-image"
}

native_install() {
  local want started
  want="$(jvm_sources_hash)-graalvm-$NATIVE_GRAALVM_VERSION"
  if [[ -x "$JVM_OUT/$NATIVE_BINARY" && -f "$JVM_OPT/.src-hash" && "$(cat "$JVM_OPT/.src-hash")" == "$want" ]]; then
    log "$MCP_SYSTEM_NAME: native build is current ($JVM_OUT/$NATIVE_BINARY)"
    return 0
  fi
  native_need_graalvm
  need_maven
  export JAVA_HOME="$NATIVE_GRAALVM_HOME" GRAALVM_HOME="$NATIVE_GRAALVM_HOME"
  export PATH="$JAVA_HOME/bin:$PATH"
  mkdir -p "$JVM_OPT"
  rm -rf "$JVM_OUT"
  started="$(date +%s)"
  log "$MCP_SYSTEM_NAME: native-image build of $JVM_MODULE with GraalVM CE $NATIVE_GRAALVM_VERSION into $JVM_OUT"
  if ! nice -n "${SAMEBOX_BUILD_NICE:-5}" mvn -B -ntp -Pnative -f "$JVM_ROOT/pom.xml" -pl "$JVM_MODULE" -am \
      -Dsamebox.out="$JVM_OUT" package > "$JVM_OPT/build.log" 2>&1; then
    tail -n 30 "$JVM_OPT/build.log" >&2
    die "native build of $JVM_MODULE failed (log: $JVM_OPT/build.log)"
  fi
  [[ -x "$JVM_OUT/$NATIVE_BINARY" ]] || die "native build of $JVM_MODULE left no $JVM_OUT/$NATIVE_BINARY (log: $JVM_OPT/build.log)"
  printf '%s\n' "$want" > "$JVM_OPT/.src-hash"
  printf '%s\n' "$(( $(date +%s) - started ))" > "$JVM_OPT/.build-seconds"
  log "$MCP_SYSTEM_NAME: built in $(cat "$JVM_OPT/.build-seconds") s"
}

# native_require_built: exit 3 with the reason when there is no binary (not built, or no GraalVM here).
native_require_built() {
  [[ -x "$JVM_OUT/$NATIVE_BINARY" ]] && return 0
  native_image_ok || native_is_cloud_box || not_available "$NATIVE_UNAVAILABLE"
  not_available "$MCP_SYSTEM_NAME is not built: run its install verb ($JVM_OUT/$NATIVE_BINARY is missing)"
}

native_start() {
  native_require_built
  export MCP_SERVER_TYPE="$MCP_IMPL" MCP_PORT
  mcp_server_start --timeout 60 --cwd "$JVM_OPT" "$JVM_OUT/$NATIVE_BINARY" "${NATIVE_APP_ARGS[@]}"
}

native_config() {
  printf 'runtime=GraalVM CE %s native image (no JVM flags: the image'"'"'s defaults, Serial GC)\n' "$NATIVE_GRAALVM_VERSION"
  printf 'graalvm_home=%s (%s)\n' "$NATIVE_GRAALVM_HOME" "$(native_image_ok && echo present || echo absent)"
  printf 'build=maven -Pnative, module %s, binary %s\n' "$JVM_MODULE" "$JVM_OUT/$NATIVE_BINARY"
  printf 'build_seconds=%s\n' "$(cat "$JVM_OPT/.build-seconds" 2>/dev/null || echo unknown)"
  printf 'redis_url=%s\napi_service_url=%s\nport=%s\n' "$REDIS_URL" "$API_SERVICE_URL" "$MCP_PORT"
  printf '%s\n' "${NATIVE_CONFIG[@]}"
}
