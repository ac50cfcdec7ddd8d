# shellcheck shell=bash disable=SC2034  # read by lib/mcp-jvm-native-verb and lib/mcp-jvm-native.sh
# mcp-java-vt-native: the GraalVM native image of mcp-java run with virtual threads (java-native's binary; cloud box only).
# The family's shared code and sources: lib/mcp-jvm-native.sh, lib/mcp-jvm.sh and lib/mcp-jvm/ (framework spring-mvc).
# shellcheck source=../../lib/mcp-server.sh
. "$(dirname "$0")/../../lib/mcp-server.sh"
NATIVE_BUILD_IMPL=java-native
# shellcheck source=../../lib/mcp-jvm-native.sh
. "$(dirname "$0")/../../lib/mcp-jvm-native.sh"
native_framework spring-mvc
