import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { ParseError } from "../lib/errors.ts";
import type { Measurement } from "../lib/records.ts";
import { percentileSorted } from "../lib/stats.ts";
import { publishable } from "./percentiles.ts";
import { warmupFromCell } from "./warmup.ts";

// pgbench (PostgreSQL 15+) summary on stdout, progress lines (-P) on stderr or stdout, and, when run
// with --log --log-prefix=$CELL_DIR/pgbench_log, the per-transaction logs from which we take exact
// latency percentiles (pgbench itself prints only average and stddev).

function num(text: string, re: RegExp, what: string): number {
  const m = text.match(re);
  if (!m) throw new ParseError(`pgbench output has no '${what}' line`);
  return Number(m[1]);
}

// Log line: client_id transaction_no time script_no time_epoch time_us [schedule_lag]
// time is the latency in microseconds, or 'failed'/'skipped' for transactions that did not complete.
export function latenciesFromLogs(cellDir: string): { latenciesMs: Float64Array; failed: number } | null {
  let files: string[];
  try {
    files = readdirSync(cellDir).filter((f) => f.startsWith("pgbench_log."));
  } catch {
    return null;
  }
  if (files.length === 0) return null;
  const values: number[] = [];
  let failed = 0;
  for (const f of files) {
    for (const line of readFileSync(path.join(cellDir, f), "utf8").split("\n")) {
      if (!line) continue;
      const field = line.split(" ")[2];
      if (field === undefined) throw new ParseError(`pgbench log ${f}: malformed line '${line.slice(0, 80)}'`);
      if (field === "failed" || field === "skipped") failed++;
      else values.push(Number(field) / 1000);
    }
  }
  const sorted = Float64Array.from(values).sort();
  return { latenciesMs: sorted, failed };
}

export function parsePgbench(stdout: string, cellDir?: string): Measurement[] {
  if (!/^tps = [\d.]+/m.test(stdout)) {
    const err = stdout.match(/^pgbench: error: .*$/m);
    throw new ParseError(
      err ? `pgbench failed: ${err[0]}` : "pgbench output has no 'tps = ' line (did the run finish?)",
    );
  }
  const out: Measurement[] = [];
  const add = (metric: string, value: number, unit: Measurement["unit"], t: number | null = null) => {
    if (!Number.isFinite(value)) throw new ParseError(`pgbench ${metric} is not a number`);
    out.push({ metric, value, unit, t });
  };
  add(
    "tps",
    num(stdout, /^tps = ([\d.]+) \(without initial connection time\)/m, "tps = … (without initial connection time)"),
    "tx/s",
  );
  add(
    "transactions",
    num(stdout, /^number of transactions actually processed: (\d+)/m, "number of transactions actually processed"),
    "count",
  );
  const failed = stdout.match(/^number of failed transactions: (\d+)/m);
  add("errors", failed ? Number(failed[1]) : 0, "count");
  add("latency_avg", num(stdout, /^latency average = ([\d.]+) ms/m, "latency average"), "ms");
  const sd = stdout.match(/^latency stddev = ([\d.]+) ms/m);
  if (sd) add("latency_stddev", Number(sd[1]), "ms");
  const conn = stdout.match(/^initial connection time = ([\d.]+) ms/m);
  if (conn) add("connection_time", Number(conn[1]), "ms");

  // progress: 1.0 s, 1234.0 tps, lat 1.614 ms stddev 0.345, 0 failed
  for (const m of stdout.matchAll(/^progress: ([\d.]+) s, ([\d.]+) tps, lat ([\d.]+) ms/gm)) {
    add("tps_series", Number(m[2]), "tx/s", Number(m[1]));
    add("latency_avg_series", Number(m[3]), "ms", Number(m[1]));
  }

  if (cellDir) {
    const logs = latenciesFromLogs(cellDir);
    if (logs?.latenciesMs.length) {
      const l = logs.latenciesMs;
      // A percentile needs at least 10/(1-p) logged transactions (percentiles.ts).
      for (const p of [50, 95, 99])
        if (publishable(`p${p}`, l.length)) add(`latency_p${p}`, percentileSorted(l, p), "ms");
      // No latency_min: the log has whole microseconds and its minimum is often 0.000 ms, an artefact
      // of the resolution, not a figure.
      add("latency_max", l[l.length - 1], "ms");
    }
  }
  out.push(...warmupFromCell(cellDir));
  return out;
}

export function parse(ctx: { stdout: string; cellDir: string }): Measurement[] {
  return parsePgbench(ctx.stdout, ctx.cellDir);
}
