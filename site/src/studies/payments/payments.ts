// The payments study (seed 004, Reserva) as one run measured it: per engine × variant cells with
// their statistics over repetitions, the per-second series, round-trip latency, errors, invariants,
// the as-published vs parity difference and the engine ratios beside the published figures.
// Charts reuse site/src/lib/charts.ts (render, colorScale); every number here is derived from records.
import * as Plot from "@observablehq/plot";
import { render, colorScale, type ChartText } from "../../lib/charts.ts";
import { cellStats, type CellStat } from "../../lib/stats.ts";
import type { ResultRecord, RunManifest, Study } from "../../lib/data.ts";

export const VARIANTS = ["as-published", "parity"] as const;
export const ROUND_TRIPS = [
  { key: "rt1_auth_acquiring", label: "RT1 auth of the requesting user (token)" },
  { key: "rt2_card_account", label: "RT2 card + account read" },
  { key: "rt3_auth_issuing", label: "RT3 auth of the approver (token)" },
  { key: "rt4_transfer_write", label: "RT4 transfer write (routine)" },
  { key: "delete", label: "delete of a transfer (every 20th)" },
];

export interface PaymentsCell {
  system: string;
  version: string;
  variant: string;
  concurrency: number;
  stat: (metric: string) => CellStat | undefined;
  /** every repetition's cell in the manifest (status, reason) */
  runs: { repetition: number; status: string; reason: string; invariantOk: boolean }[];
  errorClasses: { name: string; total: number }[];
  rejectClasses: { name: string; total: number }[];
}

export function paymentsCells(study: Study, run: RunManifest, records: ResultRecord[]): PaymentsCell[] {
  const measured = records.filter((r) => r.source === "measured" && r.study === study.name && r.run_id === run.run_id);
  const stats = cellStats(measured);
  const manifestCells = run.cells.filter((c) => c.study === study.name && c.status !== "skipped");
  const keys = [...new Set(manifestCells.map((c) => `${c.system}\u0000${c.variant}\u0000${c.concurrency}`))];
  return keys
    .map((k) => {
      const [system, variant, conc] = k.split("\u0000");
      const concurrency = Number(conc);
      const mine = stats.filter((s) => s.system === system && s.variant === variant && s.concurrency === concurrency);
      const classes = (prefix: string) =>
        mine
          .filter((s) => s.metric.startsWith(prefix))
          .map((s) => ({
            name: s.metric.slice(prefix === "reject_" ? 0 : prefix.length),
            total: s.values.reduce((a, v) => a + v, 0),
          }));
      const runs = manifestCells
        .filter((c) => c.system === system && c.variant === variant && c.concurrency === concurrency)
        .sort((a, b) => a.repetition - b.repetition)
        .map((c) => ({
          repetition: c.repetition,
          status: c.status,
          reason: c.reason,
          invariantOk: measured.some(
            (r) =>
              r.system === system &&
              r.variant === variant &&
              r.repetition === c.repetition &&
              r.metric === "invariant_violations" &&
              r.value === 0,
          ),
        }));
      return {
        system,
        variant,
        concurrency,
        runs,
        version: mine[0]?.system_version ?? run.systems[system]?.version ?? "",
        stat: (metric: string) => mine.find((s) => s.metric === metric),
        errorClasses: classes("error_"),
        rejectClasses: classes("reject_"),
      };
    })
    .sort(
      (a, b) =>
        a.system.localeCompare(b.system) || VARIANTS.indexOf(a.variant as never) - VARIANTS.indexOf(b.variant as never),
    );
}

/** Ratio of two cells' mean transfers/s, with whether their 95 % intervals are apart. */
export function tpsRatio(
  a: PaymentsCell | undefined,
  b: PaymentsCell | undefined,
): { ratio: number; apart: boolean | undefined } | undefined {
  const sa = a?.stat("tps");
  const sb = b?.stat("tps");
  if (!sa || !sb || !(sb.ci.mean > 0)) return undefined;
  const apart = sa.ci.method === "t" && sb.ci.method === "t" ? sa.ci.lo > sb.ci.hi || sb.ci.lo > sa.ci.hi : undefined;
  return { ratio: sa.ci.mean / sb.ci.mean, apart };
}

