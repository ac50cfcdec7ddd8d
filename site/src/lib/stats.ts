// Aggregation of records into per-cell statistics (median and min–max over repetitions) and the
// comparisons the pages state in words. Pages never print a number that is not derived here from records.
import type { ResultRecord, RunManifest, Study } from "./data.ts";
import { interval95, beyondNoise, median, perRepetition, type Interval95 } from "../../../pipeline/lib/stats.ts";
export {
  interval95,
  beyondNoise,
  median,
  perRepetition,
  relativeHalfWidth,
  type Interval95,
} from "../../../pipeline/lib/stats.ts";

// A cell's identity and unit are the records' own fields (the generated ResultRecord), not a copy of them.
export interface CellStat
  extends Pick<
    ResultRecord,
    | "run_id"
    | "study"
    | "workload"
    | "system"
    | "system_version"
    | "server"
    | "variant"
    | "concurrency"
    | "metric"
    | "unit"
  > {
  /** repetitions (a tool's several values in one repetition count once) */
  n: number;
  median: number;
  min: number;
  max: number;
  values: number[];
  /** 95 % Student-t interval of the mean over repetitions, one value per repetition (method "none" below 2 repetitions) */
  ci: Interval95;
}

/** Scalar (t === null) records grouped per run × study × workload × system × server × variant × concurrency × metric. */
export function cellStats(records: ResultRecord[]): CellStat[] {
  const groups = new Map<string, ResultRecord[]>();
  for (const r of records) {
    if (r.t !== null) continue;
    const key = [r.run_id, r.study, r.workload, r.system, r.server, r.variant, r.concurrency, r.metric].join("\u0000");
    let g = groups.get(key);
    if (!g) {
      g = [];
      groups.set(key, g);
    }
    g.push(r);
  }
  return [...groups.values()].map((g) => {
    const values = g.map((r) => r.value);
    const first = g[0];
    const ci = interval95(perRepetition(g));
    return {
      run_id: first.run_id,
      study: first.study,
      workload: first.workload,
      system: first.system,
      system_version: first.system_version,
      server: first.server,
      variant: first.variant,
      concurrency: first.concurrency,
      metric: first.metric,
      unit: first.unit,
      // n and the interval are over repetitions (one value each), never over a tool's several runs within one
      n: ci.n,
      median: median(values),
      min: Math.min(...values),
      max: Math.max(...values),
      values,
      ci,
    };
  });
}

const higherIsBetterUnits = new Set(["tx/s", "q/s", "calls/s", "rows"]);
export function higherIsBetter(unit: string): boolean {
  return higherIsBetterUnits.has(unit);
}

// The figure a workload is judged by: the one its study names (study.json headline_metrics, e.g. seed 002
// reports point SELECTs in queries/s), else the first of these the run has. Batch workloads (hyperfine)
// are judged by their median wall time, never by a side metric like CPU.
const headlinePreference = ["tps", "qps", "rps", "calls_per_s", "throughput", "time_median"];
export function headlineMetric(
  workload: string,
  metricsAvailable: Iterable<string>,
  studyHeadlines: Record<string, string> = {},
): string | undefined {
  const avail = new Set(metricsAvailable);
  const o = studyHeadlines[workload];
  if (o && avail.has(o)) return o;
  return headlinePreference.find((m) => avail.has(m)) ?? [...avail].sort()[0];
}

export const metricLabels: Record<string, string> = {
  tps: "transactions per second",
  qps: "queries per second",
  latency_avg: "average latency",
  latency_p50: "p50 latency",
  latency_p95: "p95 latency",
  latency_p99: "p99 latency",
  latency_max: "maximum latency",
  errors: "errors",
  reconnects: "reconnects",
  tps_series: "transactions per second, per second of the run",
  mem_idle: "memory when idle",
  mem_load: "memory under load",
  cpu_util: "CPU utilisation",
  // analytical (hyperfine, pgwire-tp) and mcp-db (mcp-load) metrics
  time_mean: "mean wall time",
  time_median: "wall time",
  time_stddev: "standard deviation of wall time",
  time_min: "fastest run",
  time_max: "slowest run",
  time_run: "wall time per run",
  throughput: "calls per second",
  latency_p90: "p90 latency",
  latency_p999: "p99.9 latency",
  latency_mean: "mean latency",
  client_cpu_per_call: "client CPU per call",
  mcp_overhead_p50: "MCP overhead at p50",
  direct_latency_p50: "p50 latency through the driver",
  direct_throughput: "queries per second through the driver",
  improvement: "improvement factor (indexed ÷ baseline)",
  server_rss_avg: "server memory (average RSS)",
};
export function metricLabel(metric: string): string {
  return metricLabels[metric] ?? metric.replaceAll("_", " ");
}

/**
 * Did this run measure the study? It has measured records of the study from a workload that exercises
 * the systems: workloads whose definition says uses_server: false (the MCP client ceiling, which needs
 * no database) do not count, so a run whose every database cell was skipped is not "measured".
 */
function measuringRuns(study: string | Study, records: ResultRecord[]): Set<string> {
  const name = typeof study === "string" ? study : study.name;
  const calibration = new Set(
    typeof study === "string"
      ? []
      : study.workloads.filter((w) => (w as { uses_server?: boolean }).uses_server === false).map((w) => w.name),
  );
  return new Set(
    records
      .filter((r) => r.source === "measured" && r.study === name && !calibration.has(r.workload))
      .map((r) => r.run_id),
  );
}

