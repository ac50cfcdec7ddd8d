// Build-time charts of the reader pages (verdicts, history): Observable Plot via charts.ts's render,
// so each SVG carries <title>/<desc> and the pages ship no JavaScript.
import * as Plot from "@observablehq/plot";
import { render, colorScale, type ChartText } from "./charts.ts";
import { verdictColor, claimRegion, type ClaimVerdict } from "./verdicts.ts";
import { num } from "./format.ts";
import { systemLabel } from "./systems.ts";
import type { ClaimSide } from "../../../pipeline/schema/types.ts";
import { serverVariantLabel as label } from "../../../pipeline/lib/servers.ts";

const LABEL_MAX = 44;
/**
 * Readable y labels for the verdict charts (the home cards showed claim ids such as
 * correlated-subquery-duckdb-over-postgresql): "DuckDB ÷ PostgreSQL, <workload> <metric>", at most
 * LABEL_MAX characters (…), made unique with " (n)" where two claims would read alike.
 */
export function claimLabels(rows: ClaimVerdict[]): string[] {
  const side = (s: ClaimSide) => `${systemLabel(s.system)}${label(s) ? ` ${label(s)}` : ""}`;
  const cut = (t: string) => (t.length > LABEL_MAX ? `${t.slice(0, LABEL_MAX - 1)}…` : t);
  const base = rows.map(({ claim: c }) => {
    const what =
      c.workload === "*"
        ? c.metric
        : c.each_of
          ? `${c.each_of.length} workloads, ${c.metric}`
          : `${c.workload} ${c.metric}`;
    return cut(`${side(c.a)} ÷ ${side(c.b)}, ${what}`);
  });
  const seen = new Map<string, number>();
  return base.map((l) => {
    const n = (seen.get(l) ?? 0) + 1;
    seen.set(l, n);
    return base.filter((x) => x === l).length > 1 ? `${l} (${n})` : l;
  });
}

/** Per claim, the seed's ratio (hollow diamond) beside ours (dot with its 95 % interval); log scale, ratios not absolutes. */
export function verdictChart(rows: ClaimVerdict[], text: ChartText, opts: { compact?: boolean } = {}): string {
  const labels = claimLabels(rows);
  const labelOf = new Map(rows.map((r, i) => [r, labels[i]]));
  const ours = rows.filter((r) => r.ratio !== undefined && Number.isFinite(r.ratio) && r.ratio > 0);
  const intervals = ours.filter((r) => r.hasInterval && r.lo! > 0 && Number.isFinite(r.hi));
  const all = [
    ...rows.map((r) => r.publishedRatio),
    ...ours.map((r) => r.ratio!),
    ...intervals.flatMap((r) => [r.lo!, r.hi!]),
    1,
  ];
  const lo = Math.min(...all) / 1.3;
  const hi = Math.max(...all) * 1.3;
  return render(
    {
      width: 720,
      height: 60 + rows.length * (opts.compact ? 22 : 28),
      // Room for the longest label (the table beside gives the claim's words).
      marginLeft: Math.min(320, 20 + 6.6 * Math.max(...labels.map((l) => l.length))),
      marginRight: 20,
      marginBottom: 40,
      x: {
        type: "log",
        domain: [lo, hi],
        label: "times better: claimed system ÷ the other (log scale) →",
        grid: true,
        tickFormat: (d: number) => `${num(d)}×`,
      },
      y: { label: null, domain: labels },
      color: { domain: Object.keys(verdictColor), range: Object.values(verdictColor), legend: !opts.compact },
      marks: [
        Plot.ruleY(labels, { stroke: "#eee" }),
        Plot.ruleX([1], { stroke: "#222", strokeDasharray: "3,3" }),
        Plot.ruleY(intervals, {
          y: (d: ClaimVerdict) => labelOf.get(d),
          x1: "lo",
          x2: "hi",
          stroke: (d: ClaimVerdict) => d.verdict,
          strokeWidth: 2,
        }),
        Plot.dot(rows, {
          y: (d: ClaimVerdict) => labelOf.get(d),
          x: "publishedRatio",
          symbol: "diamond",
          r: 5,
          stroke: "#8a5a00",
          fill: "#fff",
          strokeWidth: 1.5,
        }),
        Plot.dot(ours, {
          y: (d: ClaimVerdict) => labelOf.get(d),
          x: "ratio",
          r: 5,
          fill: (d: ClaimVerdict) => d.verdict,
          stroke: "#fff",
        }),
      ],
    },
    text,
  );
}

