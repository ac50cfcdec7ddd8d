#!/usr/bin/env python3
"""measure.py --cell DIR --kind mcp-load|k6 [--server-pids "P ..."] [--redis-pid P] [--api-pid P]
             [--timeout S] -- CMD...

Runs one load command (mcp-load or k6) and samples /proc every 0.25 s while it runs: the CPU
time (utime+stime+cutime+cstime) of the MCP server's whole process tree (cluster/uvicorn
workers, JVM threads), of Redis, of the api-service and of the load generator itself, and the
server tree's RSS. After the command ends it takes the measured window from the tool's own
output (mcp-load: measure_start/measure_end of its report; k6: the SAMEBOX_K6_START_MS line its
setup() logs plus the report's warmup_s .. ramp_up_s + hold_s) and writes DIR/resources.json:
CPU seconds of each component inside that window (cumulative series interpolated at the
window's ends) and the server's RSS average and peak over the samples inside it.
stdout of CMD goes to DIR/load.json, stderr to DIR/load.stderr (first lines also to ours).
Exit status = CMD's (124 when it ran past --timeout and was killed).

The window's end is never cut short: the tool exits within a sampling interval of its
window's end, so the last sample taken while it ran was often before that end and the CPU of the
last up-to-0.25 s (more on a busy box) was missing (85 of 164 mcp-load cells). One more sample is
taken after the tool exited (the server, Redis and the api-service still run; the load
generator's total is its reaped CPU from getrusage(RUSAGE_CHILDREN)), so the value at the end is
interpolated between two samples around it.

--k6-window "W E" (k6 only): W and E are the seconds after k6's SAMEBOX_K6_START_MS at which
its measured window starts and ends; measure.py touches DIR/.measure-start and DIR/.measure-end
at those moments, so the runner's server CPU/memory (cpu_util, mem_load) cover the same window.
(mcp-load touches the markers itself: --mark-dir.)
"""
import argparse
import json
import os
import re
import resource
import signal
import subprocess
import sys
import time
from datetime import datetime

INTERVAL_S = 0.25
TICK = os.sysconf("SC_CLK_TCK")
PAGE_KIB = os.sysconf("SC_PAGE_SIZE") // 1024


def all_stats():
    """pid -> (ppid, cpu ticks incl. reaped children, rss KiB) for every process."""
    out = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                s = f.read()
        except OSError:
            continue
        fields = s[s.rindex(")") + 2:].split()
        # fields[1]=ppid, [11..14]=utime stime cutime cstime, [21]=rss pages
        out[int(name)] = (int(fields[1]), sum(int(x) for x in fields[11:15]), int(fields[21]) * PAGE_KIB)
    return out


def tree(stats, roots):
    members = {r for r in roots if r in stats}
    grew = True
    while grew:
        grew = False
        for pid, (ppid, _, _) in stats.items():
            if pid not in members and ppid in members:
                members.add(pid)
                grew = True
    return members


def sample(groups):
    stats = all_stats()
    row = {"t": time.time()}
    for name, roots in groups.items():
        members = tree(stats, roots)
        row[name + "_cpu"] = sum(stats[p][1] for p in members) / TICK
        if name == "server":
            row["server_rss_kib"] = sum(stats[p][2] for p in members)
            row["server_procs"] = len(members)
    return row


def at(series, key, t):
    """The cumulative value of key at time t, linearly interpolated between samples."""
    prev = None
    for row in series:
        if row["t"] >= t:
            if prev is None:
                return row[key]
            span = row["t"] - prev["t"]
            w = (t - prev["t"]) / span if span > 0 else 1.0
            return prev[key] + w * (row[key] - prev[key])
        prev = row
    return series[-1][key] if series else 0.0


def iso_to_epoch(s):
    # Go's RFC3339Nano has up to 9 fractional digits; Python parses up to 6.
    m = re.match(r"^(.*T\d\d:\d\d:\d\d)(\.\d+)?(Z|[+-]\d\d:\d\d)$", s)
    if not m:
        raise ValueError(f"not an RFC 3339 time: {s!r}")
    base = datetime.fromisoformat(m.group(1) + ("+00:00" if m.group(3) == "Z" else m.group(3)))
    return base.timestamp() + (float(m.group(2)) if m.group(2) else 0.0)


