#!/usr/bin/env python3
"""Runs `k6 run SCRIPT` and measures k6's own CPU per tools/call over a steady-state window.

k6 cannot report its own CPU, and its whole-process CPU includes start-up (Go runtime, the
JavaScript VM of every VU) and the warm-up scenario. So this wrapper:
  1. starts k6 with its REST API on a free loopback port (never the default 6565, which
     another k6 on the machine may hold);
  2. polls the API's mcp_calls counter (k6/mcp-call.js) every 50 ms until a tools/call has
     completed; the counter's rate is count / k6's test-run time, so count / rate is k6's own
     scenario clock at that moment, which maps k6's clock onto ours (whatever the polling lag);
  3. at k6 time warm-up + margin and warm-up + duration - margin (inside the measured
     scenario) it reads the counter and the k6 process's utime+stime (/proc/<pid>/stat, all
     threads) together;
  4. writes --out: CPU seconds and calls between the two samples, per_call_us, and the
     whole-process figure (getrusage of the child) for comparison.
k6's stdout (the script's handleSummary JSON) passes through; of its stderr only the first
STDERR_LINES lines do (k6 logs one warning per failed request: a dead server would otherwise
write megabytes into the cell's stderr), then a count of the rest. Exit status = k6's.
Bounded: k6 is killed after warm-up + duration + 120 s.
"""
import argparse
import json
import os
import resource
import socket
import subprocess
import sys
import threading
import time
import urllib.request

POLL_S = 0.05
STDERR_LINES = 100


def relay_stderr(pipe, counter: list) -> None:
    """Copies the first STDERR_LINES lines of k6's stderr to ours and counts the rest."""
    for n, line in enumerate(iter(pipe.readline, b"")):
        if n < STDERR_LINES:
            sys.stderr.buffer.write(line)
            sys.stderr.flush()
        counter[0] = n + 1


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def proc_cpu_s(pid: int) -> tuple[float, float]:
    """utime, stime of a process (all its threads) in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        stat = f.read()
    fields = stat[stat.rindex(")") + 2:].split()  # after "pid (comm) ": field 3 (state) is index 0
    tick = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tick, int(fields[12]) / tick


def api_counter(port: int) -> tuple[int, float] | None:
    """mcp_calls (count, rate) from k6's REST API."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/metrics/mcp_calls", timeout=1) as r:
            doc = json.load(r)
        sample = doc["data"]["attributes"]["sample"]
        return int(sample["count"]), float(sample["rate"])
    except Exception:  # API not up yet, or the metric has no sample before the first call
        return None


def api_calls(port: int) -> int | None:
    c = api_counter(port)
    return None if c is None else c[0]


def sample(pid: int, port: int) -> dict | None:
    calls = api_calls(port)
    try:
        user, sys_ = proc_cpu_s(pid)
    except OSError:
        return None
    if calls is None:
        return None
    return {"t": time.monotonic(), "calls": calls, "user_s": user, "sys_s": sys_}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--k6", required=True, help="k6 binary")
    ap.add_argument("--script", required=True, help="k6 script (k6/mcp-call.js)")
    ap.add_argument("--warmup", type=float, required=True, help="warm-up seconds (the script's WARMUP)")
    ap.add_argument("--duration", type=float, required=True, help="measured seconds (the script's DURATION)")
    ap.add_argument("--out", required=True, help="where to write the CPU figures (JSON)")
    a = ap.parse_args()
    if a.duration <= 0 or a.warmup < 0:
        print(f"k6-with-cpu: --duration {a.duration} / --warmup {a.warmup}: want duration > 0, warm-up >= 0", file=sys.stderr)
        return 2

    port = free_port()
    cmd = [a.k6, "run", "--quiet", "--no-usage-report", "--address", f"127.0.0.1:{port}", a.script]
    started = time.monotonic()
    deadline = started + a.warmup + a.duration + 120
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE)  # stdout inherited: the summary JSON goes straight through
    stderr_lines = [0]
    relay = threading.Thread(target=relay_stderr, args=(proc.stderr, stderr_lines), daemon=True)
    relay.start()
    margin = min(0.3, a.duration / 10)
    result: dict = {"method": "k6 process utime+stime from /proc/<pid>/stat between two samples inside the measured "
                              "scenario, divided by the tools/call k6 completed between them (k6 REST API counter mcp_calls)",
                    "clk_tck": os.sysconf("SC_CLK_TCK"), "api_port": port, "window": None}
    k6_t0 = None  # our monotonic time at k6's test-run time 0
    while proc.poll() is None and time.monotonic() < deadline:
        asked = time.monotonic()
        c = api_counter(port)
        if c and c[0] > 0 and c[1] > 0:
            k6_t0 = (asked + time.monotonic()) / 2 - c[0] / c[1]
            break
        time.sleep(POLL_S)
    a_sample = b_sample = None
    if k6_t0 is not None:
        for when, name in ((k6_t0 + a.warmup + margin, "a"), (k6_t0 + a.warmup + a.duration - margin, "b")):
            while proc.poll() is None and time.monotonic() < when:
                time.sleep(min(POLL_S * 4, max(0.0, when - time.monotonic())))
            s = sample(proc.pid, port) if proc.poll() is None else None
            if name == "a":
                a_sample = s
            else:
                b_sample = s
    try:
        rc = proc.wait(timeout=max(1.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        print(f"k6-with-cpu: k6 still running {a.warmup + a.duration + 120:.0f} s after start: killed", file=sys.stderr)
        rc = 124
    relay.join(timeout=5)
    if stderr_lines[0] > STDERR_LINES:
        print(f"k6-with-cpu: {stderr_lines[0] - STDERR_LINES} more k6 stderr lines not shown (the first {STDERR_LINES} are above)", file=sys.stderr)
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    result["whole_process"] = {"user_s": round(ru.ru_utime, 4), "sys_s": round(ru.ru_stime, 4), "wall_s": round(time.monotonic() - started, 3),
                               "note": "start-up, warm-up and measured scenario together"}
    if a_sample and b_sample and b_sample["calls"] > a_sample["calls"]:
        cpu = (b_sample["user_s"] - a_sample["user_s"]) + (b_sample["sys_s"] - a_sample["sys_s"])
        calls = b_sample["calls"] - a_sample["calls"]
        result["window"] = {
            # seconds of k6's test-run clock; the measured scenario is [warm-up, warm-up + duration]
            "start_s": round(a_sample["t"] - k6_t0, 3), "end_s": round(b_sample["t"] - k6_t0, 3),
            "calls": calls, "user_s": round(b_sample["user_s"] - a_sample["user_s"], 4),
            "sys_s": round(b_sample["sys_s"] - a_sample["sys_s"], 4),
            "per_call_us": round(cpu / calls * 1e6, 2),
        }
        result["per_call_us"] = result["window"]["per_call_us"]
    else:
        result["per_call_us"] = None
        result["why_no_window"] = ("k6 completed no tools/call" if k6_t0 is None
                                   else "k6 ended before the window's end or completed no call inside it")
        print(f"k6-with-cpu: no CPU window: {result['why_no_window']}", file=sys.stderr)
    with open(a.out, "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    return rc


if __name__ == "__main__":
    sys.exit(main())
