#!/usr/bin/env python3
"""Median round trip of one byte between two processes over pipes, both on CPU 0 and on CPUs 0 and 1, in µs.

A client/server query is such a round trip. Across vCPUs, each direction wakes an idle vCPU; where the guest's
idle vCPUs halt without polling (haltpoll with guest_halt_poll_ns 0, as on the development VM) that wake-up costs
the hypervisor a rescheduling, which a busy host delays. Measured 2026-11-29 on the 2-vCPU VM: 7-9 µs on one vCPU,
71-92 µs across two, while psql batches of short queries ran 2.6x (mskql) and 1.3x (PostgreSQL) slower with client
and server on different vCPUs than on one. Python because it can fork and pin (os.sched_setaffinity) without a
compiler; prints one JSON object, or exits 3 on a machine with fewer than two CPUs."""
import json
import os
import sys
import time

ROUND_TRIPS, WARM_UP = 2000, 100


def median_round_trip_us(cpu_parent: int, cpu_child: int) -> float:
    to_child, to_parent = os.pipe(), os.pipe()
    pid = os.fork()
    if pid == 0:
        os.sched_setaffinity(0, {cpu_child})
        for _ in range(ROUND_TRIPS + WARM_UP):
            os.read(to_child[0], 1)
            os.write(to_parent[1], b"x")
        os._exit(0)
    os.sched_setaffinity(0, {cpu_parent})
    times = []
    for _ in range(ROUND_TRIPS + WARM_UP):
        t0 = time.perf_counter()
        os.write(to_child[1], b"x")
        os.read(to_parent[0], 1)
        times.append(time.perf_counter() - t0)
    os.waitpid(pid, 0)
    for fd in (*to_child, *to_parent):
        os.close(fd)
    measured = sorted(times[WARM_UP:])
    return round(measured[len(measured) // 2] * 1e6, 1)


def main() -> int:
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        print(f"wakeup-rtt: needs two CPUs, this process may use {len(cpus)}", file=sys.stderr)
        return 3
    print(json.dumps({"same_cpu": median_round_trip_us(cpus[0], cpus[0]), "cross_cpu": median_round_trip_us(cpus[0], cpus[1])}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
