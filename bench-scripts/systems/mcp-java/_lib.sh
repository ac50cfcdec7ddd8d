# shellcheck shell=bash disable=SC2034  # read by lib/mcp-jvm-verb and lib/mcp-jvm.sh
# mcp-java: Spring Boot + Spring AI MCP server on WebMVC (SYNC tools, Tomcat platform threads).
# The family's shared code and sources: lib/mcp-jvm.sh and lib/mcp-jvm/ (framework spring-mvc).
# shellcheck source=../../lib/mcp-server.sh
. "$(dirname "$0")/../../lib/mcp-server.sh"
JVM_BUILD_IMPL=java
# shellcheck source=../../lib/mcp-jvm.sh
. "$(dirname "$0")/../../lib/mcp-jvm.sh"
jvm_framework spring-mvc
