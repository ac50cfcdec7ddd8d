#!/usr/bin/env python3
"""summary.py <run-dir> [--published data/published/seed-003.csv]: one markdown table per run of the
mcp-servers study — per server the medians over repetitions of mcp-load closed-loop calls/s, p50, p99,
server RSS avg, server CPU-seconds per 1,000 calls, k6 tool calls/s and seed-way RPS, the load
generators' CPU per call and the harness ratio (mcp-load / k6), beside the seed's published RPS,
avg latency and RAM. For the closing note; the site shows the same with intervals."""
import csv
import os
import statistics
import sys
from collections import defaultdict


def main():
    if len(sys.argv) < 2 or not os.path.isfile(os.path.join(sys.argv[1], "records.csv")):
        print("usage: summary.py <run-dir with records.csv> [--published FILE]", file=sys.stderr)
        sys.exit(2)
    run = sys.argv[1]
    pub_file = sys.argv[sys.argv.index("--published") + 1] if "--published" in sys.argv else \
        os.path.join(os.path.dirname(__file__), "../../../data/published/seed-003.csv")
    vals = defaultdict(list)
    for r in csv.DictReader(open(os.path.join(run, "records.csv"))):
        if r["study"] == "mcp-servers" and r["t"] == "":
            vals[(r["system"], r["workload"], r["metric"])].append(float(r["value"]))
    pub = defaultdict(dict)
    if os.path.isfile(pub_file):
        for r in csv.DictReader(open(pub_file)):
            pub[r["system"]][r["metric"]] = float(r["value"])
    systems = sorted({k[0] for k in vals})

    def m(s, w, metric):
        v = vals.get((s, w, metric))
        return statistics.median(v) if v else None

    def f(x, d=1):
        return "–" if x is None else (f"{x:,.0f}" if abs(x) >= 100 else f"{x:.{d}f}")

    print("| server | n | closed calls/s | p50 ms | p99 ms | RSS avg MiB | server CPU s/1k calls | k6 calls/s | k6 seed-way RPS | "
          "mcp-load µs/call | k6 µs/call | ratio | published RPS | published avg ms | published RAM MB |")
    print("|" + "---|" * 15)
    ratios = []
    for s in systems:
        ml, k6 = m(s, "closed_loop", "loadgen_cpu_per_call"), m(s, "seed_k6", "loadgen_cpu_per_call")
        ratio = ml / k6 if ml and k6 else None
        if ratio:
            ratios.append(ratio)
        n = len(vals.get((s, "closed_loop", "throughput"), []))
        print(f"| {s} | {n} | {f(m(s, 'closed_loop', 'throughput'))} | {f(m(s, 'closed_loop', 'latency_p50'))} | "
              f"{f(m(s, 'closed_loop', 'latency_p99'))} | {f(m(s, 'closed_loop', 'server_rss_avg'))} | "
              f"{f(m(s, 'closed_loop', 'server_cpu_per_1k_calls'), 2)} | {f(m(s, 'seed_k6', 'throughput'))} | "
              f"{f(m(s, 'seed_k6', 'seed_way_rps'))} | {f(ml)} | {f(k6)} | {f(ratio, 2)} | "
              f"{f(pub[s].get('seed_way_rps'))} | {f(pub[s].get('seed_way_latency_mean'), 2)} | {f(pub[s].get('server_mem_avg'))} |")
    if ratios:
        print(f"\nharness ratio (mcp-load CPU per call / k6's, same server, same run): median {statistics.median(ratios):.3f}, "
              f"max {max(ratios):.3f} over {len(ratios)} servers (bar: <= 0.333)")


if __name__ == "__main__":
    main()
