// The analytical study's numbers (seed 001): a ClickBench-style relative view over hyperfine timings,
// each cell's answer-check status from the run manifest, hot vs cold, the client's process-spawn
// cost (workload noop) and the pgwire throughput table. Everything is derived from records and
// the run manifest at build time; the e2e test recomputes the relative view from records.json.
import type { ResultRecord, RunManifest, Study, Workload } from "../../lib/data.ts";
import { median, interval95, beyondNoise, type Interval95 } from "../../lib/stats.ts";

/** ClickBench's constant: ratio = (t + c) / (t_min + c), so sub-10 ms differences do not dominate the geometric mean. */
export const RELATIVE_CONSTANT_MS = 10;
/** The workload that measures only the client process (start, connect or open the file, SELECT 1, exit). */
export const SPAWN_WORKLOAD = "noop";

// unsupported: the engine cannot run the SQL (it lacks a capability the workload requires, so the
// runner skipped the cell naming it; older runs: the run verb exited 3, "unsupported: ..."), or it is
// not among the systems publish found able to run the workload; skipped: not run for another reason
// (engine not installable here, variant that does not apply).
export type CheckStatus = "ok" | "wrong_answer" | "unsupported" | "skipped" | "failed";
export const checkLabels: Record<CheckStatus, string> = {
  ok: "ok",
  wrong_answer: "wrong answer",
  unsupported: "unsupported",
  skipped: "not run",
  failed: "failed",
};

export interface EngineCell {
  workload: string;
  system: string;
  variant: string;
  status: CheckStatus;
  reason: string; // why unsupported / failed / wrong, from the manifest
  cells: number; // repetitions of the cell in the run
  runs: number[]; // every timed run (time_run, ms) of every ok repetition
  median: number; // median of runs (NaN when none)
  min: number;
  max: number;
  mean: number;
  relStddev: number; // sample stddev / mean of runs (NaN with fewer than 2)
  /** 95 % t interval over the cell's repetitions of hyperfine's median (time_median, one per repetition) */
  ci: Interval95;
}

