# shellcheck shell=bash disable=SC2034  # read by native-verb and _native.sh
# mcp-java-webflux-native: the GraalVM native image of mcp-java-webflux (same sources, module, arguments; cloud box only).
NATIVE_BUILD_IMPL=java-webflux-native
# shellcheck source=../mcp-java-webflux/_lib.sh
. "$(dirname "$0")/../mcp-java-webflux/_lib.sh"
NATIVE_BINARY=mcp-spring-webflux/mcp-spring-webflux
NATIVE_APP_ARGS=("${JVM_APP_ARGS[@]}")
NATIVE_VERSION="$JVM_VERSION"
NATIVE_CONFIG=("${JVM_CONFIG[@]}")
# shellcheck source=../mcp-java/_native.sh
. "$(dirname "$0")/../mcp-java/_native.sh"
