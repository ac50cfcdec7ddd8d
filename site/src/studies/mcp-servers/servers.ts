// The mcp-servers study's page (seed 003): one row per MCP server implementation (system = mcp-<impl>),
// derived from the featured run's records and manifest, and the seed's published table beside it as rank
// and ratio (other hardware: never absolute). Charts are Observable Plot SVG rendered at build time with
// the shared render()/colorScale() of lib/charts.ts.
import * as Plot from "@observablehq/plot";
import type { ResultRecord, RunManifest, Study } from "../../lib/data.ts";
import { cellStats, type CellStat } from "../../lib/stats.ts";
import { render, type ChartText } from "../../lib/charts.ts";

export const WORKLOADS = ["closed_loop", "open_loop", "seed_k6"] as const;
export const TOOLS = ["search_products", "get_user_cart", "checkout"] as const;
export const CPU_PARTS = [
  { metric: "server_cpu_per_1k_calls", label: "MCP server" },
  { metric: "redis_cpu_per_1k_calls", label: "Redis" },
  { metric: "api_cpu_per_1k_calls", label: "api-service" },
  { metric: "loadgen_cpu_per_1k_calls", label: "load generator" },
] as const;

// A cell status as the run manifest has it.
export type Status = RunManifest["cells"][number]["status"];

export interface ServerRow {
  system: string; // mcp-<impl>
  impl: string;
  version: string;
  /** Combined status of the server's cells of this workload (worst first), and why when not ok. */
  status(workload: string): { status: Status | "not run"; reason: string; cells: number };
  metric(workload: string, metric: string): CellStat | undefined;
}

function combine(statuses: string[]): Status | "not run" {
  if (statuses.length === 0) return "not run";
  for (const s of ["wrong_answer", "failed", "ok"] as const) if (statuses.includes(s)) return s;
  return "skipped";
}

/** One row per server that has cells of this study in the run. */
export function serverRows(study: Study, run: RunManifest, records: ResultRecord[]): ServerRow[] {
  const mine = records.filter((r) => r.run_id === run.run_id && r.study === study.name && r.source === "measured");
  const stats = cellStats(mine);
  const byKey = new Map<string, CellStat>();
  for (const s of stats) byKey.set(`${s.system}\u0000${s.workload}\u0000${s.metric}`, s);
  const cellsOf = (system: string, workload: string) =>
    run.cells.filter((c) => c.study === study.name && c.system === system && c.workload === workload);
  const systems = [...new Set(run.cells.filter((c) => c.study === study.name).map((c) => c.system))].sort();
  return systems.map((system) => ({
    system,
    impl: system.replace(/^mcp-/, ""),
    version: mine.find((r) => r.system === system)?.system_version ?? "",
    status: (workload: string) => {
      const cs = cellsOf(system, workload);
      return {
        status: combine(cs.map((c) => c.status)),
        reason: [...new Set(cs.filter((c) => c.status !== "ok" && c.reason).map((c) => c.reason))].join("; "),
        cells: cs.length,
      };
    },
    metric: (workload: string, metric: string) => byKey.get(`${system}\u0000${workload}\u0000${metric}`),
  }));
}

/** 1 = best. Ties share a rank. */
export function ranks(values: Map<string, number>, higherIsBetter: boolean): Map<string, number> {
  const sorted = [...values.entries()].sort((a, b) => (higherIsBetter ? b[1] - a[1] : a[1] - b[1]));
  const out = new Map<string, number>();
  sorted.forEach(([k, v], i) => {
    out.set(k, i > 0 && sorted[i - 1][1] === v ? out.get(sorted[i - 1][0])! : i + 1);
  });
  return out;
}

export interface PublishedServerRow {
  system: string;
  version: string;
  rps: number | undefined;
  latencyMean: number | undefined;
  p99: number | undefined;
  cpu: number | undefined;
  memMB: number | undefined;
}

export function publishedRows(records: ResultRecord[], study: string): PublishedServerRow[] {
  const pub = records.filter((r) => r.source === "published" && r.study === study);
  const systems = [...new Set(pub.map((r) => r.system))];
  const get = (s: string, m: string) => pub.find((r) => r.system === s && r.metric === m)?.value;
  return systems
    .map((s) => ({
      system: s,
      version: pub.find((r) => r.system === s)?.system_version ?? "",
      rps: get(s, "seed_way_rps"),
      latencyMean: get(s, "seed_way_latency_mean"),
      p99: get(s, "seed_averaged_p99"),
      cpu: get(s, "server_cpu_util"),
      memMB: get(s, "server_mem_avg"),
    }))
    .sort((a, b) => (b.rps ?? 0) - (a.rps ?? 0));
}

