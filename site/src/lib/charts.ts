// Charts rendered at build time: Observable Plot draws into a linkedom document and we keep the SVG
// markup, so analysis pages ship no charting JavaScript. Every chart gets <title>/<desc> (and
// aria-labelledby/aria-describedby) so screen readers announce what it shows.
import * as Plot from "@observablehq/plot";
import { parseHTML } from "linkedom";
import type { CellStat } from "./stats.ts";
import { metricLabel } from "./stats.ts";
import { num } from "./format.ts";
import type { ResultRecord } from "./data.ts";

export interface ChartText {
  id: string;
  title: string;
  desc: string;
}

const systemColors: Record<string, string> = {
  postgresql: "#2f6db5",
  mariadb: "#b5562f",
  mysql: "#3a8a4a",
  sqlserver: "#7a4fb0",
  sqlite: "#8a7a2a",
  duckdb: "#b03a74",
};
const fallback = ["#4c6a85", "#9a5a8a", "#5f8a3a", "#a06a2a", "#2a8a8a"];
export function colorScale(systems: string[]): { domain: string[]; range: string[] } {
  const domain = [...new Set(systems)].sort();
  return { domain, range: domain.map((s, i) => systemColors[s] ?? fallback[i % fallback.length]) };
}

// Exported for the reader pages' charts (reader-charts.ts).
export function render(options: Plot.PlotOptions, text: ChartText): string {
  const { document } = parseHTML("<!doctype html><html><body></body></html>");
  const node = Plot.plot({ ...options, document: document as unknown as Document, style: { fontFamily: "inherit", fontSize: "12px", overflow: "visible" } } as Plot.PlotOptions) as unknown as Element;
  const svg = node.tagName.toLowerCase() === "svg" ? node : [...node.children].find((c) => c.tagName.toLowerCase() === "svg");
  if (!svg) throw new Error(`chart ${text.id}: Plot produced no <svg>`);
  const ns = "http://www.w3.org/2000/svg";
  const title = document.createElementNS(ns, "title");
  title.setAttribute("id", `${text.id}-title`);
  title.textContent = text.title;
  const desc = document.createElementNS(ns, "desc");
  desc.setAttribute("id", `${text.id}-desc`);
  desc.textContent = text.desc;
  svg.insertBefore(desc, svg.firstChild);
  svg.insertBefore(title, svg.firstChild);
  svg.setAttribute("role", "img");
  svg.removeAttribute("aria-label");
  svg.setAttribute("aria-labelledby", `${text.id}-title`);
  svg.setAttribute("aria-describedby", `${text.id}-desc`);
  return node.outerHTML;
}

/** Median per system with the min–max spread over repetitions and every repetition as a dot. */
export function throughputChart(stats: CellStat[], text: ChartText): string {
  const rows = [...stats].sort((a, b) => b.median - a.median);
  const reps = rows.flatMap((c) => c.values.map((value) => ({ system: c.system, value })));
  const unit = rows[0]?.unit ?? "";
  return render(
    {
      width: 640,
      height: 50 + rows.length * 38,
      marginLeft: 90,
      marginRight: 70,
      x: { label: `${metricLabel(rows[0]?.metric ?? "")} (${unit}) →`, grid: true, nice: true, zero: true },
      y: { label: null, domain: rows.map((r) => r.system) },
      color: colorScale(rows.map((r) => r.system)),
      marks: [
        Plot.barX(rows, { y: "system", x: "median", fill: "system", fillOpacity: 0.75 }),
        Plot.ruleY(rows, { y: "system", x1: "min", x2: "max", stroke: "#222", strokeWidth: 1.5 }),
        Plot.tickX(rows, { y: "system", x: "min", stroke: "#222" }),
        Plot.tickX(rows, { y: "system", x: "max", stroke: "#222" }),
        Plot.dot(reps, { y: "system", x: "value", r: 2.5, fill: "#fff", stroke: "#222" }),
        Plot.text(rows, { y: "system", x: "max", text: (d: CellStat) => `${num(d.median)} (n=${d.n})`, textAnchor: "start", dx: 6 }),
        Plot.ruleX([0]),
      ],
    },
    text,
  );
}

