#!/usr/bin/env bash
# shellcheck disable=SC2015  # `check && ok || bad` is the suites' idiom
# Tests of the JVM MCP server systems (mcp-java, mcp-java-vt, mcp-java-webflux, mcp-quarkus,
# mcp-micronaut) and their GraalVM natives, beyond what the study suite (36-mcp-servers) checks:
#   bash bench-scripts/lib/mcp-jvm-test.sh          # static: shellcheck, system.json, verbs, folders stand alone
#   bash bench-scripts/lib/mcp-jvm-test.sh --live   # + install/start/conformance/stop each
# --live needs Redis + api-service up and seeded (studies/mcp-servers/deps start) at REDIS_URL /
# API_SERVICE_URL (SAMEBOX_REDIS_PORT / SAMEBOX_API_PORT); use your own SAMEBOX_STATE.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=../../pipeline/bin/test-lib.sh
. pipeline/bin/test-lib.sh
sys=bench-scripts/systems
jvm=(mcp-java mcp-java-vt mcp-java-webflux mcp-quarkus mcp-micronaut)
natives=(mcp-java-native mcp-java-vt-native mcp-java-webflux-native mcp-quarkus-native mcp-micronaut-native)
live=0
case "${1:-}" in
  "") ;; --live) live=1 ;;
  *) echo "jvm-test.sh: unknown option '$1' (valid: --live)" >&2; exit 2 ;;
esac

libs=()
for s in "${jvm[@]}" "${natives[@]}"; do libs+=("$sys/$s/_lib.sh"); done
lib=bench-scripts/lib
t "shellcheck JVM/native verbs and libs" shellcheck -x $lib/mcp-jvm-verb $lib/mcp-jvm-native-verb \
  $lib/mcp-jvm.sh $lib/mcp-jvm-native.sh $lib/mcp-jvm-test.sh "${libs[@]}"

for s in "${jvm[@]}" "${natives[@]}"; do
  t "$s/system.json: name, kind server, label, notes" python3 -c "
import json, sys
d = json.load(open('$sys/$s/system.json'))
assert d['name'] == '$s' and d['kind'] == 'server' and d['label'] and len(d['notes']) > 100, d
"
  for v in install start check stop version env pids config; do
    [[ -x "$sys/$s/$v" ]] || bad "$s/$v is not executable"
  done
  # The folder stands alone: nothing in it sources, links to or builds from another system's folder.
  refs=$(grep -l 'systems/\|\.\./mcp-' "$sys/$s"/_lib.sh 2>/dev/null; find "$sys/$s" -type l -lname '../mcp-*')
  [[ -z "$refs" ]] && ok "$s stands alone (shared code in bench-scripts/lib)" || bad "$s reads another system's folder: $refs"
  env_out=$(bash "$sys/$s/env" 2>&1)
  [[ "$env_out" == *"MCP_URL=http://127.0.0.1:"*"/mcp"*"MCP_SERVER_TYPE=${s#mcp-}"* ]] && ok "$s env" || bad "$s env: $env_out"
  ver=$(bash "$sys/$s/version" 2>/dev/null)
  [[ $(printf '%s\n' "$ver" | wc -l) -eq 1 && "$ver" == *[0-9].[0-9]* ]] && ok "$s version: $ver" || bad "$s version: '$ver'"
done

# Natives: no GraalVM here -> install/start/check exit 3 with the one-line reason; stop exits 0.
if ! command -v native-image >/dev/null && [[ -z "${GRAALVM_HOME:-}" ]]; then
  for s in "${natives[@]}"; do
    for v in install start check; do
      out=$(bash "$sys/$s/$v" 2>/dev/null); rc=$?
      [[ $rc -eq 3 && "$out" == "GraalVM native-image is not available on this machine; the cloud box builds it" ]] \
        && ok "$s $v: exit 3 with the reason" || bad "$s $v: exit $rc: '$out'"
    done
    t "$s stop (not running): exit 0" bash "$sys/$s/stop"
  done
fi

