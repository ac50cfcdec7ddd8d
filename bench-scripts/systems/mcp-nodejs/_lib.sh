# shellcheck shell=bash disable=SC2034  # variables here are used by the verbs that source this
# mcp-nodejs: the family's JS MCP server (lib/mcp-node.sh, source lib/mcp-node/) under Node 24 (sourced, not a verb).
# shellcheck source=../../lib/mcp-server.sh
. "$(dirname "$0")/../../lib/mcp-server.sh"
# shellcheck source=../../lib/mcp-node.sh
. "$(dirname "$0")/../../lib/mcp-node.sh"
