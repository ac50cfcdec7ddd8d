import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";

// Server memory and CPU, measured over the whole process tree of the server (PostgreSQL forks a
// backend per connection; MariaDB/MySQL use threads). Memory is PSS (proportional set size: shared
// pages split between the processes that map them), so shared_buffers is not counted once per backend.

const CLK_TCK = 100; // USER_HZ on Linux x86_64 and arm64

interface ProcStat { pid: number; ppid: number; cpuTicks: number }

function readStat(pid: number): ProcStat | null {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the parenthesised command name, which may itself contain spaces or parentheses.
    const f = s.slice(s.lastIndexOf(")") + 2).split(" ");
    // f[1]=ppid, f[11..14]=utime stime cutime cstime (fields 14-17 of proc(5))
    return { pid, ppid: Number(f[1]), cpuTicks: Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]) };
  } catch {
    return null;
  }
}

export function processTree(roots: number[]): number[] {
  const all: ProcStat[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const st = readStat(Number(name));
    if (st) all.push(st);
  }
  const inTree = new Set(roots.filter((p) => all.some((s) => s.pid === p)));
  let grew = true;
  while (grew) {
    grew = false;
    for (const s of all) if (!inTree.has(s.pid) && inTree.has(s.ppid)) { inTree.add(s.pid); grew = true; }
  }
  return [...inTree];
}

function pssKiB(pid: number): number {
  try {
    const m = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8").match(/^Pss:\s+(\d+) kB/m);
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

export function treeMemoryMiB(roots: number[]): number {
  return processTree(roots).reduce((s, p) => s + pssKiB(p), 0) / 1024;
}

// CPU seconds used by the tree so far, including children that already exited and were reaped
// (their time is in the parent's cutime/cstime).
export function treeCpuSeconds(roots: number[]): number {
  return processTree(roots).reduce((s, p) => s + (readStat(p)?.cpuTicks ?? 0), 0) / CLK_TCK;
}

// Markers a study's run verb may touch so that memory and CPU cover only the measured interval,
// not the warm-up or the tool's start-up (bench-scripts/README.md).
export const MEASURE_START = ".measure-start";
export const MEASURE_END = ".measure-end";

// Samples the tree's PSS while a cell runs; the peak is "memory under load". CPU is the tree's CPU
// seconds over the measured window divided by its wall time. Without markers the window is the cell.
export class ResourceSampler {
  private timer: NodeJS.Timeout | null = null;
  private peakMiB = 0;
  private cpuStart = 0;
  private startedAt = 0;
  private final: { cpu: number; at: number } | null = null;
  private windowed = false;
  private roots: number[];
  private cellDir: string;
  constructor(roots: number[], cellDir: string) {
    this.roots = roots;
    this.cellDir = cellDir;
  }
  start(intervalMs = 250): void {
    this.cpuStart = treeCpuSeconds(this.roots);
    this.startedAt = performance.now();
    this.sample();
    this.timer = setInterval(() => this.tick(), intervalMs);
  }
  private tick(): void {
    if (this.final) return;
    if (!this.windowed && existsSync(path.join(this.cellDir, MEASURE_START))) {
      this.windowed = true;
      this.peakMiB = 0;
      this.cpuStart = treeCpuSeconds(this.roots);
      this.startedAt = performance.now();
    }
    if (this.windowed && existsSync(path.join(this.cellDir, MEASURE_END))) {
      this.final = { cpu: treeCpuSeconds(this.roots), at: performance.now() };
      return;
    }
    this.sample();
  }
  private sample(): void {
    this.peakMiB = Math.max(this.peakMiB, treeMemoryMiB(this.roots));
  }
  stop(): { peakMiB: number; cpuPercent: number; cpuSeconds: number; window: "measured" | "whole-cell" } {
    if (this.timer) clearInterval(this.timer);
    this.tick();
    const end = this.final ?? { cpu: treeCpuSeconds(this.roots), at: performance.now() };
    const cpuSeconds = end.cpu - this.cpuStart;
    const wall = (end.at - this.startedAt) / 1000;
    // Percent of one core, as top shows it: 200 % = both cores of a 2-core box busy.
    return { peakMiB: this.peakMiB, cpuSeconds, cpuPercent: wall > 0 ? (100 * cpuSeconds) / wall : 0, window: this.windowed ? "measured" : "whole-cell" };
  }
}