# A build is keyed by its sources' contents, not by the checkout's path: a fresh clone elsewhere must
# not rebuild into the shared /opt folder (each Maven build takes 5-11 s at a run's start).
src_hashes() { bash -c '. "$1/systems/mcp-java/_lib.sh"; jvm_sources_hash; mcp_src_hash "$1/lib/mcp-jvm/common" "$1/lib/mcp-jvm/pom.xml"' "$1/systems/mcp-java/x" "$1"; }
copy=$(mktemp -d)
mkdir -p "$copy/moved/systems" && cp -r bench-scripts/lib "$copy/moved/" && cp -r "$sys/mcp-java" "$copy/moved/systems/"
here=$(src_hashes "$PWD/bench-scripts"); there=$(src_hashes "$copy/moved")
[[ -n "$here" && "$here" == "$there" ]] && ok "source hashes do not depend on the checkout's path" || bad "source hashes differ by path: '$here' vs '$there'"
echo "// changed" >> "$copy/moved/lib/mcp-jvm/pom.xml"
[[ "$(src_hashes "$copy/moved")" != "$here" ]] && ok "source hashes change with the sources" || bad "a changed pom.xml kept the same hash"
rm -rf "$copy"

# The JVM servers: one JDK (25) and the same JVM flags for all, recorded by config.
for s in "${jvm[@]}"; do
  cfg=$(bash "$sys/$s/config" 2>&1)
  [[ "$cfg" == *"runtime="*" 25."* && "$cfg" == *"jvm_opts=-Xms512m -Xmx512m -XX:+UseG1GC"* ]] && ok "$s config: JDK 25, shared JVM flags" || bad "$s config: $cfg"
done

if (( live )); then
  for s in "${jvm[@]}"; do
    if ! bash "$sys/$s/install" >/dev/null 2>&1; then bad "$s install"; continue; fi
    if ! bash "$sys/$s/start" >/dev/null 2>&1; then bad "$s start"; continue; fi
    url=$(bash "$sys/$s/env" | sed -n 's/^MCP_URL=//p')
    t "$s conformance" bench-scripts/studies/mcp-servers/conformance "$url" --server-type "${s#mcp-}"
    t "$s check" bash "$sys/$s/check"
    if [[ $s == mcp-java-vt || $s == mcp-java ]]; then
      # java-vt must run requests on virtual threads: no Tomcat platform worker threads; java must have them.
      pid=$(bash "$sys/$s/pids"); port=$(printf '%s' "$url" | sed 's#.*:\([0-9]*\)/mcp#\1#')
      # Thread.print lists platform threads only; Tomcat's workers are http-nio-<address>-<port>-exec-N.
      n=$("${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/jcmd" "$pid" Thread.print 2>/dev/null | grep -c "\"http-nio-.*$port-exec-")
      if [[ $s == mcp-java-vt ]]; then [[ $n -eq 0 ]] && ok "$s: no Tomcat platform workers (virtual threads)" || bad "$s: $n Tomcat platform workers"
      else [[ $n -gt 0 ]] && ok "$s: Tomcat platform workers ($n)" || bad "$s: no Tomcat platform workers"; fi
    fi
    t "$s stop" bash "$sys/$s/stop"
    [[ -z "$(bash "$sys/$s/pids")" ]] && ok "$s: no pid after stop" || bad "$s: still running after stop"
  done
  # Bad input: an invalid REDIS_URL stops the server at start with a line naming it and what is valid.
  out=$(REDIS_URL=http://nowhere bash "$sys/mcp-micronaut/start" 2>&1); rc=$?
  [[ $rc -ne 0 && "$out" == *"REDIS_URL='http://nowhere' is not valid (valid: redis://host:port)"* ]] \
    && ok "mcp-micronaut start with a bad REDIS_URL fails naming it" || bad "bad REDIS_URL: exit $rc: $(printf '%s' "$out" | tail -n 3)"
  bash "$sys/mcp-micronaut/stop" >/dev/null 2>&1
fi
finish
