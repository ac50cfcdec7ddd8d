# shellcheck shell=bash disable=SC2034  # read by lib/mcp-jvm-verb and lib/mcp-jvm.sh
# mcp-quarkus: Quarkus + quarkiverse quarkus-mcp-server-http, Quarkus Redis client, REST client (Mutiny).
# The family's shared code and sources: lib/mcp-jvm.sh and lib/mcp-jvm/ (framework quarkus).
# shellcheck source=../../lib/mcp-server.sh
. "$(dirname "$0")/../../lib/mcp-server.sh"
# shellcheck source=../../lib/mcp-jvm.sh
. "$(dirname "$0")/../../lib/mcp-jvm.sh"
jvm_framework quarkus