const percentileOrder = ["latency_p50", "latency_avg", "latency_p95", "latency_p99"];
/** Latency percentiles (median over repetitions) per workload and system, log scale. */
export function latencyChart(stats: CellStat[], text: ChartText): string {
  const rows = stats.filter((c) => percentileOrder.includes(c.metric) && c.median > 0).map((c) => ({ ...c, percentile: c.metric.replace("latency_", "") }));
  const spans = new Map<string, { workload: string; system: string; lo: number; hi: number }>();
  for (const r of rows) {
    const k = `${r.workload}|${r.system}`;
    const s = spans.get(k) ?? { workload: r.workload, system: r.system, lo: Infinity, hi: -Infinity };
    s.lo = Math.min(s.lo, r.median);
    s.hi = Math.max(s.hi, r.median);
    spans.set(k, s);
  }
  const workloads = [...new Set(rows.map((r) => r.workload))];
  const systems = [...new Set(rows.map((r) => r.system))].sort();
  return render(
    {
      width: 720,
      height: 40 + workloads.length * (systems.length * 22 + 16),
      marginLeft: 90,
      marginRight: 150,
      x: { type: "log", label: "latency (ms, log scale) →", grid: true },
      y: { label: null, domain: systems },
      fy: { label: null, domain: workloads },
      symbol: { legend: true, domain: ["p50", "avg", "p95", "p99"], label: "statistic" },
      marks: [
        Plot.frame({ stroke: "#ddd" }),
        Plot.ruleY([...spans.values()], { fy: "workload", y: "system", x1: "lo", x2: "hi", stroke: "#999" }),
        Plot.dot(rows, { fy: "workload", y: "system", x: "median", symbol: "percentile", stroke: "#222", r: 4, tip: false }),
      ],
    },
    text,
  );
}

/** Per-second throughput of every repetition, one line per system × repetition. */
export function seriesChart(series: ResultRecord[], text: ChartText): string {
  const unit = series[0]?.unit ?? "";
  return render(
    {
      width: 640,
      height: 240,
      marginLeft: 60,
      x: { label: "seconds into the measured interval →" },
      y: { label: `↑ ${unit}`, grid: true, zero: true },
      color: { ...colorScale(series.map((r) => r.system)), legend: true },
      marks: [
        Plot.lineY(series, { x: "t", y: "value", stroke: "system", z: (d: ResultRecord) => `${d.system} r${d.repetition}`, strokeWidth: 1.2, strokeOpacity: 0.8 }),
        Plot.ruleY([0]),
      ],
    },
    text,
  );
}

/** Memory idle vs under load per system (every workload's repetitions pooled), median with min–max. */
export function memoryChart(stats: CellStat[], text: ChartText): string {
  const rows = stats.map((c) => ({ ...c, state: c.metric === "mem_idle" ? "idle" : "under load" }));
  const systems = [...new Set(rows.map((r) => r.system))].sort();
  return render(
    {
      width: 640,
      height: 260,
      marginLeft: 60,
      fx: { label: null, domain: ["idle", "under load"] },
      x: { label: null, domain: systems },
      y: { label: "↑ resident memory (MiB)", grid: true, zero: true },
      color: colorScale(systems),
      marks: [
        Plot.barY(rows, { fx: "state", x: "system", y: "median", fill: "system", fillOpacity: 0.75 }),
        Plot.ruleX(rows, { fx: "state", x: "system", y1: "min", y2: "max", stroke: "#222" }),
        Plot.text(rows, { fx: "state", x: "system", y: "max", text: (d: CellStat) => num(d.median), dy: -8 }),
        Plot.ruleY([0]),
      ],
    },
    text,
  );
}

/** Each system's headline throughput as a share of the best system, per workload (home page). */
export function relativeChart(rows: { workload: string; system: string; share: number }[], text: ChartText): string {
  const workloads = [...new Set(rows.map((r) => r.workload))];
  return render(
    {
      width: 640,
      height: 50 + workloads.length * 30,
      marginLeft: 150,
      x: { label: "share of the fastest system's median throughput →", domain: [0, 1], tickFormat: "%", grid: true },
      y: { label: null, domain: workloads },
      color: { ...colorScale(rows.map((r) => r.system)), legend: true },
      marks: [
        Plot.ruleY(workloads, { stroke: "#eee" }),
        Plot.dot(rows, { y: "workload", x: "share", fill: "system", r: 6, stroke: "#fff" }),
        Plot.ruleX([0]),
      ],
    },
    text,
  );
}

