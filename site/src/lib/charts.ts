// Charts rendered at build time: Observable Plot draws into a linkedom document and we keep the SVG
// markup, so analysis pages ship no charting JavaScript. Every chart gets <title>/<desc> (and
// aria-labelledby/aria-describedby) so screen readers announce what it shows.
import * as Plot from "@observablehq/plot";
import { parseHTML } from "linkedom";
import type { CellStat } from "./stats.ts";
import { metricLabel } from "./stats.ts";
import { num } from "./format.ts";
import type { ResultRecord } from "./data.ts";
import { systemColor, systemLabel } from "./systems.ts";
import { roleLabelledGroups } from "./chart-aria.ts";

export interface ChartText {
  id: string;
  title: string;
  desc: string;
}

/** Colours and legend labels of systems from their system.json (lib/systems.ts), never keyed by name here. */
export function colorScale(systems: string[]): {
  domain: string[];
  range: string[];
  tickFormat: (s: string) => string;
} {
  const domain = [...new Set(systems)].sort();
  return { domain, range: domain.map((s, i) => systemColor(s, i)), tickFormat: systemLabel };
}

type Axis = Plot.ScaleOptions | undefined;

/**
 * Axis defaults every chart gets: Plot sets a bottom axis title marginBottom − 3 px below the
 * axis, which at its default 30 px margin lands on the tick labels, and a top-left y title likewise over the
 * top tick; log axes default to d3's SI format, which prints 0.2 as "200m". Log ticks keep d3's thinning
 * (a string or function tickFormat still goes through the log scale's own tickFormat) with plain numbers.
 */
export function legibleAxes(options: Plot.PlotOptions): Plot.PlotOptions {
  const out: Plot.PlotOptions = { ...options };
  const plain = (s: Axis): Axis => (s?.type === "log" && s.tickFormat === undefined ? { ...s, tickFormat: "," } : s);
  if (out.x) out.x = plain(out.x as Axis);
  if (out.y) out.y = plain(out.y as Axis);
  const titled = (s: Axis) => s?.label !== null && s?.axis !== null && s?.axis !== "top";
  if (titled(out.x as Axis)) out.marginBottom = Math.max(out.marginBottom ?? 30, 42);
  const y = out.y as Axis;
  if (y && titled(y) && y.label && out.fx && y.labelAnchor === undefined) {
    // Facet labels (fx) take the top margin: the y title goes along the axis instead, left of its ticks.
    out.y = { ...y, labelAnchor: "center" };
    out.marginLeft = Math.max(out.marginLeft ?? 40, 60);
  } else if (y && titled(y) && y.label) out.marginTop = Math.max(out.marginTop ?? 20, 30);
  return out;
}

// Exported for the reader pages' charts (reader-charts.ts).
export function render(chartOptions: Plot.PlotOptions, text: ChartText): string {
  const options = legibleAxes(chartOptions);
  const { document } = parseHTML("<!doctype html><html><body></body></html>");
  const node = Plot.plot({
    ...options,
    document: document as unknown as Document,
    style: { fontFamily: "inherit", fontSize: "12px", overflow: "visible" },
  } as Plot.PlotOptions) as unknown as Element;
  const svg =
    node.tagName.toLowerCase() === "svg" ? node : [...node.children].find((c) => c.tagName.toLowerCase() === "svg");
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
  roleLabelledGroups(svg);
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
      y: { label: null, domain: rows.map((r) => r.system), tickFormat: systemLabel },
      color: colorScale(rows.map((r) => r.system)),
      marks: [
        Plot.barX(rows, { y: "system", x: "median", fill: "system", fillOpacity: 0.75 }),
        Plot.ruleY(rows, { y: "system", x1: "min", x2: "max", stroke: "#222", strokeWidth: 1.5 }),
        Plot.tickX(rows, { y: "system", x: "min", stroke: "#222" }),
        Plot.tickX(rows, { y: "system", x: "max", stroke: "#222" }),
        Plot.dot(reps, { y: "system", x: "value", r: 2.5, fill: "#fff", stroke: "#222" }),
        Plot.text(rows, {
          y: "system",
          x: "max",
          text: (d: CellStat) => `${num(d.median)} (n=${d.n})`,
          textAnchor: "start",
          dx: 6,
        }),
        Plot.ruleX([0]),
      ],
    },
    text,
  );
}

const percentileOrder = ["latency_p50", "latency_avg", "latency_p95", "latency_p99"];
/** Latency percentiles (median over repetitions) per workload and system, log scale. */
export function latencyChart(stats: CellStat[], text: ChartText): string {
  const rows = stats
    .filter((c) => percentileOrder.includes(c.metric) && c.median > 0)
    .map((c) => ({ ...c, percentile: c.metric.replace("latency_", "") }));
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
      y: { label: null, domain: systems, tickFormat: systemLabel },
      fy: { label: null, domain: workloads },
      symbol: { legend: true, domain: ["p50", "avg", "p95", "p99"], label: "statistic" },
      marks: [
        Plot.frame({ stroke: "#ddd" }),
        Plot.ruleY([...spans.values()], { fy: "workload", y: "system", x1: "lo", x2: "hi", stroke: "#999" }),
        Plot.dot(rows, {
          fy: "workload",
          y: "system",
          x: "median",
          symbol: "percentile",
          stroke: "#222",
          r: 4,
          tip: false,
        }),
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
        Plot.lineY(series, {
          x: "t",
          y: "value",
          stroke: "system",
          z: (d: ResultRecord) => `${d.system} r${d.repetition}`,
          strokeWidth: 1.2,
          strokeOpacity: 0.8,
        }),
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
      x: { label: null, domain: systems, tickFormat: systemLabel },
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

// ---- mcp-db study (seed 000) ----------------------------------------------------------------------
