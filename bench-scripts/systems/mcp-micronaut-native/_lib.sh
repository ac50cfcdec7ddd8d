# shellcheck shell=bash disable=SC2034  # read by native-verb and _native.sh
# mcp-micronaut-native: the GraalVM native image of mcp-micronaut (same sources, module, arguments; cloud box only).
NATIVE_BUILD_IMPL=micronaut-native
# shellcheck source=../mcp-micronaut/_lib.sh
. "$(dirname "$0")/../mcp-micronaut/_lib.sh"
NATIVE_BINARY=mcp-micronaut/mcp-micronaut
NATIVE_APP_ARGS=("${JVM_APP_ARGS[@]}")
NATIVE_VERSION="$JVM_VERSION"
NATIVE_CONFIG=("${JVM_CONFIG[@]}")
# shellcheck source=../mcp-java/_native.sh
. "$(dirname "$0")/../mcp-java/_native.sh"
