# shellcheck shell=bash
# The client ceiling (workloads client_ceiling and client_ceiling_k6; sourced by run, which has
# defined faults() and validated the numbers it passes). No database: a fresh
# mcp-null (tools/cmd/mcp-null, the one cheapest server: canned JSON answers) on a free 127.0.0.1 port, and one load
# client against its trivial tool with the settings of the database cells (protocol
# $MCPDB_PROTOCOL, closed loop, THREADS sessions, WARMUP + DURATION):
#   mcp-load  stdout = mcp-load's JSON report (parser mcp-load), as in the database cells
#   k6        stdout = k6/mcp-call.js's summary JSON (parser k6); $CELL_DIR/k6-cpu.json = k6's CPU
# The server is stopped when the cell ends, whatever happens.

# ceiling_run WORKLOAD_FILE CLIENT CELL_DIR THREADS DURATION WARMUP
ceiling_run() {
  local wl="$1" client="$2" cell="$3" threads="$4" duration="$5" warmup="$6" tool args response server
  tool="$(json_get "$wl" trivial_tool)"
  args="$(python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1])).get("trivial_args", {})))' "$wl")"
  response="$(json_get "$wl" trivial_response)"
  # trivial_server: mcp-null (the default and only value: the cheapest server possible, JSON answers
  # only, so the figure is the client's ceiling).
  server="$(json_get "$wl" trivial_server)"
  server="${server:-mcp-null}"
  [[ -n "$tool" ]] || die "$wl: 'trivial_tool' is missing (valid: echo, noop)"
  local server_args=(--addr 127.0.0.1:0 --max-lifetime "$(( warmup + ${WARMUP_MAX:-0} + duration + 300 ))s")
  case "$server:${response:-json}" in
    mcp-null:json) response=json ;;
    *) die "$wl: trivial_server '$server' with trivial_response '$response' is not valid (valid: mcp-null with json)" ;;
  esac
  case "$client" in
    mcp-load) ;;
    k6) mcpdb_build_k6 ;;
    *) die "$wl: ceiling_client '$client' is not valid (valid: mcp-load, k6)" ;;
  esac

  # Created before the launch: the background job opens them only when it gets scheduled.
  : > "$cell/mcp-trivial.out"
  : > "$cell/mcp-trivial.err"
  "$MCPDB_BIN/$server" "${server_args[@]}" > "$cell/mcp-trivial.out" 2> "$cell/mcp-trivial.err" &
  local server_pid=$!
  # shellcheck disable=SC2064  # expand now: the pid is this cell's server
  trap "kill $server_pid 2>/dev/null || true; wait $server_pid 2>/dev/null || true" EXIT
  local url="" i
  for (( i = 0; i < 100; i++ )); do
    url="$(sed -n 's/^listening //p' "$cell/mcp-trivial.out")"
    [[ -n "$url" ]] && break
    pid_alive "$server_pid" || break
    sleep 0.1
  done
  [[ -n "$url" ]] || die "$server did not start within 10 s: $(tail -n 3 "$cell/mcp-trivial.err" | tr '\n' ' ')"
  faults "server=\"$server\"" "tool=\"$tool\"" "client=\"$client\"" "response=\"${response:-sse}\"" "protocol=\"$MCPDB_PROTOCOL\""
  log "client ceiling: $client -> $server $tool ($url, ${response:-sse} answers), concurrency $threads, ${warmup}+${duration} s, protocol $MCPDB_PROTOCOL"

  local rc out="$cell/$client.json"
  set +e
  rm -f "$cell/command.txt"
  record_command "the target: $server (no database)" "$MCPDB_BIN/$server" "${server_args[@]}"
  if [[ "$client" == mcp-load ]]; then
    # The database cells' mcp-load command line, with the trivial tool in place of the SQL tool.
    local argv=("$MCPDB_BIN/mcp-load" --url "$url" --protocol "$MCPDB_PROTOCOL" --concurrency "$threads"
      --duration "$duration" --warmup "$warmup" "${STEADY_ARGS[@]}" --seed 42 --progress-interval 5
      --workload call --tool "$tool" --args "$args")
    record_command "the measured load (report: stdout)" "${argv[@]}"
    "${argv[@]}" > "$out"
    rc=$?
  else
    local argv=(env SERVER_URL="$url" VUS="$threads" DURATION="$duration" WARMUP="$warmup" TOOL="$tool" ARGS="$args"
      PROTOCOL="$MCPDB_PROTOCOL" python3 "$MCPDB_DIR/k6-with-cpu.py" --k6 "$MCPDB_K6"
      --script "$MCPDB_LOADGEN/k6/mcp-call.js" --warmup "$warmup" --duration "$duration" --out "$cell/k6-cpu.json")
    record_command "the measured load: k6 under a CPU sampler (summary: stdout)" "${argv[@]}"
    "${argv[@]}" > "$out"
    rc=$?
  fi
  set -e
  if pid_alive "$server_pid"; then faults server_alive_after_run=true; else
    faults server_alive_after_run=false
    log "warning: $server (pid $server_pid) was not running at the end of the cell: $(tail -n 3 "$cell/mcp-trivial.err" | tr '\n' ' ')"
  fi
  (( rc == 0 )) || die "$client exited $rc (see stderr)"
  cat "$out"
}
