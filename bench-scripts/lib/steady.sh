# shellcheck shell=bash
# Steady-state warm-up for tools we do not write ourselves. Sourced, not a verb.
#
# A fixed warm-up is not evidence of a steady state (Barrett et al., "Virtual Machine Warmup Blows
# Hot and Cold", OOPSLA 2017; JMH warms up in iterations). The rule, the same as our Go load
# generators' (mcp-load/reserva/pgwire-tp --warmup-max): the load runs in windows of
# STEADY_WINDOW_S seconds; the warm-up ends when the throughputs of the last STEADY_WINDOWS windows
# are all within ±STEADY_TOL of their mean (mean > 0) and at least WARMUP seconds have passed, or
# when WARMUP_MAX seconds have passed (then the cell is still measured, with steady=false).
#
#   steady_warmup STREAM_FN OUT_JSON
#
# STREAM_FN SECONDS must load the system for SECONDS seconds and print one throughput per window on
# stdout as each window ends (one number a line, line-buffered: sed -u; anything else on stderr). It is
# started ONCE, for WARMUP_MAX + 1 window, judged after every window, and stopped as soon as the rule
# holds or the next window would pass WARMUP_MAX: its whole process tree gets TERM (timeout relays it
# to the tool; a tool still there 15 s later gets KILL), and steady_warmup returns only when none of it
# is left, so no warm-up client is still connected when the measured run starts. Only whole windows
# are judged: the tool is stopped before its own end, so the partial window a tool prints while
# exiting never comes. A tool that reports no window, stops before the warm-up is decided, or is
# silent for a window + 30 s (the first: + 120 s, for connecting) failed: steady_warmup returns 1.
# One run, not a fresh run per judgement: a fresh run's first window often reads low.
# The decision and every window's rate go to OUT_JSON (the cell's warmup.json, read by
# pipeline/parsers/warmup.ts):
#   {"mode":"steady","warmup_s":…,"steady":true|false,"window_s":…,"windows":…,"tolerance":…,
#    "min_s":…,"max_s":…,"window_rates":[…]}
# Parameters (profile env): WARMUP (minimum, s), WARMUP_MAX (bound, s; unset = max(2 x WARMUP,
# WARMUP + 2 x STEADY_WINDOWS windows); 0 = a single run of WARMUP seconds, the old fixed warm-up, steady not judged), STEADY_WINDOW_S (1), STEADY_WINDOWS (3),
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
  # WARMUP and WARMUP + 2 x STEADY_WINDOWS windows (ci: 1 s -> 7 s; seed's 10 s -> 20 s). 0 = fixed WARMUP.
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

# steady_stop_tree PID: TERM PID and every process below it (a pipeline's members, timeout, the tool
# under it), KILL what is left after 15 s; returns when none of them is alive.
steady_stop_tree() {
  local tree i k left
  # One ps for the whole tree (a ps per level took 0.6-0.8 s on 2 busy cores).
  mapfile -t tree < <(ps -e -o pid=,ppid= | awk -v root="$1" '{ parent[$1] = $2 }
    END { tree[root] = 1; print root
          do { more = 0; for (p in parent) if (!(p in tree) && (parent[p] in tree)) { tree[p] = 1; print p; more = 1 } } while (more) }')
  kill -TERM "${tree[@]}" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
  for (( i = 0; i < 300; i++ )); do
    left=()
    for k in "${tree[@]}"; do pid_alive "$k" && left+=("$k"); done
    (( ${#left[@]} > 0 )) || return 0
    (( i == 299 )) && { log "warm-up: still running 15 s after TERM, killed: ${left[*]}"; kill -KILL "${left[@]}" 2>/dev/null || true; }
    sleep 0.05
  done
  return 0
}

# steady_now: seconds on a clock that does not jump (/proc/uptime, CLOCK_BOOTTIME, 10 ms steps): a VM's wall
# clock can be stepped by an hour mid-run, which would make a warm-up look overrun (forward) or never bounded
# (backward). Without /proc/uptime, the wall clock.
steady_now() {
  local up rest
  if read -r up rest < /proc/uptime 2>/dev/null; then echo "$up"; else date +%s.%N; fi
}

steady_warmup() {
  local fn="$1" out="$2"
  steady_params
  local win="$STEADY_WINDOW_WHOLE" start elapsed=0 steady=false rates=() line fifo pid fd rrc stop=ended wait_s
  start="$(steady_now)"
  if (( WARMUP_MAX == 0 )); then
    # Fixed warm-up (WARMUP_MAX=0): one run of WARMUP seconds to its end, not judged.
    (( WARMUP > 0 )) && "$fn" "$WARMUP" > /dev/null
    printf '{"mode":"fixed","warmup_s":%s,"steady":null,"min_s":%s,"max_s":%s}\n' \
      "$(awk -v a="$start" -v b="$(steady_now)" 'BEGIN { printf "%.3f", b - a }')" "$WARMUP" "$WARMUP" > "$out"
    return 0
  fi
  fifo="$(mktemp -u "${TMPDIR:-/tmp}/steady.XXXXXX")"
  mkfifo "$fifo" || return 1
  # One run, longer than the bound, so that it is always stopped by us before its own (partial) end.
  "$fn" $(( WARMUP_MAX + win )) > "$fifo" &
  pid=$!
  exec {fd}< "$fifo"
  rm -f "$fifo"
  wait_s=$(( win + 120 ))
  while :; do
    rrc=0
    IFS= read -r -t "$wait_s" -u "$fd" line || rrc=$?
    if (( rrc != 0 )); then (( rrc > 128 )) && stop=silent; break; fi
    # Bounded even if the tool floods us with lines that are not windows.
    awk -v a="$start" -v b="$(steady_now)" -v x=$(( WARMUP_MAX + win + 120 )) 'BEGIN { exit !(b - a <= x) }' || { stop=overrun; break; }
    [[ "$line" =~ ^[0-9.]+$ ]] || continue
    rates+=("$line")
    wait_s=$(( win + 30 ))
    elapsed="$(awk -v a="$start" -v b="$(steady_now)" 'BEGIN { printf "%.3f", b - a }')"
    if awk -v e="$elapsed" -v m="$WARMUP" 'BEGIN { exit !(e >= m) }' && steady_judge "${rates[@]}"; then
      steady=true stop=steady
      break
    fi
    # The next window would pass the bound: measure anyway, steady=false.
    awk -v e="$elapsed" -v w="$win" -v x="$WARMUP_MAX" 'BEGIN { exit !(e + w > x) }' && { stop=bound; break; }
  done
  steady_stop_tree "$pid"
  exec {fd}<&-
  case "$stop" in
    ended) log "warm-up: $fn ended after ${#rates[@]} window(s), before the warm-up was decided"; return 1 ;;
    silent) log "warm-up: $fn reported no window for ${wait_s}s (after ${#rates[@]} window(s)): stopped"; return 1 ;;
    overrun) log "warm-up: $fn printed no usable window past the bound (${#rates[@]} window(s)): stopped"; return 1 ;;
  esac
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
