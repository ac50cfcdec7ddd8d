# shellcheck shell=bash disable=SC2034  # read by jvm-verb and _jvm.sh
# mcp-quarkus: Quarkus + quarkiverse quarkus-mcp-server-http, Quarkus Redis client, REST client
# (Mutiny). Source: ./app (a module of the JVM build in ../mcp-java/jvm).
# shellcheck source=../../lib/mcp-server.sh
. "$(dirname "$0")/../../lib/mcp-server.sh"
JVM_MODULE=../../mcp-quarkus/app
JVM_ARTIFACT=mcp-quarkus/quarkus-app/quarkus-run.jar
# shellcheck source=../mcp-java/_jvm.sh
. "$(dirname "$0")/../mcp-java/_jvm.sh"

# Quarkus reads MCP_PORT, REDIS_URL and API_SERVICE_URL from the environment (application.properties).
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
