# shellcheck shell=bash disable=SC2034  # variables here are used by the verbs that source this
# Shared by the JVM MCP servers (mcp-java, mcp-java-vt, mcp-java-webflux, mcp-quarkus, mcp-micronaut
# and their -native variants): the one Maven build under mcp-java/jvm/, the one JDK (Temurin 25) and
# the one set of JVM flags. Sourced by each of those systems' _lib.sh after lib/mcp-server.sh, which
# set MCP_IMPL, MCP_PORT, MCP_OPT, MCP_STATE, REDIS_URL, API_SERVICE_URL.
#
# A system's _lib.sh sets, before sourcing this:
#   JVM_MODULE     the Maven module it builds (a path relative to mcp-java/jvm, e.g. spring-mvc)
#   JVM_BUILD_IMPL whose build output it runs (java-vt runs java's jar: one source tree, one jar)
#   JVM_FRAMEWORK  the framework line for version/config, e.g. "Spring Boot"

JVM_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/jvm" && pwd)"
JVM_JDK_MAJOR=25
JVM_BUILD_IMPL="${JVM_BUILD_IMPL:-$MCP_IMPL}"
JVM_OPT="$SAMEBOX_OPT/mcp-servers/$JVM_BUILD_IMPL"
JVM_OUT="$JVM_OPT/build"

# The same JVM flags for every JVM server (SAMEBOX_JVM_OPTS replaces them; config records them):
# G1 with a 512 MiB heap is what the seed's JVMs got by ergonomics in their 2 CPU / 2 GiB
# containers (no flags given: G1 on >= 2 CPUs, max heap 1/4 of the container's memory).
JVM_OPTS_DEFAULT="-Xms512m -Xmx512m -XX:+UseG1GC -XX:+ExitOnOutOfMemoryError"
JVM_OPTS="${SAMEBOX_JVM_OPTS:-$JVM_OPTS_DEFAULT}"

# jvm_use_jdk: JAVA_HOME/PATH of the one JDK, or exit 3 when this machine has none.
jvm_use_jdk() {
  ( need_jdk "$JVM_JDK_MAJOR" ) >/dev/null 2>&1 || not_available "no JDK $JVM_JDK_MAJOR on this machine (install Temurin $JVM_JDK_MAJOR or openjdk-$JVM_JDK_MAJOR-jdk-headless)"
  need_jdk "$JVM_JDK_MAJOR"
  JVM_JAVA="$JAVA_HOME/bin/java"
}

# jvm_sources_hash: the sources this system's build depends on (parent pom, common, its module).
jvm_sources_hash() {
  {
    sha256sum "$JVM_ROOT/pom.xml"
    mcp_src_hash "$JVM_ROOT/common"
    mcp_src_hash "$JVM_ROOT/$JVM_MODULE"
  } | sha256sum | cut -c1-16
}

# jvm_install ARTIFACT_GLOB: build the module with Maven into $JVM_OUT unless the recorded source
# hash matches; ARTIFACT is the runnable file the build must leave (relative to $JVM_OUT).
# Maven runs in batch mode against Maven Central with the local repository ~/.m2 (cached).
jvm_install() {
  local artifact="$1" want started
  want="$(jvm_sources_hash)"
  if [[ -f "$JVM_OUT/$artifact" && -f "$JVM_OPT/.src-hash" && "$(cat "$JVM_OPT/.src-hash")" == "$want" ]]; then
    log "$MCP_SYSTEM_NAME: build is current ($JVM_OUT/$artifact, sources $want)"
    return 0
  fi
  jvm_use_jdk
  need_maven
  mkdir -p "$JVM_OPT"
  rm -rf "$JVM_OUT"
  started="$(date +%s)"
  log "$MCP_SYSTEM_NAME: building $JVM_MODULE with Maven on $("$JAVA_HOME/bin/java" -version 2>&1 | head -n1) into $JVM_OUT"
  if ! nice -n "${SAMEBOX_BUILD_NICE:-5}" mvn -B -ntp -f "$JVM_ROOT/pom.xml" -pl "$JVM_MODULE" -am \
      -Dsamebox.out="$JVM_OUT" package > "$JVM_OPT/build.log" 2>&1; then
    tail -n 30 "$JVM_OPT/build.log" >&2
    die "Maven build of $JVM_MODULE failed (log: $JVM_OPT/build.log)"
  fi
  [[ -f "$JVM_OUT/$artifact" ]] || die "Maven build of $JVM_MODULE left no $JVM_OUT/$artifact (log: $JVM_OPT/build.log)"
  printf '%s\n' "$want" > "$JVM_OPT/.src-hash"
  printf '%s\n' "$(( $(date +%s) - started ))" > "$JVM_OPT/.build-seconds"
  log "$MCP_SYSTEM_NAME: built in $(cat "$JVM_OPT/.build-seconds") s"
}

# jvm_require_built ARTIFACT: exit 3 (not installed) when the build output is missing.
jvm_require_built() {
  [[ -f "$JVM_OUT/$1" ]] || not_available "$MCP_SYSTEM_NAME is not built: run its install verb ($JVM_OUT/$1 is missing)"
}

# jvm_start ARTIFACT [JAVA ARGS AFTER THE JAR...]: start the jar with the shared flags; MCP_PORT,
# REDIS_URL, API_SERVICE_URL and MCP_SERVER_TYPE reach the server through the environment.
jvm_start() {
  local artifact="$1"; shift
  jvm_require_built "$artifact"
  jvm_use_jdk
  export MCP_SERVER_TYPE="$MCP_IMPL" MCP_PORT
  # shellcheck disable=SC2086  # JVM_OPTS is a list of flags
  mcp_server_start --timeout 120 --cwd "$JVM_OPT" "$JVM_JAVA" $JVM_OPTS ${JVM_EXTRA_OPTS:-} -jar "$JVM_OUT/$artifact" "$@"
}

jvm_version_line() {
  jvm_use_jdk
  printf '%s; JDK %s\n' "$1" "$("$JVM_JAVA" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.runtime.version/ {print $2}')"
}

# jvm_config [KEY=VALUE...]: the shared runtime lines, then the system's own.
jvm_config() {
  jvm_use_jdk
  printf 'runtime=%s\n' "$("$JVM_JAVA" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.vm.vendor/ {v=$2} /java.runtime.version/ {r=$2} END {print v" "r}')"
  printf 'java_home=%s\n' "$JAVA_HOME"
  printf 'jvm_opts=%s\n' "$JVM_OPTS ${JVM_EXTRA_OPTS:-}"
  printf 'build=maven %s, module %s, jar %s\n' "$(mvn -B -v 2>/dev/null | sed 's/\x1b\[[0-9;]*m//g' | awk 'NR==1 {print $3}')" "$JVM_MODULE" "$JVM_OUT"
  printf 'build_seconds=%s\n' "$(cat "$JVM_OPT/.build-seconds" 2>/dev/null || echo unknown)"
  printf 'redis_url=%s\napi_service_url=%s\nport=%s\n' "$REDIS_URL" "$API_SERVICE_URL" "$MCP_PORT"
  printf '%s\n' "$@"
}

# jvm_pom_prop NAME: a version property of the parent pom (one place for the pinned versions).
jvm_pom_prop() {
  sed -n "s:.*<$1>\([^<]*\)</$1>.*:\1:p" "$JVM_ROOT/pom.xml" | head -n1
}
