// Is the host as fast as when this machine last ran? A VM's neighbours can slow every cell without
// showing as steal or as CPU outside the cell (run 20261124T223541Z: 20-35 % slower at 0.5 % steal),
// so before a run the runner compares the host probe (noise.ts hostProbeMs) with the probe medians of
// the newest complete run on the same machine label in this data folder. Measured on the 2-core VM:
// within one run the probe's p10-p90 spread is 2-4 % (497 cells of 20261128T165043Z: 37.2-38.0 ms). On
// 2026-11-29 a contended host read 42.6-46.8 ms (medians of 9) against that run's 37.4 ms, while
// PostgreSQL's analytical batches ran 2.3x and sysbench 1.8x slower than in it: the probe, a hash in
// cache, understates what a contended host costs database work, so the limit is a tight 10 %.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { median } from "../lib/stats.ts";
import { hostProbeMs } from "./noise.ts";

/** Probes taken before a run (about 50 ms each); their median is compared. */
export const HOST_PROBE_SAMPLES = 9;
/** A host whose probe median is this share slower than the reference run's is too slow to compare with it. */
export const HOST_SLOWER_SHARE = 0.1;
/** A reference run needs at least this many probed cells (runs from before the probe have none). */
export const MIN_REFERENCE_CELLS = 20;

export interface HostReference {
  run_id: string;
  host_probe_ms: number;
  /** the reference run's machine.cpu_identity (absent in runs that recorded none) */
  cpu_identity?: string;
}

interface ProbedManifest {
  run_id: string;
  status: string;
  machine?: { label?: string; cpu_identity?: string };
  cells?: Array<{ noise?: { host_probe_ms?: number } }>;
}

/** A run's cells' host probes in ms, ascending (cells from before the probe, or not run, have none). */
export function cellProbesMs(cells: Array<{ noise?: { host_probe_ms?: number } }>): number[] {
  return cells
    .map((c) => c.noise?.host_probe_ms)
    .filter((x): x is number => typeof x === "number")
    .sort((a, b) => a - b);
}

/** The median of `samples` host probes, rounded to 0.1 ms. */
export function hostProbeMedian(samples = HOST_PROBE_SAMPLES): number {
  const ms = Array.from({ length: samples }, () => hostProbeMs());
  return Math.round(median(ms) * 10) / 10;
}

/** The newest complete run in `runsDir` on machine `label` with probed cells, and its cells' probe median. */
export function referenceProbe(runsDir: string, label: string): HostReference | undefined {
  if (!existsSync(runsDir)) return undefined;
  const ids = readdirSync(runsDir).sort().reverse();
  for (const id of ids) {
    const file = path.join(runsDir, id, "manifest.json");
    if (!existsSync(file)) continue;
    let m: ProbedManifest;
    try {
      m = JSON.parse(readFileSync(file, "utf8"));
    } catch {
      continue; // publish and validate name a broken manifest; here it is only not a reference
    }
    if (m.status !== "complete" || m.machine?.label !== label) continue;
    const ms = cellProbesMs(m.cells ?? []);
    if (ms.length >= MIN_REFERENCE_CELLS)
      return {
        run_id: m.run_id,
        host_probe_ms: median(ms),
        ...(m.machine?.cpu_identity ? { cpu_identity: m.machine.cpu_identity } : {}),
      };
  }
  return undefined;
}

/**
 * Why this host is too slow to compare with the reference, or "" when it is not (or there is none). With both
 * runs' CPU identities it says which of the two causes it is: other hardware under one label, or the same
 * hardware shared with other work.
 */
export function hostSlowerReason(probeMs: number, ref: HostReference | undefined, cpuNow = ""): string {
  if (!ref || probeMs <= ref.host_probe_ms * (1 + HOST_SLOWER_SHARE)) return "";
  const pct = Math.round((probeMs / ref.host_probe_ms - 1) * 100);
  const cause =
    !ref.cpu_identity || !cpuNow || cpuNow === "unknown"
      ? "a host shared with other work, or slower hardware under the same label,"
      : ref.cpu_identity === cpuNow
        ? `the same CPU as that run's (${cpuNow}), so a host shared with other work,`
        : `other hardware under the same label (that run: ${ref.cpu_identity}; this one: ${cpuNow})`;
  return (
    `the host probe (SHA-256 of 64 MiB, median of ${HOST_PROBE_SAMPLES}) takes ${probeMs} ms, ${pct} % slower than the ` +
    `${ref.host_probe_ms} ms of run ${ref.run_id} on this machine (limit ${Math.round(HOST_SLOWER_SHARE * 100)} %): ${cause} ` +
    "makes every figure slower than that run's for a reason outside the systems"
  );
}

const PAGE = 4096;
const FAULT_BYTES = 64 << 20;

/**
 * Median µs per first touch of a fresh 4 KiB page (a 64 MiB buffer a sample, every page written once):
 * page faults, which every process start, fork (PostgreSQL's backend per connection) and large allocation
 * pays, and which a VM takes partly in its hypervisor. Recorded before a run, not judged (one quiet-host
 * reading so far: 1.92 µs in 20261206T142906Z, probe 37.7 ms). On 2026-11-29, with the probe 17 % slower
 * than in 20261128T165043Z, PostgreSQL's and DuckDB's analytical batches (a client process each) ran
 * 1.8-1.9x slower while memset ran at 20 GB/s, and a fresh page cost 2.1-3.1 µs here: a hash in cache
 * cannot see that, this can.
 */
export function pageFaultUs(samples = HOST_PROBE_SAMPLES): number {
  const us = Array.from({ length: samples }, pageFaultSampleUs);
  return Math.round(median(us) * 100) / 100;
}

function pageFaultSampleUs(): number {
  const t0 = performance.now();
  const b = Buffer.allocUnsafeSlow(FAULT_BYTES); // large: its own fresh mapping, no page touched yet
  for (let off = 0; off < FAULT_BYTES; off += PAGE) b[off] = 1;
  return ((performance.now() - t0) * 1000) / (FAULT_BYTES / PAGE);
}

export interface WakeupRtt {
  same_cpu: number;
  cross_cpu: number;
}

/**
 * Median one-byte round trips between two processes on one vCPU and across two (wakeup-rtt.py), recorded before a
 * run next to the probe: the probe hashes on one core and never waits for another vCPU to wake, which every
 * client/server query does. Undefined where it cannot be measured (one CPU, no python3), which the record omits.
 */
export function wakeupRttUs(): WakeupRtt | undefined {
  const script = path.join(import.meta.dirname, "wakeup-rtt.py");
  const r = spawnSync("python3", [script], { encoding: "utf8", timeout: 30_000 });
  if (r.status !== 0) return undefined;
  try {
    const rtt = JSON.parse(r.stdout) as WakeupRtt;
    return typeof rtt.same_cpu === "number" && typeof rtt.cross_cpu === "number" ? rtt : undefined;
  } catch {
    return undefined;
  }
}
