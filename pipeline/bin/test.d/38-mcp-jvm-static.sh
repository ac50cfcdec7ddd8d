#!/usr/bin/env bash
# Static checks of the JVM MCP servers and their GraalVM natives (shellcheck, system.json, shared JDK and
# flags, the natives' exit 3 with the reason here). Their builds, starts and conformance run in suite 36.
set -uo pipefail
cd "$(dirname "$0")/../../.." || exit 1
exec bash bench-scripts/lib/mcp-jvm-test.sh