/** Transfers/s per engine, faceted by variant: every repetition as a dot, the mean with its 95 % interval as a bar. */
export function tpsChart(cells: PaymentsCell[], text: ChartText): string {
  const rows = cells.filter((c) => c.stat("tps"));
  const reps = rows.flatMap((c) =>
    c.stat("tps")!.values.map((v) => ({ system: c.system, variant: c.variant, value: v })),
  );
  const means = rows.map((c) => {
    const s = c.stat("tps")!;
    return {
      system: c.system,
      variant: c.variant,
      mean: s.ci.mean,
      lo: s.ci.method === "t" ? Math.max(0, s.ci.lo) : s.min,
      hi: s.ci.method === "t" ? s.ci.hi : s.max,
    };
  });
  return render(
    {
      width: 640,
      height: 90 + 60 * VARIANTS.length,
      marginLeft: 90,
      marginRight: 90,
      x: { label: "transfers per second →", grid: true, zero: true },
      y: { label: null },
      fy: { label: null, domain: [...VARIANTS] },
      color: { ...colorScale(rows.map((c) => c.system)), legend: true },
      marks: [
        Plot.ruleY(means, {
          fy: "variant",
          y: "system",
          x1: "lo",
          x2: "hi",
          stroke: "system",
          strokeWidth: 6,
          strokeOpacity: 0.35,
        }),
        Plot.tickX(means, { fy: "variant", y: "system", x: "mean", stroke: "system", strokeWidth: 2 }),
        Plot.dot(reps, { fy: "variant", y: "system", x: "value", fill: "system", r: 3 }),
        Plot.ruleX([0]),
      ],
    },
    text,
  );
}

/** Per-second transfers of every repetition, one panel per variant, one line per engine × repetition; warm-up (t ≤ 0) shaded. */
export function seriesChart(series: ResultRecord[], text: ChartText): string {
  const minT = Math.min(0, ...series.map((r) => r.t ?? 0));
  return render(
    {
      width: 680,
      height: 150 + 130 * VARIANTS.length,
      marginLeft: 60,
      marginRight: 90,
      x: { label: "seconds into the measured window (≤ 0: warm-up) →" },
      y: { label: "↑ transfers per second", grid: true, zero: true },
      fy: { label: null, domain: [...VARIANTS] },
      color: { ...colorScale(series.map((r) => r.system)), legend: true },
      marks: [
        Plot.rectX([{ x1: minT, x2: 0.5 }], { x1: "x1", x2: "x2", fill: "#888", fillOpacity: 0.12 }),
        Plot.lineY(series, {
          fy: "variant",
          x: "t",
          y: "value",
          stroke: "system",
          z: (d: ResultRecord) => `${d.system} r${d.repetition}`,
          strokeWidth: 1.1,
          strokeOpacity: 0.8,
        }),
        Plot.ruleY([0]),
      ],
    },
    text,
  );
}

/** Median p50 and p99 per round trip, engine and variant (horizontal bars, log scale). */
export function roundTripChart(cells: PaymentsCell[], text: ChartText): string {
  const rows = cells.flatMap((c) =>
    ROUND_TRIPS.flatMap((rt) => {
      const p50 = c.stat(`${rt.key}_p50`);
      const p99 = c.stat(`${rt.key}_p99`);
      return p50 && p99
        ? [{ label: `${c.system} · ${c.variant}`, system: c.system, rt: rt.label, p50: p50.median, p99: p99.median }]
        : [];
    }),
  );
  return render(
    {
      width: 680,
      height: 80 + 22 * rows.length,
      marginLeft: 250,
      marginRight: 20,
      x: { type: "log", label: "milliseconds (log): bar to p50, tick at p99 →", grid: true },
      y: { label: null },
      fy: { label: null, domain: ROUND_TRIPS.map((r) => r.label).filter((l) => rows.some((x) => x.rt === l)) },
      color: { ...colorScale(rows.map((r) => r.system)), legend: true },
      marks: [
        Plot.barX(rows, { fy: "rt", y: "label", x1: 0.01, x2: "p50", fill: "system", fillOpacity: 0.75 }),
        Plot.tickX(rows, { fy: "rt", y: "label", x: "p99", stroke: "system", strokeWidth: 2 }),
      ],
    },
    text,
  );
}

/**
 * The seed's own way of counting: rows left in the transfers table (counted per minute afterwards, so
 * deleted rows are lost), divided by the seconds the loop ran (warm-up included: the table cannot tell
 * them apart). Mean over repetitions.
 */
export function tableCountTps(
  records: ResultRecord[],
  runId: string,
  study: string,
  system: string,
  variant: string,
): number | undefined {
  const mine = records.filter(
    (r) =>
      r.source === "measured" &&
      r.run_id === runId &&
      r.study === study &&
      r.system === system &&
      r.variant === variant,
  );
  const reps = [...new Set(mine.filter((r) => r.metric === "transfers_per_minute_table").map((r) => r.repetition))];
  const perRep = reps
    .map((rep) => {
      const rows = mine
        .filter((r) => r.repetition === rep && r.metric === "transfers_per_minute_table")
        .reduce((a, r) => a + r.value, 0);
      const seconds = mine.filter((r) => r.repetition === rep && r.metric === "tps_series").length;
      return seconds > 0 ? rows / seconds : NaN;
    })
    .filter((v) => Number.isFinite(v));
  return perRep.length ? perRep.reduce((a, v) => a + v, 0) / perRep.length : undefined;
}