const serverColor = "#2f6db5";

/** Median calls/s per server with the min–max spread, one panel per workload, log scale. */
export function throughputChart(
  rows: { server: string; workload: string; median: number; min: number; max: number }[],
  text: ChartText,
): string {
  const servers = [...new Set(rows.map((r) => r.server))];
  const workloads = WORKLOADS.filter((w) => rows.some((r) => r.workload === w));
  return render(
    {
      width: 720,
      height: 40 + workloads.length * (servers.length * 18 + 26),
      marginLeft: 150,
      marginRight: 110,
      x: { type: "log", label: "tool calls per second, steady state (median, log scale) →", grid: true },
      y: { label: null, domain: servers },
      fy: { label: null, domain: workloads },
      marks: [
        Plot.frame({ stroke: "#ddd" }),
        Plot.ruleY(rows, { fy: "workload", y: "server", x1: "min", x2: "max", stroke: "#999" }),
        Plot.dot(rows, { fy: "workload", y: "server", x: "median", fill: serverColor, r: 4 }),
      ],
    },
    text,
  );
}

/** Per-tool p50 (dot), p99 (ring) and p99.9 (tick) per server, one panel per tool, log scale. */
export function toolLatencyChart(
  rows: { server: string; tool: string; p50: number; p99: number; p999: number }[],
  text: ChartText,
): string {
  const servers = [...new Set(rows.map((r) => r.server))];
  const tools = TOOLS.filter((t) => rows.some((r) => r.tool === t));
  const parts = ["p50", "p99", "p99.9"];
  const long = rows.flatMap((r) => [
    { ...r, part: "p50", ms: r.p50 },
    { ...r, part: "p99", ms: r.p99 },
    { ...r, part: "p99.9", ms: r.p999 },
  ]);
  return render(
    {
      width: 720,
      height: 60 + tools.length * (servers.length * 18 + 26),
      marginLeft: 150,
      marginRight: 110,
      x: { type: "log", label: "latency per tool call, ms (median over repetitions, log scale) →", grid: true },
      y: { label: null, domain: servers },
      fy: { label: null, domain: tools },
      color: { domain: parts, range: ["#2f6db5", "#c0392b", "#7a4fb0"], legend: true },
      marks: [
        Plot.frame({ stroke: "#ddd" }),
        Plot.ruleY(rows, { fy: "tool", y: "server", x1: "p50", x2: "p999", stroke: "#bbb" }),
        Plot.dot(long, {
          fy: "tool",
          y: "server",
          x: "ms",
          stroke: "part",
          fill: (d: { part: string }) => (d.part === "p50" ? "#2f6db5" : "none"),
          r: 4,
          strokeWidth: 1.5,
        }),
      ],
    },
    text,
  );
}

/** CPU-seconds per 1,000 calls stacked by component (server, Redis, api-service, load generator). */
export function cpuChart(rows: { server: string; part: string; seconds: number }[], text: ChartText): string {
  const servers = [...new Set(rows.map((r) => r.server))];
  const parts = CPU_PARTS.map((p) => p.label);
  return render(
    {
      width: 720,
      height: 70 + servers.length * 22,
      marginLeft: 150,
      marginRight: 30,
      x: { label: "CPU-seconds per 1,000 tool calls (median over repetitions) →", grid: true, zero: true, nice: true },
      y: { label: null, domain: servers },
      color: { domain: parts, range: ["#2f6db5", "#b5562f", "#3a8a4a", "#999999"], legend: true },
      marks: [
        Plot.frame({ stroke: "#ddd" }),
        Plot.barX(rows, Plot.stackX({ y: "server", x: "seconds", fill: "part", order: parts })),
        Plot.ruleX([0]),
      ],
    },
    text,
  );
}

/** Server RSS (whole process tree): average as a bar, peak as a tick. */
export function memoryChart(rows: { server: string; avg: number; peak: number }[], text: ChartText): string {
  return render(
    {
      width: 720,
      height: 60 + rows.length * 22,
      marginLeft: 150,
      marginRight: 30,
      x: {
        label: "RSS of the server's process tree, MiB (bar = average, tick = peak) →",
        grid: true,
        zero: true,
        nice: true,
      },
      y: { label: null, domain: rows.map((r) => r.server) },
      marks: [
        Plot.frame({ stroke: "#ddd" }),
        Plot.barX(rows, { y: "server", x: "avg", fill: serverColor, fillOpacity: 0.75 }),
        Plot.tickX(rows, { y: "server", x: "peak", stroke: "#222", strokeWidth: 2 }),
        Plot.ruleX([0]),
      ],
    },
    text,
  );
}
