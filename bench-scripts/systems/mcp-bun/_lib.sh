# shellcheck shell=bash disable=SC2034  # variables here are used by the verbs that source this
# Bun runs the same JS server as mcp-nodejs (lib/mcp-node.sh, source lib/mcp-node/); this folder only
# pins the runtime: runtime/package.json + lock (npm package bun, whose platform package ships the
# binary) installed under $MCP_OPT/runtime (sourced, not a verb).
# shellcheck source=../../lib/mcp-server.sh
. "$(dirname "$0")/../../lib/mcp-server.sh"
# shellcheck source=../../lib/mcp-node.sh
. "$(dirname "$0")/../../lib/mcp-node.sh"

BUN_RUNTIME_SRC="$MCP_SYSTEM_DIR/runtime"
BUN_RUNTIME="$MCP_OPT/runtime"
BUN_PINNED="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["dependencies"]["bun"])' "$BUN_RUNTIME_SRC/package.json")"

# bun_platform_package: the npm platform package holding the binary for this machine.
bun_platform_package() {
  case "$(uname -m)" in
    x86_64)
      grep -qw avx2 /proc/cpuinfo || not_available "bun: this CPU has no AVX2 (Bun's x64 build needs it; the -baseline build is not in the lock file)"
      echo "@oven/bun-linux-x64" ;;
    aarch64) echo "@oven/bun-linux-aarch64" ;;
    *) not_available "bun: no Linux build for $(uname -m) (valid: x86_64, aarch64)" ;;
  esac
}

BUN_BIN="$BUN_RUNTIME/node_modules/$(bun_platform_package)/bin/bun"

bun_require_installed() {
  [[ -x "$BUN_BIN" ]] || not_available "bun is not installed ($BUN_BIN missing): run systems/mcp-bun/install"
  js_app_require_installed
}
