// The mcp-db study's charts (per database × MCP server): build-time SVG through the shared render()
// and colorScale() of lib/charts.ts.
import * as Plot from "@observablehq/plot";
import { render, colorScale, type ChartText } from "../../lib/charts.ts";
import { readable, systemLabel } from "../../lib/systems.ts";
import { num } from "../../lib/format.ts";

/** Median throughput per database · server, faceted by workload; filled = indexed, hollow = baseline. */
export function mcpThroughputChart(
  rows: { facet: string; label: string; system: string; state: string; median: number; min: number; max: number }[],
  text: ChartText,
): string {
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
        Plot.dot(
          rows.filter((r) => r.state === "baseline"),
          { fy: "facet", y: "label", x: "median", stroke: "system", fill: "none", r: 7, strokeWidth: 1.5 },
        ),
        Plot.dot(
          rows.filter((r) => r.state !== "baseline"),
          { fy: "facet", y: "label", x: "median", fill: "system", r: 3.5 },
        ),
      ],
    },
    text,
  );
}

/** indexed / baseline throughput per database · server, faceted by workload, log scale. */
export function improvementChart(
  rows: { facet: string; label: string; system: string; factor: number }[],
  text: ChartText,
): string {
  const facets = [...new Set(rows.map((r) => r.facet))];
  const labels = [...new Set(rows.map((r) => r.label))].sort();
  return render(
    {
      width: 720,
      height: 40 + facets.length * (labels.length * 18 + 24),
      marginLeft: 160,
      marginRight: 90,
      x: {
        type: "log",
        label: "improvement factor: indexed ÷ baseline throughput (log scale) →",
        grid: true,
        insetLeft: 50,
      },
      y: { label: null, domain: labels },
      fy: { label: null, domain: facets },
      color: colorScale(rows.map((r) => r.system)),
      marks: [
        Plot.frame({ stroke: "#ddd" }),
        Plot.ruleX([1], { stroke: "#222", strokeDasharray: "3,3" }),
        Plot.ruleY(rows, { fy: "facet", y: "label", x1: 1, x2: "factor", stroke: "system", strokeWidth: 3 }),
        Plot.dot(rows, { fy: "facet", y: "label", x: "factor", fill: "system", r: 4 }),
        Plot.text(
          rows.filter((r) => r.factor >= 1),
          {
            fy: "facet",
            y: "label",
            x: "factor",
            text: (d: { factor: number }) => `${num(d.factor)}×`,
            textAnchor: "start",
            dx: 8,
          },
        ),
        Plot.text(
          rows.filter((r) => r.factor < 1),
          {
            fy: "facet",
            y: "label",
            x: "factor",
            text: (d: { factor: number }) => `${num(d.factor)}×`,
            textAnchor: "end",
            dx: -8,
          },
        ),
      ],
    },
    text,
  );
}

/** Throughput against concurrency: one panel per database, one line per MCP server and schema state (dashed = baseline). */
export function scalingChart(
  rows: {
    series: string;
    system: string;
    server: string;
    state: string;
    concurrency: number;
    throughput: number;
    min: number;
    max: number;
  }[],
  text: ChartText,
): string {
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
      fx: { label: null, domain: [...new Set(rows.map((r) => r.system))].sort(), tickFormat: systemLabel },
      x: { type: "point", label: "concurrent agents (MCP sessions) →", domain: levels, inset: 20 },
      y: { type: "log", label: "↑ calls per second (median, log scale)", grid: true },
      color: {
        domain: servers,
        range: servers.map((_, i) => readable(serverColors[i % serverColors.length])),
        legend: true,
        label: "MCP server",
      },
      marks: [
        Plot.frame({ stroke: "#ddd" }),
        // strokeDasharray and a literal fill are constants in Plot, not channels: one mark per schema state.
        Plot.lineY(indexed, {
          fx: "system",
          x: "concurrency",
          y: "throughput",
          z: "series",
          stroke: "server",
          strokeWidth: 1.8,
        }),
        Plot.lineY(baseline, {
          fx: "system",
          x: "concurrency",
          y: "throughput",
          z: "series",
          stroke: "server",
          strokeWidth: 1.8,
          strokeDasharray: "5,4",
        }),
        Plot.ruleX(rows, { fx: "system", x: "concurrency", y1: "min", y2: "max", stroke: "server" }),
        Plot.dot(indexed, { fx: "system", x: "concurrency", y: "throughput", fill: "server", r: 3.5 }),
        Plot.dot(baseline, {
          fx: "system",
          x: "concurrency",
          y: "throughput",
          stroke: "server",
          fill: "white",
          r: 3.5,
          strokeWidth: 1.5,
        }),
      ],
    },
    text,
  );
}

/** An agent's median latency split into database time (direct driver p50) and MCP + server overhead. */
export function overheadChart(
  rows: { facet: string; label: string; part: string; ms: number }[],
  text: ChartText,
): string {
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
      color: { domain: parts, range: ["#2f6db5", readable("#e0a030")], legend: true },
      marks: [
        Plot.frame({ stroke: "#ddd" }),
        Plot.barX(rows, Plot.stackX({ fy: "facet", y: "label", x: "ms", fill: "part", order: parts })),
        Plot.ruleX([0]),
      ],
    },
    text,
  );
}