/** The measured run a study page features: the newest finished run that measured the study (see measuringRuns), preferring profiles other than "ci" (a one-minute smoke run). Pass the Study (not only its name) so calibration-only runs are not featured. `runs` newest first. */
export function featuredRun(
  study: string | Study,
  runs: RunManifest[],
  records: ResultRecord[],
): RunManifest | undefined {
  const withData = measuringRuns(study, records);
  const candidates = runs.filter((m) => withData.has(m.run_id) && m.status !== "running");
  return candidates.find((m) => m.profile !== "ci") ?? candidates[0];
}

export interface UnmeasuredRun {
  run: RunManifest;
  /** e.g. "0 of 44 cells ok: 40 skipped (faucet is not built), 4 failed" */
  why: string;
}

/** Runs newer than the featured one (all runs when none is featured) that planned cells of the study but did not measure it, newest first, each with the statuses and most common reasons of its cells. */
export function newerRunsWithout(
  study: Study,
  featured: RunManifest | undefined,
  runs: RunManifest[],
  records: ResultRecord[],
): UnmeasuredRun[] {
  const measured = measuringRuns(study, records);
  const calibration = new Set(
    study.workloads.filter((w) => (w as { uses_server?: boolean }).uses_server === false).map((w) => w.name),
  );
  return runs
    .filter(
      (m) =>
        (!featured || m.started_at > featured.started_at) &&
        m.run_id !== featured?.run_id &&
        !(measured.has(m.run_id) && m.status !== "running"),
    )
    .map((m) => ({ m, cells: m.cells.filter((c) => c.study === study.name && !calibration.has(c.workload)) }))
    .filter(({ cells }) => cells.length > 0)
    .map(({ m, cells }) => {
      if (m.status === "running" && measured.has(m.run_id))
        return { run: m, why: "still running (or stopped before it finished): runs in progress are not featured" };
      const by = new Map<string, Map<string, number>>();
      for (const c of cells) {
        const reasons = by.get(c.status) ?? by.set(c.status, new Map()).get(c.status)!;
        const r = (c.reason || "").split(" | ")[0].slice(0, 120);
        reasons.set(r, (reasons.get(r) ?? 0) + 1);
      }
      const ok = by.get("ok") ? [...by.get("ok")!.values()].reduce((a, b) => a + b, 0) : 0;
      const parts = [...by.entries()]
        .filter(([st]) => st !== "ok")
        .map(([st, reasons]) => {
          const n = [...reasons.values()].reduce((a, b) => a + b, 0);
          const top = [...reasons.entries()].sort((a, b) => b[1] - a[1])[0][0];
          return `${n} ${st.replace("_", " ")}${top ? ` (${top}${reasons.size > 1 ? `, and ${reasons.size - 1} other reason${reasons.size > 2 ? "s" : ""}` : ""})` : ""}`;
        });
      return {
        run: m,
        why: `${ok} of ${cells.length} cells ok${parts.length ? `: ${parts.join("; ")}` : ""}${m.status === "interrupted" ? "; the run was interrupted" : ""}`,
      };
    });
}

export interface Ranking {
  workload: string;
  metric: string;
  unit: string;
  higherBetter: boolean;
  ranked: CellStat[]; // best first
  ratio: number | undefined; // best vs runner-up, always ≥ 1
  /** best and runner-up are within noise: their 95 % intervals overlap (or, below 2 repetitions, their min–max ranges do) */
  overlap: boolean;
  /** what decided `overlap`: the 95 % intervals of the mean, or the min–max ranges when a cell has fewer than 2 repetitions */
  noiseBasis: "interval" | "range";
}

export function rank(stats: CellStat[], workload: string, metric: string): Ranking | undefined {
  const s = stats.filter((c) => c.workload === workload && c.metric === metric && Number.isFinite(c.median));
  if (s.length === 0) return undefined;
  const unit = s[0].unit;
  const hb = higherIsBetter(unit);
  const ranked = [...s].sort((a, b) => (hb ? b.median - a.median : a.median - b.median));
  const [best, second] = ranked;
  let ratio: number | undefined;
  let overlap = false;
  let noiseBasis: Ranking["noiseBasis"] = "interval";
  if (second) {
    ratio = hb ? best.median / second.median : second.median / best.median;
    const beyond = beyondNoise(best.ci, second.ci);
    if (beyond === undefined) {
      noiseBasis = "range";
      overlap = hb ? best.min <= second.max : best.max >= second.min;
    } else overlap = !beyond;
  }
  return { workload, metric, unit, higherBetter: hb, ranked, ratio, overlap, noiseBasis };
}

/** "95 % CI 1,234–1,456" (or the min–max range below 2 repetitions), for stating a figure's noise beside it. */
export function noiseText(c: CellStat, fmt: (v: number, unit: string) => string): string {
  return c.ci.method === "t"
    ? `95 % CI ${fmt(c.ci.lo, c.unit)}–${fmt(c.ci.hi, c.unit)}`
    : `range ${fmt(c.min, c.unit)}–${fmt(c.max, c.unit)}`;
}

/** Pools every repetition of every workload per system (for machine-level metrics such as idle memory). */
export function pooledBySystem(stats: CellStat[], metric: string): CellStat[] {
  const bySystem = new Map<string, CellStat[]>();
  for (const c of stats)
    if (c.metric === metric) (bySystem.get(c.system) ?? bySystem.set(c.system, []).get(c.system)!).push(c);
  return [...bySystem.entries()].map(([system, cs]) => {
    const values = cs.flatMap((c) => c.values);
    // Pooled values are samples of every cell, not repetitions of one: their interval says how much the figure moves across the run.
    return {
      ...cs[0],
      workload: "*",
      system,
      n: values.length,
      values,
      median: median(values),
      min: Math.min(...values),
      max: Math.max(...values),
      ci: interval95(values),
    };
  });
}
