# shellcheck shell=bash disable=SC2034  # read by lib/mcp-jvm-verb and lib/mcp-jvm.sh
# mcp-micronaut: Micronaut + io.micronaut.mcp micronaut-mcp-server-java-sdk on the Netty HTTP server.
# The family's shared code and sources: lib/mcp-jvm.sh and lib/mcp-jvm/ (framework micronaut).
# shellcheck source=../../lib/mcp-server.sh
. "$(dirname "$0")/../../lib/mcp-server.sh"
# shellcheck source=../../lib/mcp-jvm.sh
. "$(dirname "$0")/../../lib/mcp-jvm.sh"
jvm_framework micronaut
