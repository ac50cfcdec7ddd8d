import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

// Server memory and CPU, measured over the whole process tree of the server (PostgreSQL forks a
// backend per connection; MariaDB/MySQL use threads). Memory is PSS (proportional set size: shared
// pages split between the processes that map them), so shared_buffers is not counted once per backend.

export const CLK_TCK = 100; // USER_HZ on Linux x86_64 and arm64 (also the unit of /proc/stat)

export interface ProcStat {
  pid: number;
  ppid: number;
  comm: string;
  ownTicks: number; // utime + stime
  childTicks: number; // cutime + cstime: children that exited and were reaped
  cpuTicks: number; // ownTicks + childTicks
  startTicks: number; // boot-relative start time: with pid, identifies a process across pid reuse
}

export function readStat(pid: number): ProcStat | null {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the parenthesised command name, which may itself contain spaces or parentheses.
    const close = s.lastIndexOf(")");
    const f = s.slice(close + 2).split(" ");
    // f[i] is field i+3 of proc(5): f[1]=ppid, f[11..14]=utime stime cutime cstime, f[19]=starttime
    const ownTicks = Number(f[11]) + Number(f[12]);
    const childTicks = Number(f[13]) + Number(f[14]);
    return {
      pid,
      ppid: Number(f[1]),
      comm: s.slice(s.indexOf("(") + 1, close),
      ownTicks,
      childTicks,
      cpuTicks: ownTicks + childTicks,
      startTicks: Number(f[19]),
    };
  } catch {
    return null;
  }
}

/** Every process's stat, in one pass over /proc. */
export function readAllStats(): ProcStat[] {
  const all: ProcStat[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const st = readStat(Number(name));
    if (st) all.push(st);
  }
  return all;
}

/** The roots that exist in `all` and their descendants. */
export function treeIn(all: ProcStat[], roots: number[]): Set<number> {
  const inTree = new Set(roots.filter((p) => all.some((s) => s.pid === p)));
  let grew = true;
  while (grew) {
    grew = false;
    for (const s of all)
      if (!inTree.has(s.pid) && inTree.has(s.ppid)) {
        inTree.add(s.pid);
        grew = true;
      }
  }
  return inTree;
}

export function processTree(roots: number[]): number[] {
  return [...treeIn(readAllStats(), roots)];
}

function pssKiB(pid: number): number {
  try {
    const m = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8").match(/^Pss:\s+(\d+) kB/m);
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

function pssMiBOf(tree: number[]): number {
  return tree.reduce((s, p) => s + pssKiB(p), 0) / 1024;
}

export function treeMemoryMiB(roots: number[]): number {
  return pssMiBOf(processTree(roots));
}

// CPU seconds used by the tree so far, including children that already exited and were reaped
// (their time is in the parent's cutime/cstime).
function cpuSecondsOf(tree: number[]): number {
  return tree.reduce((s, p) => s + (readStat(p)?.cpuTicks ?? 0), 0) / CLK_TCK;
}

export function treeCpuSeconds(roots: number[]): number {
  return cpuSecondsOf(processTree(roots));
}

// Markers a study's run verb may touch so that memory and CPU cover only the measured interval,
// not the warm-up or the tool's start-up (bench-scripts/README.md).
export const MEASURE_START = ".measure-start";
export const MEASURE_END = ".measure-end";

// Samples the tree's CPU seconds and PSS every interval while a cell runs, each sample stamped
// with the wall clock. At stop, the measured window is read from the markers' mtimes: CPU is the
// tree's CPU seconds between the last sample at or before .measure-start and the first at or after
// .measure-end, divided by the wall time between them; memory under load is the peak PSS of the
// samples in that span. Bracketing by timestamps rather than by "the first tick that saw the
// marker" keeps the figure right when the event loop ticks late on a loaded machine: a window no
// tick fell inside is still measured (by the samples around it), never read as 0 CPU seconds.
// Without markers the window is the whole cell.
interface ResourceSample {
  at: number;
  cpu: number;
  pssMiB: number;
}

function sampleTree(roots: number[]): ResourceSample {
  const tree = processTree(roots);
  return { at: Date.now(), cpu: cpuSecondsOf(tree), pssMiB: pssMiBOf(tree) };
}

function markerTime(cellDir: string, name: string): number | null {
  try {
    return statSync(path.join(cellDir, name)).mtimeMs;
  } catch {
    return null;
  }
}

export interface ResourceUse {
  peakMiB: number;
  cpuPercent: number;
  cpuSeconds: number;
  window: "measured" | "whole-cell";
}

/** CPU and peak memory over the samples bracketing [from, to] (all samples when null). Exported for tests. */
export function useOver(samples: ResourceSample[], from: number | null, to: number | null): ResourceUse {
  const measured = from !== null && to !== null && to >= from;
  let a = 0;
  let b = samples.length - 1;
  if (measured) {
    while (a + 1 < samples.length && samples[a + 1].at <= from) a++;
    b = a;
    while (b + 1 < samples.length && samples[b].at < to) b++;
  }
  const span = samples.slice(a, b + 1);
  const cpuSeconds = samples[b].cpu - samples[a].cpu;
  const wall = (samples[b].at - samples[a].at) / 1000;
  // Percent of one core, as top shows it: 200 % = both cores of a 2-core box busy.
  return {
    peakMiB: Math.max(...span.map((x) => x.pssMiB)),
    cpuSeconds,
    cpuPercent: wall > 0 ? (100 * cpuSeconds) / wall : 0,
    window: measured ? "measured" : "whole-cell",
  };
}

export class ResourceSampler {
  private timer: NodeJS.Timeout | null = null;
  private samples: ResourceSample[] = [];
  private roots: number[];
  private cellDir: string;
  constructor(roots: number[], cellDir: string) {
    this.roots = roots;
    this.cellDir = cellDir;
  }
  start(intervalMs = 250): void {
    this.samples.push(sampleTree(this.roots));
    this.timer = setInterval(() => this.samples.push(sampleTree(this.roots)), intervalMs);
  }
  stop(): ResourceUse {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.samples.push(sampleTree(this.roots));
    return useOver(this.samples, markerTime(this.cellDir, MEASURE_START), markerTime(this.cellDir, MEASURE_END));
  }
}
