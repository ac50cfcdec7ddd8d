# shellcheck shell=bash disable=SC2034  # read by jvm-verb and _jvm.sh
# mcp-java: Spring Boot + Spring AI MCP server on WebMVC (SYNC tools, Tomcat platform threads).
# mcp-java-vt runs the same jar with virtual threads (its _lib.sh sources this one).
# shellcheck source=../../lib/mcp-server.sh
. "$(dirname "$0")/../../lib/mcp-server.sh"
JVM_MODULE=spring-mvc
JVM_BUILD_IMPL=java
JVM_ARTIFACT=mcp-spring-webmvc/mcp-spring-webmvc.jar
# shellcheck source=./_jvm.sh
. "$(dirname "$0")/../mcp-java/_jvm.sh"

# java-vt is this same jar with virtual threads: one source tree, one build, a start-time switch.
if [[ "$MCP_IMPL" == java-vt || "$MCP_IMPL" == java-vt-native ]]; then JVM_VIRTUAL_THREADS=true; else JVM_VIRTUAL_THREADS=false; fi
JVM_APP_ARGS=(--server.address=127.0.0.1 "--server.port=$MCP_PORT" "--spring.threads.virtual.enabled=$JVM_VIRTUAL_THREADS")
JVM_VERSION="Spring AI $(jvm_pom_prop spring-ai.version) MCP server WebMVC (Spring Boot $(jvm_pom_prop spring-boot.version), MCP Java SDK 2.0.0)"
threads="Tomcat platform threads max 200, min spare 25, accept-count 200"
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
