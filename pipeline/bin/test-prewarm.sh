#!/usr/bin/env bash
# Builds, in the background and at the lowest CPU priority, the tools that later suites of the test
# command would otherwise build when they reach them: k6 (suite 35), the Rust MCP server (36) and the
# infrastructure linters and venvs (50). On a new machine these are minutes of module downloads and
# compiles each; the early suites leave a core idle much of the time (package installs, one-threaded
# tests), and nice 19 gives this job only that idle time. Each build takes the lock its suite also
# takes (or cargo's own build lock), so a suite that gets there first waits and then finds the tool
# built; nothing here is counted as a test: a failed build fails again, visibly, in its suite.
# Usage: pipeline/bin/test-prewarm.sh <log file>   (pipeline/bin/test starts it for a whole run)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
log=${1:?usage: test-prewarm.sh <log file>}
step() { # <name> <command...>: one build, timed, its output in the log
  local name=$1 start=$SECONDS rc; shift
  printf '%s prewarm: %s\n' "$(date -u +%H:%M:%S)" "$name" >> "$log"
  "$@" >> "$log" 2>&1; rc=$?
  printf '%s prewarm: %s: exit %s after %ss\n' "$(date -u +%H:%M:%S)" "$name" "$rc" $((SECONDS - start)) >> "$log"
}
renice -n 19 $$ >/dev/null 2>&1
ionice -c 3 -p $$ >/dev/null 2>&1
# In the order the suites need them.
step "k6 (bench-scripts/loadgen/mcp-load/build k6)" timeout 1200 bash bench-scripts/loadgen/mcp-load/build k6
step "mcp-rust (bench-scripts/systems/mcp-rust/install)" timeout 1200 bash bench-scripts/systems/mcp-rust/install
step "infra tools (pipeline/bin/test.d/50-infra-lint.sh --setup-only)" timeout 1200 bash pipeline/bin/test.d/50-infra-lint.sh --setup-only
