# shellcheck shell=bash disable=SC2034  # read by jvm-verb and _jvm.sh
# mcp-java-webflux: Spring Boot + Spring AI MCP server on WebFlux (Reactor Netty, ASYNC tools),
# reactive Lettuce and WebClient. Source: ./app (a module of the JVM build in ../mcp-java/jvm).
# shellcheck source=../../lib/mcp-server.sh
. "$(dirname "$0")/../../lib/mcp-server.sh"
JVM_MODULE=../../mcp-java-webflux/app
JVM_ARTIFACT=mcp-spring-webflux/mcp-spring-webflux.jar
# shellcheck source=../mcp-java/_jvm.sh
. "$(dirname "$0")/../mcp-java/_jvm.sh"

JVM_APP_ARGS=(--server.address=127.0.0.1 "--server.port=$MCP_PORT")
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
