import { readFileSync, existsSync } from "node:fs";
import path from "node:path";
import { ParseError } from "../lib/errors.ts";
import type { Measurement } from "../lib/records.ts";
import { publishable } from "./percentiles.ts";
import { warmupMeasurements } from "./warmup.ts";

// reserva (bench-scripts/loadgen/reserva, the payments study) prints one JSON report on stdout and
// writes the same to $CELL_DIR/reserva.json: transfers and actions (transfers + deletes) over the
// measured window, HdrHistogram latency per transfer and per round trip, errors and application
// rejects by class, per-second series (warm-up first), the upstream-style per-minute counts from the
// transfers table, CPU, and the invariant check.
//
// Metrics: tps (transfers per second), actions_per_s (transfers + deletes per second: the seed's
// figure), transfers, deletes, latency_{mean,p50,p90,p99,p999,max} of a whole transfer,
// <round trip>_{p50,p90,p99,p999,max} for rt1_auth_acquiring, rt2_card_account, rt3_auth_issuing,
// rt4_transfer_write and delete, errors / rejects (totals), error_<class> / reject_<class>,
// tps_series and errors_series (t = second of the measured window, 1-based; warm-up seconds have
// t <= 0), transfers_per_minute_table (t = minute, 1-based), server_cpu_ms_per_1k_transfers,
// loadgen_cpu_ms_per_1k_transfers, loadgen_cpu_share, invariant_violations.

type Obj = Record<string, unknown>;

function num(obj: Obj, key: string, where: string): number {
  const v = obj[key];
  if (typeof v !== "number" || !Number.isFinite(v))
    throw new ParseError(`${where}: '${key}' is missing or not a number`);
  return v;
}

function obj(parent: Obj, key: string, where: string): Obj {
  const v = parent[key];
  if (v === null || typeof v !== "object" || Array.isArray(v))
    throw new ParseError(`${where}: '${key}' is missing or not an object`);
  return v as Obj;
}

function numbers(v: unknown, where: string): number[] {
  if (!Array.isArray(v) || v.some((x) => typeof x !== "number"))
    throw new ParseError(`${where} is not an array of numbers`);
  return v as number[];
}

const metricName = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, "_");
const round = (v: number, digits = 3) => Math.round(v * 10 ** digits) / 10 ** digits;

const W = "reserva output";

/** The report as an object, after its invariant check (a violated invariant fails the cell). */
function readReport(text: string): Obj {
  let doc: Obj;
  try {
    doc = JSON.parse(text) as Obj;
  } catch (e) {
    throw new ParseError(`reserva output is not JSON: ${(e as Error).message}`);
  }
  if (doc === null || typeof doc !== "object" || doc.tool !== "reserva")
    throw new ParseError('reserva output: expected a JSON object with tool "reserva"');
  const inv = obj(doc, "invariants", W);
  if (inv.ok !== true) {
    const v = Array.isArray(inv.violations) ? (inv.violations as string[]).join("; ") : "no detail";
    throw new ParseError(`reserva output: invariant violated: ${v}`);
  }
  return doc;
}

/** Latency of a whole transfer, of each round trip and of deletes: only percentiles with enough observations. */
function latencyMeasurements(doc: Obj, transfers: number): Measurement[] {
  const out: Measurement[] = [];
  const lat = obj(doc, "latency_ms", W);
  const summary = (key: string) => obj(lat, key, `${W} latency_ms`);
  // A percentile needs at least 10/(1-p) observations in its histogram (percentiles.ts); the
  // histogram's count, else the transfers of the window.
  const countOf = (s: Obj, fallback: number) => (typeof s.count === "number" ? s.count : fallback);
  if (transfers > 0) {
    const t = summary("transfer");
    const n = countOf(t, transfers);
    for (const p of ["mean", "p50", "p90", "p99", "p999", "max"])
      if (publishable(p, n)) out.push({ metric: `latency_${p}`, value: num(t, p, "latency_ms.transfer"), unit: "ms" });
    for (const rt of ["rt1_auth_acquiring", "rt2_card_account", "rt3_auth_issuing", "rt4_transfer_write"]) {
      const s = summary(rt);
      const m = countOf(s, transfers);
      for (const p of ["p50", "p90", "p99", "p999", "max"])
        if (publishable(p, m)) out.push({ metric: `${rt}_${p}`, value: num(s, p, `latency_ms.${rt}`), unit: "ms" });
    }
  }
  const del = summary("delete");
  const dels = num(del, "count", "latency_ms.delete");
  if (dels > 0) {
    for (const p of ["p50", "p99", "max"])
      if (publishable(p, dels))
        out.push({ metric: `delete_${p}`, value: num(del, p, "latency_ms.delete"), unit: "ms" });
  }
  return out;
}