/** Worst status over a cell's repetitions: wrong answer > failed > ok > skipped (unsupported when the workload says so). */
function combine(statuses: string[], unsupported: boolean): CheckStatus {
  if (statuses.includes("wrong_answer")) return "wrong_answer";
  if (statuses.includes("failed")) return "failed";
  if (statuses.includes("ok")) return "ok";
  return unsupported ? "unsupported" : "skipped";
}
function isUnsupported(w: Workload | undefined, system: string, reason: string): boolean {
  // The runner's skip for a missing capability ("<workload> needs capability 'parquet', which ...") and older runs' "unsupported: ...".
  if (/^unsupported\b/i.test(reason) || /\bneeds capability '/.test(reason)) return true;
  if (!w) return false;
  return system in ((w.unsupported ?? {}) as Record<string, string>) || !w.systems.includes(system);
}

function spread(runs: number[]): { mean: number; relStddev: number } {
  if (runs.length === 0) return { mean: NaN, relStddev: NaN };
  const mean = runs.reduce((a, b) => a + b, 0) / runs.length;
  if (runs.length < 2) return { mean, relStddev: NaN };
  const sd = Math.sqrt(runs.reduce((a, b) => a + (b - mean) ** 2, 0) / (runs.length - 1));
  return { mean, relStddev: sd / mean };
}

/**
 * One entry per (workload, system, variant) of the run's hyperfine cells. Status comes from the
 * manifest's cells; timings from time_run records. A cell whose manifest says ok but that has no
 * time_run record is reported as failed ("no timing records"), never as zero.
 */
export function engineCells(study: Study, run: RunManifest, records: ResultRecord[]): EngineCell[] {
  const hyperfine = new Set(study.workloads.filter((w) => w.tool === "hyperfine").map((w) => w.name));
  const groups = new Map<
    string,
    { workload: string; system: string; variant: string; statuses: string[]; reasons: string[] }
  >();
  const key = (w: string, s: string, v: string) => `${w}\u0000${s}\u0000${v}`;
  for (const c of run.cells) {
    if (c.study !== study.name || !hyperfine.has(c.workload)) continue;
    const k = key(c.workload, c.system, c.variant);
    const g = groups.get(k) ?? {
      workload: c.workload,
      system: c.system,
      variant: c.variant,
      statuses: [],
      reasons: [],
    };
    g.statuses.push(c.status);
    if (c.status !== "ok" && c.reason) g.reasons.push(c.reason);
    groups.set(k, g);
  }
  const repMedians = new Map<string, number[]>();
  for (const r of records) {
    if (
      r.run_id !== run.run_id ||
      r.study !== study.name ||
      r.source !== "measured" ||
      r.metric !== "time_median" ||
      r.t !== null
    )
      continue;
    const k = key(r.workload, r.system, r.variant);
    (repMedians.get(k) ?? repMedians.set(k, []).get(k)!).push(r.value);
  }
  const runsOf = new Map<string, number[]>();
  for (const r of records) {
    if (
      r.run_id !== run.run_id ||
      r.study !== study.name ||
      r.source !== "measured" ||
      r.metric !== "time_run" ||
      r.t !== null
    )
      continue;
    const k = key(r.workload, r.system, r.variant);
    (runsOf.get(k) ?? runsOf.set(k, []).get(k)!).push(r.value);
  }
  return [...groups.entries()].map(([k, g]) => {
    let reason = [...new Set(g.reasons)].join("; ");
    let status = combine(
      g.statuses,
      isUnsupported(
        study.workloads.find((w) => w.name === g.workload),
        g.system,
        reason,
      ),
    );
    const runs = status === "ok" ? (runsOf.get(k) ?? []) : [];
    // The badge already says "unsupported"; keep only the why.
    reason = reason.replace(/^unsupported:\s*(\S+ on \S+:\s*)?/i, "");
    if (status === "ok" && runs.length === 0) {
      status = "failed";
      reason = "the cell finished but left no timing records";
    }
    const { mean, relStddev } = spread(runs);
    return {
      workload: g.workload,
      system: g.system,
      variant: g.variant,
      status,
      reason,
      cells: g.statuses.length,
      runs,
      median: runs.length ? median(runs) : NaN,
      min: runs.length ? Math.min(...runs) : NaN,
      max: runs.length ? Math.max(...runs) : NaN,
      mean,
      relStddev,
      ci: interval95(status === "ok" ? (repMedians.get(k) ?? []) : []),
    };
  });
}

export interface RelativeRow {
  workload: string;
  fastest: string;
  tMin: number;
  entries: Array<EngineCell & { ratio?: number; withinNoise?: boolean }>; // every engine's cell for this workload and variant; ratio only when ok; withinNoise: its 95 % interval overlaps the fastest's
}
export interface EngineSummary {
  system: string;
  ran: number; // workloads with an ok cell (ranked)
  unsupported: number;
  skipped: number;
  failed: number;
  wrong: number;
  geomean: number; // over the workloads it ran (NaN when none)
  geomeanCommon: number; // over the workloads every ranked engine ran (NaN when there are none)
  medianRelStddev: number; // run-to-run spread, median over its ok cells
}
export interface RelativeView {
  variant: string;
  constantMs: number;
  rows: RelativeRow[]; // workloads with at least one ok engine
  unranked: RelativeRow[]; // workloads no engine answered correctly
  engines: EngineSummary[]; // best geomean first
  common: string[]; // workloads every ranked engine ran
}

export function ratio(t: number, tMin: number, c = RELATIVE_CONSTANT_MS): number {
  return (t + c) / (tMin + c);
}
export function geomean(values: number[]): number {
  return values.length ? Math.exp(values.reduce((a, v) => a + Math.log(v), 0) / values.length) : NaN;
}

/** The relative view of one variant (hot, cold, ...) over every hyperfine workload except the spawn baseline. */
export function relativeView(cells: EngineCell[], variant: string, order: string[]): RelativeView {
  const own = cells.filter((c) => c.variant === variant && c.workload !== SPAWN_WORKLOAD);
  const workloads = [...new Set(own.map((c) => c.workload))].sort(
    (a, b) => (order.indexOf(a) + 1 || 1e6) - (order.indexOf(b) + 1 || 1e6) || a.localeCompare(b),
  );
  const rows: RelativeRow[] = [];
  const unranked: RelativeRow[] = [];
  for (const w of workloads) {
    const entries = own.filter((c) => c.workload === w).sort((a, b) => a.system.localeCompare(b.system));
    const ok = entries.filter((c) => c.status === "ok");
    if (ok.length === 0) {
      unranked.push({ workload: w, fastest: "", tMin: NaN, entries });
      continue;
    }
    const best = ok.reduce((a, b) => (b.median < a.median ? b : a));
    rows.push({
      workload: w,
      fastest: best.system,
      tMin: best.median,
      entries: entries.map((e) =>
        e.status === "ok"
          ? {
              ...e,
              ratio: ratio(e.median, best.median),
              withinNoise: e !== best && beyondNoise(e.ci, best.ci) === false,
            }
          : e,
      ),
    });
  }
  const systems = [...new Set(own.map((c) => c.system))].sort();
  const ranked = systems.filter((s) => rows.some((r) => r.entries.some((e) => e.system === s && e.status === "ok")));
  const common = rows
    .filter((r) => ranked.every((s) => r.entries.some((e) => e.system === s && e.status === "ok")))
    .map((r) => r.workload);
  const engines = systems.map((system) => {
    const mine = own.filter((c) => c.system === system);
    const ratios = rows.flatMap((r) =>
      r.entries
        .filter((e) => e.system === system && e.ratio !== undefined)
        .map((e) => ({ w: r.workload, ratio: e.ratio! })),
    );
    const spreads = mine.filter((c) => c.status === "ok" && Number.isFinite(c.relStddev)).map((c) => c.relStddev);
    return {
      system,
      ran: ratios.length,
      unsupported: mine.filter((c) => c.status === "unsupported").length,
      skipped: mine.filter((c) => c.status === "skipped").length,
      failed: mine.filter((c) => c.status === "failed").length,
      wrong: mine.filter((c) => c.status === "wrong_answer").length,
      geomean: geomean(ratios.map((r) => r.ratio)),
      geomeanCommon:
        ranked.includes(system) && common.length
          ? geomean(ratios.filter((r) => common.includes(r.w)).map((r) => r.ratio))
          : NaN,
      medianRelStddev: spreads.length ? median(spreads) : NaN,
    };
  });
  engines.sort(
    (a, b) =>
      (Number.isFinite(a.geomean) ? a.geomean : Infinity) - (Number.isFinite(b.geomean) ? b.geomean : Infinity) ||
      a.system.localeCompare(b.system),
  );
  return { variant, constantMs: RELATIVE_CONSTANT_MS, rows, unranked, engines, common };
}

/** Variants present in the run's hyperfine cells, hot first, cold second, then the rest. */
export function variantsOf(cells: EngineCell[]): string[] {
  const rank = (v: string) => ["hot", "", "cold", "no-cache"].indexOf(v) + 1 || 99;
  return [...new Set(cells.map((c) => c.variant))].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}
