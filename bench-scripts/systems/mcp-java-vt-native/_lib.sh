# shellcheck shell=bash disable=SC2034  # read by native-verb and _native.sh
# mcp-java-vt-native: the GraalVM native image of mcp-java (same sources, module, arguments; cloud box only).
NATIVE_BUILD_IMPL=java-native
# shellcheck source=../mcp-java/_lib.sh
. "$(dirname "$0")/../mcp-java/_lib.sh"
NATIVE_BINARY=mcp-spring-webmvc/mcp-spring-webmvc
NATIVE_APP_ARGS=("${JVM_APP_ARGS[@]}")
NATIVE_VERSION="$JVM_VERSION"
NATIVE_CONFIG=("${JVM_CONFIG[@]}")
# shellcheck source=../mcp-java/_native.sh
. "$(dirname "$0")/../mcp-java/_native.sh"
