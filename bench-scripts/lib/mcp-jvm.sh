# shellcheck shell=bash disable=SC2034  # variables here are used by the verbs that source this
# The JVM MCP server family (mcp-java, mcp-java-vt, mcp-java-webflux, mcp-quarkus, mcp-micronaut and
# their -native variants), like lib/mysql-family.sh for MariaDB/MySQL: the one Maven build under
# lib/mcp-jvm/ (parent pom, common tool logic, one module per framework), the one JDK (Temurin 25),
# the one set of JVM flags, and each framework's module, jar, arguments, version and config lines
# (jvm_framework), which a JVM system and its native twin share. Sourced by each of those systems'
# _lib.sh after lib/mcp-server.sh, which set MCP_IMPL, MCP_PORT, MCP_OPT, MCP_STATE, REDIS_URL,
# API_SERVICE_URL. The systems' verbs are links to lib/mcp-jvm-verb (lib/mcp-jvm-native-verb).
#
# A system's _lib.sh sets, before sourcing this:
#   JVM_BUILD_IMPL whose build output it runs (java-vt runs java's jar: one source tree, one jar;
#                  default: its own MCP_IMPL)
# then calls jvm_framework FRAMEWORK (spring-mvc, spring-webflux, quarkus, micronaut).

JVM_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/mcp-jvm" && pwd)"
JVM_JDK_MAJOR=25
JVM_BUILD_IMPL="${JVM_BUILD_IMPL:-$MCP_IMPL}"
JVM_OPT="$SAMEBOX_OPT/mcp-servers/$JVM_BUILD_IMPL"
JVM_OUT="$JVM_OPT/build"

# The same JVM flags for every JVM server (SAMEBOX_JVM_OPTS replaces them; config records them):
# G1 with a 512 MiB heap is what the seed's JVMs got by ergonomics in their 2 CPU / 2 GiB
# containers (no flags given: G1 on >= 2 CPUs, max heap 1/4 of the container's memory).
JVM_OPTS_DEFAULT="-Xms512m -Xmx512m -XX:+UseG1GC -XX:+ExitOnOutOfMemoryError"
JVM_OPTS="${SAMEBOX_JVM_OPTS:-$JVM_OPTS_DEFAULT}"
# A framework's own flags that change nothing measured (jvm_framework sets them; config records them).
JVM_FRAMEWORK_OPTS=""

# jvm_use_jdk: JAVA_HOME/PATH of the one JDK, or exit 3 when this machine has none.
jvm_use_jdk() {
  ( need_jdk "$JVM_JDK_MAJOR" ) >/dev/null 2>&1 || not_available "no JDK $JVM_JDK_MAJOR on this machine (install Temurin $JVM_JDK_MAJOR or openjdk-$JVM_JDK_MAJOR-jdk-headless)"
  need_jdk "$JVM_JDK_MAJOR"
  JVM_JAVA="$JAVA_HOME/bin/java"
}

# jvm_sources_hash: the sources this system's build depends on (parent pom, common, its module),
# by content, not by where the checkout is (see mcp_src_hash).
jvm_sources_hash() {
  {
    sha256sum < "$JVM_ROOT/pom.xml"
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
  mcp_server_start --timeout 120 --cwd "$JVM_OPT" "$JVM_JAVA" $JVM_OPTS $JVM_FRAMEWORK_OPTS ${JVM_EXTRA_OPTS:-} -jar "$JVM_OUT/$artifact" "$@"
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
  printf 'jvm_opts=%s\n' "$JVM_OPTS${JVM_FRAMEWORK_OPTS:+ $JVM_FRAMEWORK_OPTS} ${JVM_EXTRA_OPTS:-}"
  printf 'app_args=%s\n' "${JVM_APP_ARGS[*]}"
  printf 'build=maven %s, module %s, jar %s\n' "$(mvn -B -v 2>/dev/null | sed 's/\x1b\[[0-9;]*m//g' | awk 'NR==1 {print $3}')" "$JVM_MODULE" "$JVM_OUT"
  printf 'build_seconds=%s\n' "$(cat "$JVM_OPT/.build-seconds" 2>/dev/null || echo unknown)"
  printf 'redis_url=%s\napi_service_url=%s\nport=%s\n' "$REDIS_URL" "$API_SERVICE_URL" "$MCP_PORT"
  printf '%s\n' "$@"
}

# jvm_pom_prop NAME: a version property of the parent pom (one place for the pinned versions).
jvm_pom_prop() {
  sed -n "s:.*<$1>\([^<]*\)</$1>.*:\1:p" "$JVM_ROOT/pom.xml" | head -n1
}

# jvm_framework FRAMEWORK: the module (a folder of lib/mcp-jvm), jar, arguments, version line and
# config lines of one framework's server; a JVM system and its native twin call it with the same word.
jvm_framework() {
  case "$1" in
    spring-mvc) jvm_framework_spring_mvc ;;
    spring-webflux) jvm_framework_spring_webflux ;;
    quarkus) jvm_framework_quarkus ;;
    micronaut) jvm_framework_micronaut ;;
    *) die "jvm_framework: unknown framework '$1' (valid: spring-mvc, spring-webflux, quarkus, micronaut)" ;;
  esac
}

