import { readFileSync, existsSync } from "node:fs";
import path from "node:path";
import { ParseError } from "../lib/errors.ts";
import type { Measurement } from "../lib/records.ts";
import { publishable } from "./percentiles.ts";
import { warmupMeasurements } from "./warmup.ts";

// pgwire-tp (bench-scripts/loadgen/pgwire-tp) prints one JSON object on stdout and writes the same
// to $CELL_DIR/pgwire-tp.json: closed-loop throughput over N persistent PostgreSQL-wire connections.

function field(obj: Record<string, unknown>, key: string, where = "pgwire-tp output"): number {
  const v = obj[key];
  if (typeof v !== "number" || !Number.isFinite(v))
    throw new ParseError(`${where}: '${key}' is missing or not a number`);
  return v;
}

export function parsePgwireTp(text: string): Measurement[] {
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(text) as Record<string, unknown>;
  } catch (e) {
    throw new ParseError(`pgwire-tp output is not JSON: ${(e as Error).message}`);
  }
  if (doc === null || typeof doc !== "object" || doc.tool !== "pgwire-tp")
    throw new ParseError('pgwire-tp output: expected a JSON object with tool "pgwire-tp"');
  const queries = field(doc, "queries");
  const errors = field(doc, "errors");
  const lat = doc.latency_ms as Record<string, unknown> | undefined;
  if (!lat || typeof lat !== "object") throw new ParseError("pgwire-tp output: 'latency_ms' is missing");
  // Every query failed: the workload did not run on this system, so there is no throughput to publish
  // (a qps of 0 would rank it last instead of saying why); the cell fails with the engine's own error.
  if (queries === 0 && errors > 0) {
    const first =
      typeof doc.first_error === "string" && doc.first_error ? `; first error: ${doc.first_error.slice(0, 300)}` : "";
    throw new ParseError(
      `pgwire-tp: every query failed (${errors} errors, 0 succeeded): the workload did not run${first}`,
    );
  }
  const out: Measurement[] = [
    { metric: "qps", value: field(doc, "qps"), unit: "q/s" },
    { metric: "errors", value: errors, unit: "count" },
    { metric: "queries", value: queries, unit: "count" },
  ];
  // With no successful query (and no error: an empty window) there is no latency to report.
  // A percentile needs at least 10/(1-p) queries (percentiles.ts).
  if (queries > 0) {
    for (const k of ["p50", "p99", "max"])
      if (publishable(k, queries))
        out.push({ metric: `latency_${k}`, value: field(lat, k, "pgwire-tp latency_ms"), unit: "ms" });
  }
  out.push(...warmupMeasurements(doc));
  const series = doc.per_second;
  if (Array.isArray(series)) {
    series.forEach((n, i) => {
      if (typeof n === "number") out.push({ metric: "qps_series", value: n, unit: "q/s", t: i + 1 });
    });
  }
  return out;
}

export function parse(ctx: { cellDir: string; stdout: string; workload: Record<string, unknown> }): Measurement[] {
  const file = path.join(ctx.cellDir, "pgwire-tp.json");
  const text = existsSync(file) ? readFileSync(file, "utf8") : ctx.stdout;
  if (!text.trim()) throw new ParseError("pgwire-tp produced no output (no pgwire-tp.json and empty stdout)");
  return parsePgwireTp(text);
}