// ---- analytical study (seed 001): ClickBench-style relative view --------------------------------

/** Each engine's geometric mean of relative times (1 = fastest on every workload), one bar per engine. */
export function geomeanChart(rows: { system: string; geomean: number; ran: number }[], text: ChartText): string {
  const data = rows.filter((r) => Number.isFinite(r.geomean));
  return render(
    {
      width: 640,
      height: 50 + data.length * 34,
      marginLeft: 90,
      marginRight: 120,
      marginBottom: 40,
      x: { label: "geometric mean of relative time → (1 = fastest everywhere)", grid: true, zero: true, nice: true },
      y: { label: null, domain: data.map((r) => r.system) },
      color: colorScale(data.map((r) => r.system)),
      marks: [
        Plot.barX(data, { y: "system", x: "geomean", fill: "system", fillOpacity: 0.75 }),
        Plot.text(data, { y: "system", x: "geomean", text: (d: { geomean: number; ran: number }) => `${d.geomean.toFixed(2)}× (${d.ran} workload${d.ran === 1 ? "" : "s"})`, textAnchor: "start", dx: 6 }),
        Plot.ruleX([1], { stroke: "#222", strokeDasharray: "3,3" }),
        Plot.ruleX([0]),
      ],
    },
    text,
  );
}

/** Per workload, each engine's relative time (log scale); 1 is the fastest engine on that workload. */
export function relativeRatioChart(rows: { workload: string; system: string; ratio: number }[], text: ChartText): string {
  const workloads = [...new Set(rows.map((r) => r.workload))];
  return render(
    {
      width: 720,
      height: 60 + workloads.length * 20,
      marginLeft: 170,
      marginRight: 20,
      marginBottom: 40,
      x: { type: "log", label: "relative time (t + c) / (t_min + c), log scale → (lower is better)", grid: true },
      y: { label: null, domain: workloads },
      color: { ...colorScale(rows.map((r) => r.system)), legend: true },
      marks: [
        Plot.ruleY(workloads, { stroke: "#eee" }),
        Plot.ruleX([1], { stroke: "#222" }),
        Plot.dot(rows, { y: "workload", x: "ratio", fill: "system", r: 4.5, fillOpacity: 0.8, stroke: "#fff" }),
      ],
    },
    text,
  );
}

// ---- mcp-db study (seed 000) ----------------------------------------------------------------------

/** Median throughput per database · server, faceted by workload; filled = indexed, hollow = baseline. */
export function mcpThroughputChart(rows: { facet: string; label: string; system: string; state: string; median: number; min: number; max: number }[], text: ChartText): string {
  const facets = [...new Set(rows.map((r) => r.facet))];
  const labels = [...new Set(rows.map((r) => r.label))].sort();
  return render(
    {
      width: 720,
      height: 40 + facets.length * (labels.length * 18 + 24),
      marginLeft: 160,
      marginRight: 140,
      x: { type: "log", label: "calls per second through MCP (median, log scale) →", grid: true },
      y: { label: null, domain: labels },
      fy: { label: null, domain: facets },
      color: { ...colorScale(rows.map((r) => r.system)), legend: true },
      marks: [
        Plot.frame({ stroke: "#ddd" }),
        Plot.ruleY(rows, { fy: "facet", y: "label", x1: "min", x2: "max", stroke: "#999" }),
        // Baseline as a ring around where the indexed dot sits, so both show when they coincide.
        Plot.dot(rows.filter((r) => r.state === "baseline"), { fy: "facet", y: "label", x: "median", stroke: "system", fill: "none", r: 7, strokeWidth: 1.5 }),
        Plot.dot(rows.filter((r) => r.state !== "baseline"), { fy: "facet", y: "label", x: "median", fill: "system", r: 3.5 }),
      ],
    },
    text,
  );
}