# Spring Boot + Spring AI MCP server on WebMVC (SYNC tools, Tomcat platform threads). java-vt (and
# java-vt-native) is this same jar with virtual threads: one source tree, one build, a start-time switch.
jvm_framework_spring_mvc() {
  JVM_MODULE=spring-mvc
  JVM_ARTIFACT=mcp-spring-webmvc/mcp-spring-webmvc.jar
  NATIVE_BINARY=mcp-spring-webmvc/mcp-spring-webmvc
  if [[ "$MCP_IMPL" == java-vt || "$MCP_IMPL" == java-vt-native ]]; then JVM_VIRTUAL_THREADS=true; else JVM_VIRTUAL_THREADS=false; fi
  # server.shutdown=immediate: Spring Boot's default graceful shutdown waits for active requests, and an
  # SSE stream the conformance client leaves open counts as one, so every stop after a conformance cell
  # hung until the stop verb's KILL 10 s later (measured: mcp-java and mcp-java-vt in run
  # 20261128T165043Z-quick-vm). The runner stops a server only after its cells end: nothing is left to drain.
  JVM_APP_ARGS=(--server.address=127.0.0.1 "--server.port=$MCP_PORT" "--spring.threads.virtual.enabled=$JVM_VIRTUAL_THREADS"
    --server.shutdown=immediate)
  JVM_VERSION="Spring AI $(jvm_pom_prop spring-ai.version) MCP server WebMVC (Spring Boot $(jvm_pom_prop spring-boot.version), MCP Java SDK 2.0.0)"
  local threads="Tomcat platform threads max 200, min spare 25, accept-count 200"
  [[ "$JVM_VIRTUAL_THREADS" == true ]] && threads="virtual threads (spring.threads.virtual.enabled=true: one per request)"
  JVM_CONFIG=(
    "framework=Spring Boot $(jvm_pom_prop spring-boot.version), Spring AI $(jvm_pom_prop spring-ai.version) spring-ai-starter-mcp-server-webmvc"
    "mcp_transport=STREAMABLE (stateful: Mcp-Session-Id, DELETE ends a session), as the seed"
    "mcp_answers=SSE (the SDK's streamable transport has no JSON-answer option)"
    "tool_type=SYNC (the request thread waits for the tool's parallel I/O)"
    "threads=$threads"
    "virtual_threads=$JVM_VIRTUAL_THREADS"
    "redis_client=Lettuce $(jvm_pom_prop lettuce.version) async, one shared multiplexed connection"
    "http_client=JDK HttpClient HTTP/1.1 (keep-alive pool, unbounded)"
    "io=parallel (seed: sequential)"
  )
}

