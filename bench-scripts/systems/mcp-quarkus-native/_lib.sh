# shellcheck shell=bash disable=SC2034  # read by native-verb and _native.sh
# mcp-quarkus-native: the GraalVM native image of mcp-quarkus (same sources, module, arguments; cloud box only).
NATIVE_BUILD_IMPL=quarkus-native
# shellcheck source=../mcp-quarkus/_lib.sh
. "$(dirname "$0")/../mcp-quarkus/_lib.sh"
NATIVE_BINARY=mcp-quarkus/mcp-quarkus-1.0.0-runner
NATIVE_APP_ARGS=("${JVM_APP_ARGS[@]}")
NATIVE_VERSION="$JVM_VERSION"
NATIVE_CONFIG=("${JVM_CONFIG[@]}")
# shellcheck source=../mcp-java/_native.sh
. "$(dirname "$0")/../mcp-java/_native.sh"