def window_of(kind, stdout_text, stderr_text):
    doc = json.loads(stdout_text[stdout_text.index("{"):])
    if kind == "mcp-load":
        return iso_to_epoch(doc["measure_start"]), iso_to_epoch(doc["measure_end"])
    m = re.search(r"SAMEBOX_K6_START_MS=(\d+)", stderr_text)
    if not m:
        raise ValueError("k6 stderr has no SAMEBOX_K6_START_MS line (setup() did not run?)")
    start = int(m.group(1)) / 1000
    return start + doc["warmup_s"], start + doc["ramp_up_s"] + doc["hold_s"]


def main():
    ap = argparse.ArgumentParser(prog="measure.py")
    ap.add_argument("--cell", required=True)
    ap.add_argument("--kind", required=True, choices=["mcp-load", "k6"])
    ap.add_argument("--server-pids", default="")
    ap.add_argument("--redis-pid", type=int, default=0)
    ap.add_argument("--api-pid", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=900)
    ap.add_argument("--k6-window", default="", help='k6: "W E" seconds after SAMEBOX_K6_START_MS: touch the measured-window markers')
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd
    if not cmd:
        print("measure.py: no command after -- (valid: measure.py --cell DIR --kind k6 -- k6 run ...)", file=sys.stderr)
        sys.exit(2)
    server_pids = [int(p) for p in a.server_pids.split()]
    out_path, err_path = os.path.join(a.cell, "load.json"), os.path.join(a.cell, "load.stderr")
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, start_new_session=True)
        groups = {"server": server_pids, "redis": [a.redis_pid], "api_service": [a.api_pid], "loadgen": [proc.pid]}
        series = []
        deadline = time.time() + a.timeout
        rc = None
        k6_window = [float(x) for x in a.k6_window.split()] if a.k6_window else None
        k6_start, marked = None, set()
        while rc is None:
            row = sample(groups)
            series.append(row)
            if k6_window:
                if k6_start is None:
                    m = re.search(r"SAMEBOX_K6_START_MS=(\d+)", open(err_path, errors="replace").read())
                    k6_start = int(m.group(1)) / 1000 if m else None
                if k6_start is not None:
                    for name, at_s in ((".measure-start", k6_window[0]), (".measure-end", k6_window[1])):
                        if name not in marked and time.time() >= k6_start + at_s and (name == ".measure-start" or ".measure-start" in marked):
                            open(os.path.join(a.cell, name), "w").close()
                            marked.add(name)
            if time.time() > deadline:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                rc = 124
                break
            try:
                rc = proc.wait(timeout=INTERVAL_S)
            except subprocess.TimeoutExpired:
                pass
        # The load generator has exited: one more sample so the window's end lies between two
        # samples; the load generator's cumulative CPU is now its reaped time (RUSAGE_CHILDREN).
        last = sample({g: roots for g, roots in groups.items() if g != "loadgen"})
        ru = resource.getrusage(resource.RUSAGE_CHILDREN)
        last["loadgen_cpu"] = max(ru.ru_utime + ru.ru_stime, series[-1]["loadgen_cpu"] if series else 0.0)
        series.append(last)
        if k6_window and ".measure-start" in marked and ".measure-end" not in marked:
            open(os.path.join(a.cell, ".measure-end"), "w").close()
    stdout_text = open(out_path).read()
    stderr_text = open(err_path, errors="replace").read()
    sys.stderr.write("".join(stderr_text.splitlines(True)[:40]))
    res = {"kind": a.kind, "interval_s": INTERVAL_S, "samples": len(series), "exit_code": rc}
    try:
        start, end = window_of(a.kind, stdout_text, stderr_text)
        inside = [r for r in series if start <= r["t"] <= end]
        res["window"] = {"start": start, "end": end, "seconds": round(end - start, 3), "samples": len(inside)}
        for g in groups:
            res[g] = {"cpu_s": round(at(series, g + "_cpu", end) - at(series, g + "_cpu", start), 4)}
        if server_pids and inside:
            rss = [r["server_rss_kib"] / 1024 for r in inside]
            res["server"].update({"rss_avg_mib": round(sum(rss) / len(rss), 1), "rss_peak_mib": round(max(rss), 1),
                                  "processes": max(r["server_procs"] for r in inside)})
        if series and series[-1]["t"] < end:
            res["warning"] = "the last sample is before the window's end: CPU figures are cut short"
    except (ValueError, KeyError) as e:
        res["error"] = f"no measured window: {e}"
    with open(os.path.join(a.cell, "resources.json"), "w") as f:
        json.dump(res, f, indent=1)
    sys.exit(rc)


if __name__ == "__main__":
    main()
