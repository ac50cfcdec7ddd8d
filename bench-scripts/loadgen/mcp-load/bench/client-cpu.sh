#!/usr/bin/env bash
# client-cpu.sh: what one mcp-load call costs the client, against the cheapest MCP server here.
#
# Starts the mcp-servers study's dependencies (Redis + api-service, seeded) and one server
# (bench-scripts/systems/<server>, default mcp-rust) on free 127.0.0.1 ports in a private state folder,
# then runs mcp-load with the study's tool mix (studies/mcp-servers/tools.json, every result checked)
# in a closed loop, --repeats times, and prints one JSON document on stdout:
#   per run: calls, calls/s, errors, client CPU per call (mcp-load's own getrusage over the measured
#   window: cpu.per_call_us; and the whole process from outside: wait4 rusage / every call it made),
#   the server's and the dependencies' CPU per call over the measured window (/proc/<pid>/stat of the
#   process trees, sampled at mcp-load's .measure-start/.measure-end markers);
#   summary: median, min, max of each figure; the load average (before/after) and the machine.
# Everything is stopped on exit.
#
# Usage: client-cpu.sh [--server mcp-rust|mcp-go] [--concurrency N] [--duration S] [--warmup S]
#                      [--repeats N] [--bin PATH_TO_MCP_LOAD] [--cpuprofile FILE]
# Defaults: mcp-rust, the quick profile's mcp-servers concurrency (pipeline/profiles/quick.json),
# 5 s measured after a 2 s warm-up, 3 repeats, bin/mcp-load (built by ../build when missing).
# Every run is bounded: mcp-load's --duration/--warmup/--max-calls, and a timeout around it.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
mod="$(dirname "$here")"
root="$(cd "$mod/../../.." && pwd)"
export PATH="/usr/local/go/bin:$PATH"

server=mcp-rust concurrency="" duration=5 warmup=2 repeats=3 bin="" cpuprofile=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --server) server="$2"; shift 2 ;;
    --concurrency) concurrency="$2"; shift 2 ;;
    --duration) duration="$2"; shift 2 ;;
    --warmup) warmup="$2"; shift 2 ;;
    --repeats) repeats="$2"; shift 2 ;;
    --bin) bin="$2"; shift 2 ;;
    --cpuprofile) cpuprofile="$2"; shift 2 ;;
    *) echo "client-cpu.sh: unknown argument '$1' (valid: --server, --concurrency, --duration, --warmup, --repeats, --bin, --cpuprofile)" >&2; exit 2 ;;
  esac
done
case "$server" in
  mcp-rust|mcp-go) ;;
  *) echo "client-cpu.sh: --server '$server' is not valid (valid: mcp-rust, mcp-go)" >&2; exit 2 ;;
esac
[[ "$repeats" =~ ^[1-9][0-9]?$ ]] || { echo "client-cpu.sh: --repeats '$repeats': want 1..99" >&2; exit 2; }
for v in "$duration" "$warmup"; do
  [[ "$v" =~ ^[0-9]+(\.[0-9]+)?$ ]] && awk -v x="$v" 'BEGIN { exit !(x <= 600) }' ||
    { echo "client-cpu.sh: --duration/--warmup '$v': want seconds, at most 600" >&2; exit 2; }
done
if [[ -z "$concurrency" ]]; then
  concurrency="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["studies"]["mcp-servers"]["concurrency"][0])' "$root/pipeline/profiles/quick.json")"
fi
[[ "$concurrency" =~ ^[1-9][0-9]{0,3}$ ]] || { echo "client-cpu.sh: --concurrency '$concurrency': want 1..9999" >&2; exit 2; }
if [[ -z "$bin" ]]; then
  bin="$mod/bin/mcp-load"
  "$mod/build" >&2
fi
[[ -x "$bin" ]] || { echo "client-cpu.sh: $bin is not an executable" >&2; exit 2; }

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
state="$(mktemp -d /tmp/mcp-load-client-cpu.XXXXXX)"
export SAMEBOX_STATE="$state"
SAMEBOX_REDIS_PORT="$(free_port)"; SAMEBOX_API_PORT="$(free_port)"; SAMEBOX_MCP_PORT="$(free_port)"
export SAMEBOX_REDIS_PORT SAMEBOX_API_PORT SAMEBOX_MCP_PORT
export REDIS_URL="redis://127.0.0.1:$SAMEBOX_REDIS_PORT" API_SERVICE_URL="http://127.0.0.1:$SAMEBOX_API_PORT"
study="$root/bench-scripts/studies/mcp-servers"
sysdir="$root/bench-scripts/systems/$server"
cleanup() {
  bash "$sysdir/stop" >/dev/null 2>&1 || true
  bash "$study/deps" stop >/dev/null 2>&1 || true
  rm -rf "$state"
}
trap cleanup EXIT

bash "$sysdir/install" >&2 || { echo "client-cpu.sh: $server install failed (exit $?)" >&2; exit 1; }
bash "$study/deps" start >&2
bash "$sysdir/start" >&2
url="$(bash "$sysdir/env" | sed -n 's/^MCP_URL=//p')"
server_pids="$(bash "$sysdir/pids" | paste -sd' ')"
deps_pids="$(bash "$study/deps" status | sed -n 's/^\(REDIS\|API_SERVICE\)_PID=//p' | paste -sd' ')"