/** indexed / baseline throughput per database · server, faceted by workload, log scale. */
export function improvementChart(rows: { facet: string; label: string; system: string; factor: number }[], text: ChartText): string {
  const facets = [...new Set(rows.map((r) => r.facet))];
  const labels = [...new Set(rows.map((r) => r.label))].sort();
  return render(
    {
      width: 720,
      height: 40 + facets.length * (labels.length * 18 + 24),
      marginLeft: 160,
      marginRight: 90,
      x: { type: "log", label: "improvement factor: indexed ÷ baseline throughput (log scale) →", grid: true, insetLeft: 50 },
      y: { label: null, domain: labels },
      fy: { label: null, domain: facets },
      color: colorScale(rows.map((r) => r.system)),
      marks: [
        Plot.frame({ stroke: "#ddd" }),
        Plot.ruleX([1], { stroke: "#222", strokeDasharray: "3,3" }),
        Plot.ruleY(rows, { fy: "facet", y: "label", x1: 1, x2: "factor", stroke: "system", strokeWidth: 3 }),
        Plot.dot(rows, { fy: "facet", y: "label", x: "factor", fill: "system", r: 4 }),
        Plot.text(rows.filter((r) => r.factor >= 1), { fy: "facet", y: "label", x: "factor", text: (d: { factor: number }) => `${num(d.factor)}×`, textAnchor: "start", dx: 8 }),
        Plot.text(rows.filter((r) => r.factor < 1), { fy: "facet", y: "label", x: "factor", text: (d: { factor: number }) => `${num(d.factor)}×`, textAnchor: "end", dx: -8 }),
      ],
    },
    text,
  );
}

/** Throughput against concurrency: one panel per database, one line per MCP server and schema state (dashed = baseline). */
export function scalingChart(rows: { series: string; system: string; server: string; state: string; concurrency: number; throughput: number; min: number; max: number }[], text: ChartText): string {
  const levels = [...new Set(rows.map((r) => r.concurrency))].sort((a, b) => a - b);
  const servers = [...new Set(rows.map((r) => r.server))].sort();
  const serverColors = ["#1b7f5b", "#c0392b", "#6c4bb5", "#b07d10", "#2a7ab0"];
  const baseline = rows.filter((r) => r.state === "baseline");
  const indexed = rows.filter((r) => r.state !== "baseline");
  return render(
    {
      width: 720,
      height: 320,
      marginLeft: 60,
      marginRight: 20,
      fx: { label: null, domain: [...new Set(rows.map((r) => r.system))].sort() },
      x: { type: "point", label: "concurrent agents (MCP sessions) →", domain: levels, inset: 20 },
      y: { type: "log", label: "↑ calls per second (median, log scale)", grid: true },
      color: { domain: servers, range: servers.map((_, i) => serverColors[i % serverColors.length]), legend: true, label: "MCP server" },
      marks: [
        Plot.frame({ stroke: "#ddd" }),
        // strokeDasharray and a literal fill are constants in Plot, not channels: one mark per schema state.
        Plot.lineY(indexed, { fx: "system", x: "concurrency", y: "throughput", z: "series", stroke: "server", strokeWidth: 1.8 }),
        Plot.lineY(baseline, { fx: "system", x: "concurrency", y: "throughput", z: "series", stroke: "server", strokeWidth: 1.8, strokeDasharray: "5,4" }),
        Plot.ruleX(rows, { fx: "system", x: "concurrency", y1: "min", y2: "max", stroke: "server" }),
        Plot.dot(indexed, { fx: "system", x: "concurrency", y: "throughput", fill: "server", r: 3.5 }),
        Plot.dot(baseline, { fx: "system", x: "concurrency", y: "throughput", stroke: "server", fill: "white", r: 3.5, strokeWidth: 1.5 }),
      ],
    },
    text,
  );
}

/** An agent's median latency split into database time (direct driver p50) and MCP + server overhead. */
export function overheadChart(rows: { facet: string; label: string; part: string; ms: number }[], text: ChartText): string {
  const facets = [...new Set(rows.map((r) => r.facet))];
  const labels = [...new Set(rows.map((r) => r.label))].sort();
  const parts = ["database time (direct driver p50)", "MCP + server overhead (MCP p50 − direct p50)"];
  return render(
    {
      width: 720,
      height: 60 + facets.length * (labels.length * 20 + 24),
      marginLeft: 160,
      marginRight: 30,
      x: { label: "median latency per call (ms) →", grid: true, zero: true, nice: true },
      y: { label: null, domain: labels },
      fy: { label: null, domain: facets },
      color: { domain: parts, range: ["#2f6db5", "#e0a030"], legend: true },
      marks: [
        Plot.frame({ stroke: "#ddd" }),
        Plot.barX(rows, Plot.stackX({ fy: "facet", y: "label", x: "ms", fill: "part", order: parts })),
        Plot.ruleX([0]),
      ],
    },
    text,
  );
}
