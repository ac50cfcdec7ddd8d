# shellcheck shell=bash disable=SC2034  # read by jvm-verb and _jvm.sh
# mcp-micronaut: Micronaut + io.micronaut.mcp micronaut-mcp-server-java-sdk on the Netty HTTP server,
# tools on the shared FutureBackend. Source: ./app (a module of the JVM build in ../mcp-java/jvm).
# shellcheck source=../../lib/mcp-server.sh
. "$(dirname "$0")/../../lib/mcp-server.sh"
JVM_MODULE=../../mcp-micronaut/app
JVM_ARTIFACT=mcp-micronaut/mcp-micronaut.jar
# shellcheck source=../mcp-java/_jvm.sh
. "$(dirname "$0")/../mcp-java/_jvm.sh"

# Micronaut reads MCP_PORT, REDIS_URL and API_SERVICE_URL from the environment.
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