python3 - "$bin" "$url" "$study/tools.json" "$concurrency" "$duration" "$warmup" "$repeats" \
  "$server" "$server_pids" "$deps_pids" "$state" "$cpuprofile" <<'PY'
import json, os, platform, statistics, subprocess, sys, threading, time

(binp, url, mix, conc, dur, warm, reps, server, spids, dpids, state, prof) = sys.argv[1:]
conc, dur, warm, reps = int(conc), float(dur), float(warm), int(reps)
tick = os.sysconf("SC_CLK_TCK")

def tree(pids):
    """The pids and all their descendants (from /proc)."""
    children = {}
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                with open(f"/proc/{p}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                children.setdefault(ppid, []).append(int(p))
            except OSError:
                pass
    out, todo = [], [int(p) for p in pids.split()]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, []))
    return out

def cpu_s(pids):
    total = 0
    for p in pids:
        try:
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
        except OSError:
            pass
    return total / tick

def loadavg():
    with open("/proc/loadavg") as f:
        return [float(x) for x in f.read().split()[:3]]

def wait_for(path, proc, limit):
    end = time.monotonic() + limit
    while time.monotonic() < end and proc.poll() is None:
        if os.path.exists(path):
            return True
        time.sleep(0.005)
    return os.path.exists(path)

runs = []
load_before = loadavg()
for i in range(reps):
    mark = os.path.join(state, f"marks-{i}")
    os.makedirs(mark)
    cmd = [binp, "--url", url, "--protocol", "2025-06-18", "--mix", mix, "--concurrency", str(conc),
           "--warmup", str(warm), "--duration", str(dur), "--seed", "42", "--progress-interval", "0",
           "--mark-dir", mark]
    if prof:
        cmd += ["--cpuprofile", f"{prof}.{i}" if reps > 1 else prof]
    sp, dp = tree(spids), tree(dpids)
    la = loadavg()
    errf = open(os.path.join(state, f"stderr-{i}"), "w+b")
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=errf)
    killer = threading.Timer(warm + dur + 90, proc.kill)  # mcp-load bounds itself; this bounds a hang
    killer.start()
    s0 = d0 = s1 = d1 = None
    if wait_for(os.path.join(mark, ".measure-start"), proc, warm + 30):
        s0, d0 = cpu_s(sp), cpu_s(dp)
    if wait_for(os.path.join(mark, ".measure-end"), proc, dur + 30):
        s1, d1 = cpu_s(sp), cpu_s(dp)
    out = proc.stdout.read()
    _, status, ru = os.wait4(proc.pid, 0)  # the whole client process's rusage, start-up and warm-up included
    proc.returncode = os.waitstatus_to_exitcode(status)
    killer.cancel()
    errf.seek(0)
    err = errf.read()
    rep = json.loads(out) if proc.returncode == 0 else None
    if rep is None:
        sys.exit(f"client-cpu.sh: mcp-load exit {proc.returncode}: {err.decode()[-400:]}")
    calls = rep["calls"]
    run = {"calls": calls, "ok": rep["ok"], "errors": rep["errors"]["total"], "calls_per_s": rep["throughput_per_s"],
           "duration_s": rep["duration_s"], "client_cpu_per_call_us": rep["cpu"]["per_call_us"],
           "client_user_s": rep["cpu"]["user_s"], "client_sys_s": rep["cpu"]["sys_s"],
           "client_whole_process_cpu_per_call_us": round((ru.ru_utime + ru.ru_stime) / rep["whole_run"]["calls"] * 1e6, 1) if rep["whole_run"]["calls"] else None,
           "latency_p50_ms": (rep["latency_ms"] or {}).get("p50"), "load_avg_1m": la[0]}
    if s0 is not None and s1 is not None and calls:
        run["server_cpu_per_call_us"] = round((s1 - s0) / calls * 1e6, 1)
        run["deps_cpu_per_call_us"] = round((d1 - d0) / calls * 1e6, 1)
    runs.append(run)
    print(f"client-cpu.sh: run {i + 1}/{reps}: {run['calls_per_s']} calls/s, client {run['client_cpu_per_call_us']} us/call, "
          f"server {run.get('server_cpu_per_call_us')} us/call, errors {run['errors']}, load {la[0]}", file=sys.stderr)

def summary(key):
    xs = [r[key] for r in runs if r.get(key) is not None]
    if not xs:
        return None
    return {"median": round(statistics.median(xs), 2), "min": min(xs), "max": max(xs), "n": len(xs)}

with open("/proc/cpuinfo") as f:
    model = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "")
doc = {
    "benchmark": "mcp-load client CPU per call",
    "server": server, "url": url, "mix": "bench-scripts/studies/mcp-servers/tools.json",
    "protocol": "2025-06-18", "concurrency": conc, "duration_s": dur, "warmup_s": warm, "repeats": reps,
    "mcp_load_version": subprocess.run([binp, "--version"], capture_output=True, text=True).stdout.strip(),
    "machine": {"cpus": os.cpu_count(), "model": model, "kernel": platform.release()},
    "load_avg_before": load_before, "load_avg_after": loadavg(),
    "summary": {k: summary(k) for k in ("client_cpu_per_call_us", "client_whole_process_cpu_per_call_us", "calls_per_s", "server_cpu_per_call_us", "deps_cpu_per_call_us", "latency_p50_ms")},
    "runs": runs,
}
print(json.dumps(doc, indent=1))
PY
