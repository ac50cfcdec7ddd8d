# shellcheck shell=bash disable=SC2034  # read by jvm-verb and _jvm.sh
# mcp-java-vt: the mcp-java jar (same source tree, same build) started with
# spring.threads.virtual.enabled=true; mcp-java/_lib.sh switches on MCP_IMPL.
# shellcheck source=../mcp-java/_lib.sh
. "$(dirname "$0")/../mcp-java/_lib.sh"