/** Errors and application rejects by class, and their totals. */
function errorMeasurements(doc: Obj): Measurement[] {
  const out: Measurement[] = [];
  let errTotal = 0;
  let rejTotal = 0;
  for (const [cls, n] of Object.entries(obj(doc, "errors", W))) {
    if (typeof n !== "number") throw new ParseError(`${W}: errors.${cls} is not a number`);
    errTotal += n;
    out.push({ metric: `error_${metricName(cls)}`, value: n, unit: "count" });
  }
  for (const [cls, n] of Object.entries(obj(doc, "rejects", W))) {
    if (typeof n !== "number") throw new ParseError(`${W}: rejects.${cls} is not a number`);
    rejTotal += n;
    out.push({
      metric: metricName(cls).startsWith("reject_") ? metricName(cls) : `reject_${metricName(cls)}`,
      value: n,
      unit: "count",
    });
  }
  out.push({ metric: "errors", value: errTotal, unit: "count" }, { metric: "rejects", value: rejTotal, unit: "count" });
  return out;
}

/** Per-second series (index i is second i of the loop; the first warmup_s are the warm-up, t <= 0) and the seed's per-minute table counts. */
function seriesMeasurements(doc: Obj): Measurement[] {
  const out: Measurement[] = [];
  const series = obj(doc, "series", W);
  const warm = num(series, "warmup_s", `${W} series`);
  const transfers = numbers(series.transfers, `${W} series.transfers`);
  transfers.forEach((n, i) => {
    out.push({ metric: "tps_series", value: n, unit: "tx/s", t: i - warm + 1 });
  });
  const errSeries = obj(series, "errors", `${W} series`);
  const errorClasses = Object.keys(errSeries).filter((c) => !c.startsWith("reject_"));
  if (errorClasses.length) {
    const sums = new Array<number>(transfers.length).fill(0);
    for (const c of errorClasses)
      numbers(errSeries[c], `${W} series.errors.${c}`).forEach((n, i) => {
        if (i < sums.length) sums[i] += n;
      });
    sums.forEach((n, i) => {
      out.push({ metric: "errors_series", value: n, unit: "count", t: i - warm + 1 });
    });
  }
  // The seed's own figure: transfers per minute counted afterwards from the table (deleted rows lost).
  const perMinute = doc.table_per_minute;
  if (Array.isArray(perMinute)) {
    perMinute.forEach((m, i) => {
      out.push({
        metric: "transfers_per_minute_table",
        value: num(m as Obj, "count", `${W} table_per_minute[${i}]`),
        unit: "count",
        t: i + 1,
      });
    });
  }
  return out;
}

function cpuMeasurements(doc: Obj, transfers: number): Measurement[] {
  const out: Measurement[] = [];
  const cpu = obj(doc, "cpu", W);
  if (cpu.server_sampled === true && transfers > 0) {
    out.push({
      metric: "server_cpu_ms_per_1k_transfers",
      value: round(num(cpu, "server_ms_per_1k_transfers", `${W} cpu`), 1),
      unit: "ms",
    });
    out.push({ metric: "loadgen_cpu_share", value: round(num(cpu, "loadgen_share", `${W} cpu`), 4), unit: "ratio" });
  }
  if (transfers > 0)
    out.push({
      metric: "loadgen_cpu_ms_per_1k_transfers",
      value: round(num(cpu, "loadgen_ms_per_1k_transfers", `${W} cpu`), 1),
      unit: "ms",
    });
  return out;
}

export function parseReserva(text: string): Measurement[] {
  const doc = readReport(text);
  const transfers = num(doc, "transfers", W);
  return [
    { metric: "tps", value: round(num(doc, "transfers_per_s", W)), unit: "tx/s" },
    { metric: "actions_per_s", value: round(num(doc, "actions_per_s", W)), unit: "tx/s" },
    { metric: "transfers", value: transfers, unit: "count" },
    { metric: "deletes", value: num(doc, "deletes", W), unit: "count" },
    { metric: "invariant_violations", value: 0, unit: "count" },
    ...latencyMeasurements(doc, transfers),
    // The steady-state warm-up this cell took (reserva -warmup-max) and whether it got there.
    ...warmupMeasurements(doc),
    ...errorMeasurements(doc),
    ...seriesMeasurements(doc),
    ...cpuMeasurements(doc, transfers),
  ];
}

export function parse(ctx: { cellDir: string; stdout: string; workload: Record<string, unknown> }): Measurement[] {
  const file = path.join(ctx.cellDir, "reserva.json");
  const text = existsSync(file) ? readFileSync(file, "utf8") : ctx.stdout;
  if (!text.trim()) throw new ParseError("reserva produced no output (no reserva.json and empty stdout)");
  return parseReserva(text);
}
