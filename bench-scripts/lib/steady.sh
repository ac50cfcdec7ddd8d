# shellcheck shell=bash
# Steady-state warm-up for tools we do not write ourselves (issue 18). Sourced, not a verb.
#
# A fixed warm-up is not evidence of a steady state (Barrett et al., "Virtual Machine Warmup Blows
# Hot and Cold", OOPSLA 2017; JMH warms up in iterations). The rule, the same as our Go load
# generators' (mcp-load/reserva/pgwire-tp --warmup-max): the load runs in windows of
# STEADY_WINDOW_S seconds; the warm-up ends when the throughputs of the last STEADY_WINDOWS windows
# are all within ±STEADY_TOL of their mean (mean > 0) and at least WARMUP seconds have passed, or
# when WARMUP_MAX seconds have passed (then the cell is still measured, with steady=false).
#
#   steady_warmup CHUNK_FN OUT_JSON
#
# CHUNK_FN SECONDS must load the system for SECONDS seconds and print one throughput per window
# on stdout (one number a line; anything else on stderr; a chunk with no number = the tool failed,
# steady_warmup returns 1). It is called repeatedly with
# (STEADY_WINDOWS + 1) x STEADY_WINDOW_S seconds (a chunk: a short run of the tool with a report every
# window) until the last STEADY_WINDOWS windows agree or the bound is reached. The decision and every
# window's rate go to OUT_JSON (the cell's warmup.json, read by pipeline/parsers/warmup.ts):
#   {"mode":"steady","warmup_s":…,"steady":true|false,"window_s":…,"windows":…,"tolerance":…,
#    "min_s":…,"max_s":…,"window_rates":[…]}
# Parameters (profile env): WARMUP (minimum, s), WARMUP_MAX (bound, s; unset = max(2 x WARMUP,
# WARMUP + 2 chunks); 0 = a single run of WARMUP seconds, the old fixed warm-up, steady not judged), STEADY_WINDOW_S (1), STEADY_WINDOWS (3),
# STEADY_TOL (0.05), STEADY_DRIFT (0 = not checked; mcp-load only: also the mean of the last
# STEADY_WINDOWS windows within ±STEADY_DRIFT of the mean of the STEADY_WINDOWS before them, for
# servers whose JIT rises too slowly for the ±STEADY_TOL rule to see).

steady_params() {
  WARMUP="${WARMUP:-0}"
  STEADY_WINDOW_S="${STEADY_WINDOW_S:-1}"
  STEADY_WINDOWS="${STEADY_WINDOWS:-3}"
  STEADY_TOL="${STEADY_TOL:-0.05}"
  STEADY_DRIFT="${STEADY_DRIFT:-0}"
  [[ "$WARMUP" =~ ^[0-9]+$ ]] || die "WARMUP='$WARMUP' is not valid (valid: whole seconds)"
  # Every profile warms up until steady: a profile without WARMUP_MAX gets the larger of twice its
  # WARMUP and WARMUP + two chunks of windows (ci: 1 s -> 7 s; seed's 10 s -> 20 s). 0 = fixed WARMUP.
  # Our Go tools take fractional windows (0.5 s at hundreds of calls/s); sysbench/pgbench report
  # every whole second, so steady_warmup rounds the window up to whole seconds for them.
  STEADY_WINDOW_WHOLE="$(awk -v w="$STEADY_WINDOW_S" 'BEGIN { x = int(w); if (x < w) x++; if (x < 1) x = 1; print x }')"
  if [[ -z "${WARMUP_MAX:-}" && "$STEADY_WINDOWS" =~ ^[0-9]+$ ]]; then
    WARMUP_MAX=$(( 2 * WARMUP > WARMUP + 2 * STEADY_WINDOWS * STEADY_WINDOW_WHOLE ? 2 * WARMUP : WARMUP + 2 * STEADY_WINDOWS * STEADY_WINDOW_WHOLE ))
  fi
  WARMUP_MAX="${WARMUP_MAX:-0}"
  [[ "$WARMUP_MAX" =~ ^[0-9]+$ ]] || die "WARMUP_MAX='$WARMUP_MAX' is not valid (valid: whole seconds, 0 = fixed WARMUP)"
  if ! [[ "$STEADY_WINDOW_S" =~ ^[0-9]*\.?[0-9]+$ ]] || ! awk -v w="$STEADY_WINDOW_S" 'BEGIN { exit !(w >= 0.1 && w <= 60) }'; then
    die "STEADY_WINDOW_S='$STEADY_WINDOW_S' is not valid (valid: seconds from 0.1 to 60; sysbench/pgbench use it rounded up to whole seconds)"
  fi
  if ! [[ "$STEADY_WINDOWS" =~ ^[0-9]+$ ]] || (( STEADY_WINDOWS < 2 || STEADY_WINDOWS > 60 )); then
    die "STEADY_WINDOWS='$STEADY_WINDOWS' is not valid (valid: 2..60)"
  fi
  awk -v t="$STEADY_TOL" 'BEGIN { exit !(t ~ /^[0-9.]+$/ && t > 0 && t < 1) }' \
    || die "STEADY_TOL='$STEADY_TOL' is not valid (valid: a fraction between 0 and 1, e.g. 0.05)"
  awk -v t="$STEADY_DRIFT" 'BEGIN { exit !(t ~ /^[0-9.]+$/ && t >= 0 && t < 1) }' \
    || die "STEADY_DRIFT='$STEADY_DRIFT' is not valid (valid: 0 = not checked, or a fraction below 1, e.g. 0.05)"
  if (( WARMUP_MAX > 0 && WARMUP_MAX < WARMUP )); then
    die "WARMUP_MAX=$WARMUP_MAX is below WARMUP=$WARMUP (the minimum warm-up)"
  fi
}