/** One metric of one workload over runs: each system's mean with its 95 % interval, runs in time order. */
export function historyChart(
  rows: { run: string; system: string; mean: number; lo?: number; hi?: number }[],
  unit: string,
  text: ChartText,
): string {
  const runs = [...new Set(rows.map((r) => r.run))];
  const withIv = rows.filter((r) => r.lo !== undefined && Number.isFinite(r.lo) && Number.isFinite(r.hi));
  return render(
    {
      width: 640,
      height: 70 + runs.length * 26,
      marginLeft: 230,
      marginRight: 20,
      marginBottom: 40,
      x: { label: `${unit} →`, grid: true, zero: true, nice: true },
      y: { label: null, domain: runs },
      color: { ...colorScale(rows.map((r) => r.system)), legend: true },
      marks: [
        Plot.ruleY(runs, { stroke: "#eee" }),
        Plot.ruleY(withIv, { y: "run", x1: "lo", x2: "hi", stroke: "system", dy: 0 }),
        Plot.dot(rows, { y: "run", x: "mean", fill: "system", r: 5, stroke: "#fff" }),
        Plot.ruleX([0]),
      ],
    },
    text,
  );
}

/** "20261125T053630Z-quick-vm" → "11-25 05:36 quick": a replicate's row label, short enough for 390 px. */
export function runLabel(runId: string): string {
  const m = /^\d{4}(\d\d)(\d\d)T(\d\d)(\d\d)\d\dZ-(.+?)(-vm)?$/.exec(runId);
  return m ? `${m[1]}-${m[2]} ${m[3]}:${m[4]} ${m[5]}` : runId;
}

const HOST_COLORS = ["#1b6ca8", "#c05a00", "#6a3d9a", "#2e7d32", "#b0306a", "#5d6d00"];
const COMBINED = "all combined";
const NEW_RUN = "a new run";

/**
 * A claim's forest plot: every replicate run's ratio with its own 95 % interval (coloured by host type), the
 * random-effects combination and its interval (black diamond), the prediction interval for a new run (from 3
 * replicates), the seed's ratio (dotted brown line, its own hardware) and the region where the claim holds
 * (green band). Log x, as the verdict chart; 340 px wide so that it fits a phone's column at 12 px text.
 */
export function forestChart(row: ClaimVerdict, text: ChartText): string {
  const x = row.replicates!;
  const runs = [...x.perRun].sort((p, q) => p.run_id.localeCompare(q.run_id));
  const labels = runs.map((r) => runLabel(r.run_id));
  const rows = [...labels, COMBINED, ...(x.predLo !== undefined ? [NEW_RUN] : [])];
  const region = claimRegion(row.claim);
  const finite = [
    ...runs.flatMap((r) => [r.lo, r.hi]),
    x.lo,
    x.hi,
    x.predLo ?? x.lo,
    x.predHi ?? x.hi,
    row.publishedRatio,
    ...(Number.isFinite(region.hi) ? [region.hi] : []),
    ...(region.lo > 0 ? [region.lo] : []),
  ].filter((v) => Number.isFinite(v) && v > 0);
  const lo = Math.min(...finite) / 1.15;
  const hi = Math.max(...finite) * 1.15;
  const hosts = [...new Set(runs.map((r) => r.host))].sort();
  const perRun = runs.map((r, i) => ({ ...r, label: labels[i] }));
  const summary = [
    { label: COMBINED, ratio: x.ratio, lo: x.lo, hi: x.hi },
    ...(x.predLo !== undefined ? [{ label: NEW_RUN, ratio: x.ratio, lo: x.predLo, hi: x.predHi! }] : []),
  ];
  return render(
    {
      width: 340,
      height: 80 + rows.length * 22,
      marginLeft: 118,
      marginRight: 16,
      x: {
        type: "log",
        domain: [lo, hi],
        label: "claimed ÷ other →",
        grid: true,
        ticks: 5,
        tickFormat: (d: number) => `${num(d)}×`,
      },
      y: { label: null, domain: rows },
      color: {
        domain: hosts,
        range: hosts.map((_, i) => HOST_COLORS[i % HOST_COLORS.length]),
        legend: true,
      },
      marks: [
        Plot.rectX([region], {
          x1: (d: typeof region) => Math.max(d.lo, lo),
          x2: (d: typeof region) => Math.min(d.hi, hi),
          fill: "#e3f1e6",
        }),
        Plot.ruleX([1], { stroke: "#222", strokeDasharray: "3,3" }),
        Plot.ruleX([row.publishedRatio], {
          stroke: "#8a5a00",
          strokeDasharray: "1,2",
        }),
        Plot.ruleY(perRun, {
          y: "label",
          x1: "lo",
          x2: "hi",
          stroke: "host",
          strokeWidth: 2,
        }),
        Plot.dot(perRun, {
          y: "label",
          x: "ratio",
          fill: "host",
          r: 4,
          stroke: "#fff",
        }),
        Plot.ruleY(summary, {
          y: "label",
          x1: "lo",
          x2: "hi",
          stroke: "#111",
          strokeWidth: 2.5,
        }),
        Plot.dot(summary.slice(0, 1), {
          y: "label",
          x: "ratio",
          symbol: "diamond",
          r: 5,
          fill: "#111",
        }),
        Plot.text([row.publishedRatio], {
          x: (d: number) => d,
          frameAnchor: "top",
          dy: -8,
          text: () => "seed",
          fill: "#8a5a00",
        }),
      ],
    },
    text,
  );
}
