# shellcheck shell=bash disable=SC2034  # read by lib/mcp-jvm-verb and lib/mcp-jvm.sh
# mcp-java-webflux: Spring Boot + Spring AI MCP server on WebFlux (Reactor Netty, ASYNC tools), reactive Lettuce and WebClient.
# The family's shared code and sources: lib/mcp-jvm.sh and lib/mcp-jvm/ (framework spring-webflux).
# shellcheck source=../../lib/mcp-server.sh
. "$(dirname "$0")/../../lib/mcp-server.sh"
# shellcheck source=../../lib/mcp-jvm.sh
. "$(dirname "$0")/../../lib/mcp-jvm.sh"
jvm_framework spring-webflux