# steady_judge RATE...: exit 0 when the last STEADY_WINDOWS rates are within ±STEADY_TOL of their mean.
steady_judge() {
  printf '%s\n' "$@" | awk -v k="$STEADY_WINDOWS" -v tol="$STEADY_TOL" '
    /^[0-9.eE+-]+$/ { r[n++] = $1 + 0 }
    END {
      if (n < k) exit 1
      for (i = n - k; i < n; i++) s += r[i]
      m = s / k
      if (m <= 0) exit 1
      for (i = n - k; i < n; i++) { d = r[i] - m; if (d < 0) d = -d; if (d > tol * m) exit 1 }
      exit 0
    }'
}

steady_warmup() {
  local chunk_fn="$1" out="$2"
  steady_params
  # A chunk is one window longer than the rule needs: a tool started for N s reports N-1 or N
  # windows, the last of which may be cut short by its exit; the first STEADY_WINDOWS are kept.
  local win="$STEADY_WINDOW_WHOLE"
  local chunk=$(( (STEADY_WINDOWS + 1) * win )) start now elapsed steady=false rates=() line chunk_rates
  start="$(date +%s.%N)"
  if (( WARMUP_MAX == 0 )); then
    # Fixed warm-up (profiles without WARMUP_MAX): one run of WARMUP seconds, not judged.
    (( WARMUP > 0 )) && "$chunk_fn" "$WARMUP" > /dev/null
    now="$(date +%s.%N)"
    printf '{"mode":"fixed","warmup_s":%s,"steady":null,"min_s":%s,"max_s":%s}\n' \
      "$(awk -v a="$start" -v b="$now" 'BEGIN { printf "%.3f", b - a }')" "$WARMUP" "$WARMUP" > "$out"
    return 0
  fi
  while :; do
    chunk_rates=()
    while IFS= read -r line; do
      [[ "$line" =~ ^[0-9.]+$ ]] && chunk_rates+=("$line")
    done < <("$chunk_fn" "$chunk")
    # Only the first STEADY_WINDOWS reports of a chunk are whole windows: the last one a tool prints
    # as it stops may cover its shutdown (seen: sysbench's 4th second at a fifth of the others).
    chunk_rates=("${chunk_rates[@]:0:STEADY_WINDOWS}")
    # A chunk that reported no window at all means the tool failed: the caller says so.
    (( ${#chunk_rates[@]} > 0 )) || { log "warm-up: $chunk_fn reported no throughput window"; return 1; }
    rates+=("${chunk_rates[@]}")
    now="$(date +%s.%N)"
    elapsed="$(awk -v a="$start" -v b="$now" 'BEGIN { printf "%.3f", b - a }')"
    # Judge the last STEADY_WINDOWS windows of the whole warm-up (they may span two chunks).
    if awk -v e="$elapsed" -v m="$WARMUP" 'BEGIN { exit !(e >= m) }' && steady_judge "${rates[@]}"; then
      steady=true
      break
    fi
    # Another chunk would pass the bound: measure anyway, steady=false.
    awk -v e="$elapsed" -v c="$chunk" -v x="$WARMUP_MAX" 'BEGIN { exit !(e + c > x) }' && break
  done
  log "warm-up: ${elapsed}s, steady=$steady (last ${STEADY_WINDOWS} windows of ${win}s within ±${STEADY_TOL}; bound ${WARMUP_MAX}s)"
  printf '{"mode":"steady","warmup_s":%s,"steady":%s,"window_s":%s,"windows":%s,"tolerance":%s,"min_s":%s,"max_s":%s,"window_rates":[%s]}\n' \
    "$elapsed" "$steady" "$win" "$STEADY_WINDOWS" "$STEADY_TOL" "$WARMUP" "$WARMUP_MAX" \
    "$(IFS=,; echo "${rates[*]}")" > "$out"
}

# steady_warmup_stream STREAM_FN OUT_JSON: the same rule from ONE run of the tool. STREAM_FN SECONDS
# loads the system for SECONDS seconds and prints one throughput per window as each window ends
# (line-buffered: sed -u); it is started once for WARMUP_MAX + 1 window, judged after every window, and
# stopped (TERM to its pipeline; timeout passes it on to the tool) as soon as the rule holds or the
# next window would pass WARMUP_MAX. One process instead of a fresh one per chunk: a fresh process's
# first window often reads low (connections, prepared statements), which every chunk repeated, so a
# chunked warm-up took 4 s at best and 8 s whenever the first window of its chunk was low (3 of 56
# oltp cells in 20261128T165043Z-quick-vm). Only whole windows are judged: the tool is stopped before it
# ends on its own, so the partial window it would print while exiting never comes. Writes OUT_JSON as
# steady_warmup does; returns 1 when the tool reported no window. WARMUP_MAX=0 = steady_warmup's fixed run.
steady_warmup_stream() {
  local stream_fn="$1" out="$2"
  steady_params
  if (( WARMUP_MAX == 0 )); then steady_warmup "$stream_fn" "$out"; return; fi
  local win="$STEADY_WINDOW_WHOLE" start elapsed=0 steady=false rates=() line fifo pid fd
  fifo="$(mktemp -u "${TMPDIR:-/tmp}/steady.XXXXXX")"
  mkfifo "$fifo"
  start="$(date +%s.%N)"
  "$stream_fn" $(( WARMUP_MAX + win )) > "$fifo" &
  pid=$!
  exec {fd}< "$fifo"
  # A window that does not come within win + 30 s means the tool hung: stop waiting (bounded).
  while IFS= read -r -t $(( win + 30 )) -u "$fd" line; do
    [[ "$line" =~ ^[0-9.]+$ ]] || continue
    rates+=("$line")
    elapsed="$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')"
    if awk -v e="$elapsed" -v m="$WARMUP" 'BEGIN { exit !(e >= m) }' && steady_judge "${rates[@]}"; then
      steady=true
      break
    fi
    awk -v e="$elapsed" -v w="$win" -v x="$WARMUP_MAX" 'BEGIN { exit !(e + w > x) }' && break
  done
  # The pipeline's members are the background subshell's children; timeout relays TERM to the tool.
  pkill -TERM -P "$pid" 2>/dev/null || true
  kill -TERM "$pid" 2>/dev/null || true
  exec {fd}<&-
  wait "$pid" 2>/dev/null || true
  rm -f "$fifo"
  (( ${#rates[@]} > 0 )) || { log "warm-up: $stream_fn reported no throughput window"; return 1; }
  log "warm-up: ${elapsed}s in one run, steady=$steady (last ${STEADY_WINDOWS} windows of ${win}s within ±${STEADY_TOL}; bound ${WARMUP_MAX}s)"
  printf '{"mode":"steady","warmup_s":%s,"steady":%s,"window_s":%s,"windows":%s,"tolerance":%s,"min_s":%s,"max_s":%s,"window_rates":[%s]}\n' \
    "$elapsed" "$steady" "$win" "$STEADY_WINDOWS" "$STEADY_TOL" "$WARMUP" "$WARMUP_MAX" \
    "$(IFS=,; echo "${rates[*]}")" > "$out"
}

# steady_args STYLE: sets STEADY_ARGS to our Go load generators' flags for the same rule (empty
# when WARMUP_MAX is 0: the tool's fixed --warmup). STYLE: seconds (mcp-load: numbers of seconds)
# or duration (reserva, pgwire-tp: Go durations such as 20s). The tool's --warmup stays the minimum.
# shellcheck disable=SC2034  # STEADY_ARGS is read by the verbs that source this file
steady_args() {
  steady_params
  STEADY_ARGS=()
  (( WARMUP_MAX > 0 )) || return 0
  case "$1" in
    seconds) STEADY_ARGS=(--warmup-max "$WARMUP_MAX" --warmup-window "$STEADY_WINDOW_S" --warmup-windows "$STEADY_WINDOWS" --warmup-tol "$STEADY_TOL" --warmup-drift "$STEADY_DRIFT") ;;
    duration) STEADY_ARGS=(-warmup-max "${WARMUP_MAX}s" -warmup-window "${STEADY_WINDOW_S}s" -warmup-windows "$STEADY_WINDOWS" -warmup-tol "$STEADY_TOL") ;;
    *) die "steady_args: style '$1' is not valid (valid: seconds, duration)" ;;
  esac
}

# steady_bound: the longest warm-up a cell can take (for the cell's own timeouts).
steady_bound() { steady_params; echo $(( WARMUP_MAX > WARMUP ? WARMUP_MAX : WARMUP )); }