# Spring Boot + Spring AI MCP server on WebFlux (Reactor Netty, ASYNC tools), reactive Lettuce and WebClient.
jvm_framework_spring_webflux() {
  JVM_MODULE=spring-webflux
  JVM_ARTIFACT=mcp-spring-webflux/mcp-spring-webflux.jar
  NATIVE_BINARY=mcp-spring-webflux/mcp-spring-webflux
  JVM_APP_ARGS=(--server.address=127.0.0.1 "--server.port=$MCP_PORT" --server.shutdown=immediate)  # as spring-mvc's
  # Reactor Netty waits a 2 s quiet period for new tasks before its event loops shut down: 2 s of
  # every stop (~14 s of a quick run's seven visits), nothing while it serves.
  JVM_FRAMEWORK_OPTS="-Dreactor.netty.ioShutdownQuietPeriod=0"
  JVM_VERSION="Spring AI $(jvm_pom_prop spring-ai.version) MCP server WebFlux (Spring Boot $(jvm_pom_prop spring-boot.version), MCP Java SDK 2.0.0)"
  JVM_CONFIG=(
    "framework=Spring Boot $(jvm_pom_prop spring-boot.version), Spring AI $(jvm_pom_prop spring-ai.version) spring-ai-starter-mcp-server-webflux, Netty $(jvm_pom_prop netty.version)"
    "mcp_transport=STREAMABLE (stateful: Mcp-Session-Id, DELETE ends a session), as the seed"
    "mcp_answers=SSE (the SDK's streamable transport has no JSON-answer option)"
    "tool_type=ASYNC (Mono; no thread blocks)"
    "threads=Reactor Netty event loops (one per core)"
    "redis_client=Lettuce $(jvm_pom_prop lettuce.version) reactive, one shared multiplexed connection (as the seed)"
    "http_client=WebClient on Reactor Netty, pool 200 connections (as the seed)"
    "io=parallel (Mono.zip, as the seed)"
  )
}

# Quarkus + quarkiverse quarkus-mcp-server-http, Quarkus Redis client, REST client (Mutiny).
# Quarkus reads MCP_PORT, REDIS_URL and API_SERVICE_URL from the environment (application.properties).
jvm_framework_quarkus() {
  JVM_MODULE=quarkus
  JVM_ARTIFACT=mcp-quarkus/quarkus-app/quarkus-run.jar
  NATIVE_BINARY=mcp-quarkus/mcp-quarkus-1.0.0-runner
  JVM_APP_ARGS=()
  JVM_VERSION="quarkus-mcp-server-http $(jvm_pom_prop quarkus-mcp-server.version) (Quarkus $(jvm_pom_prop quarkus.platform.version))"
  JVM_CONFIG=(
    "framework=Quarkus $(jvm_pom_prop quarkus.platform.version) (platform BOM), io.quarkiverse.mcp:quarkus-mcp-server-http $(jvm_pom_prop quarkus-mcp-server.version)"
    "mcp_transport=streamable HTTP (stateful: Mcp-Session-Id), as the seed"
    "tool_type=Uni (Mutiny; no thread blocks)"
    "threads=Vert.x event loops (2 x cores) + Quarkus worker pool (unused by the tools)"
    "redis_client=Quarkus redis-client (Vert.x), max-pool-size 100, max-pool-waiting 1000 (as the seed)"
    "http_client=Quarkus REST client (Vert.x), connection-pool-size 1000, keep-alive (as the seed)"
    "io=parallel (Uni.combine, as the seed)"
  )
}

# Micronaut + io.micronaut.mcp micronaut-mcp-server-java-sdk on the Netty HTTP server, tools on the
# shared FutureBackend. Micronaut reads MCP_PORT, REDIS_URL and API_SERVICE_URL from the environment.
jvm_framework_micronaut() {
  JVM_MODULE=micronaut
  JVM_ARTIFACT=mcp-micronaut/mcp-micronaut.jar
  NATIVE_BINARY=mcp-micronaut/mcp-micronaut
  JVM_APP_ARGS=()
  JVM_VERSION="micronaut-mcp-server-java-sdk $(jvm_pom_prop micronaut-mcp.version) (Micronaut platform $(jvm_pom_prop micronaut.version), MCP Java SDK 0.17.0)"
  JVM_CONFIG=(
    "framework=Micronaut platform $(jvm_pom_prop micronaut.version), io.micronaut.mcp:micronaut-mcp-server-java-sdk $(jvm_pom_prop micronaut-mcp.version), Netty HTTP server"
    "mcp_transport=streamable HTTP, stateless (the SDK's stateless server: no session ids), as the seed"
    "mcp_answers=JSON"
    "tool_type=sync (the MCP SDK runs it on Reactor boundedElastic threads; it waits for the parallel I/O)"
    "tool_errors=JSON-RPC error (micronaut-mcp 0.0.19 maps a thrown exception to one; no isError result)"
    "redis_client=Lettuce async, one shared multiplexed connection (the seed: the same, one injected connection)"
    "http_client=JDK HttpClient HTTP/1.1 (keep-alive pool; the seed: Micronaut's blocking Netty client)"
    "io=parallel"
  )
}
