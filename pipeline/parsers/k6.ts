import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { ParseError } from "../lib/errors.ts";
import type { Measurement, Unit } from "../lib/records.ts";
import { parseJson } from "./json-output.ts";
import { publishable } from "./percentiles.ts";
import { warmupFromCell } from "./warmup.ts";

// k6 driving an MCP tool (bench-scripts/loadgen/mcp-load/k6/mcp-call.js, the mcp-db study's
// client_ceiling_k6 workload). stdout is the script's handleSummary JSON: measured-scenario
// figures only (the warm-up is a separate scenario), latency = k6's http_req_duration of each
// tools/call, so it covers the HTTP request only, not the script's JavaScript. The run verb also
// leaves in the cell folder
//   k6-cpu.json  k6's own CPU per call over a window inside the measured scenario (k6-with-cpu.py)
//   faults.json  {server_alive_after_run, ...} for mcp-trivial
// Metric names match the mcp-load parser's so the two clients line up on the page.

interface Summary {
  tool: string;
  concurrency: number;
  calls: number;
  ok: number;
  errors: { total: number };
  throughput_per_s: number;
  latency_ms: Record<string, number | null>;
}

const LATENCY_KEYS = ["p50", "p90", "p95", "p99", "p999", "max", "mean"] as const;

const isNum = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);

function summary(doc: unknown): Summary {
  const s = doc as Summary;
  const what = "k6 output";
  if (!s || typeof s !== "object" || s.tool !== "k6")
    throw new ParseError(`${what}: expected k6/mcp-call.js's summary (field tool = "k6")`);
  for (const k of ["calls", "ok", "throughput_per_s", "concurrency"] as const) {
    if (!isNum(s[k])) throw new ParseError(`${what}: '${k}' is missing or not a number`);
  }
  if (!s.errors || !isNum(s.errors.total)) throw new ParseError(`${what}: 'errors.total' is missing or not a number`);
  if (s.ok + s.errors.total !== s.calls)
    throw new ParseError(`${what}: ok (${s.ok}) + errors (${s.errors.total}) is not calls (${s.calls})`);
  if (!s.latency_ms || typeof s.latency_ms !== "object") throw new ParseError(`${what}: 'latency_ms' is missing`);
  // k6 has no latency sample when no call succeeded or none was sent: then every key is null.
  const present = LATENCY_KEYS.filter((k) => s.latency_ms[k] !== null && s.latency_ms[k] !== undefined);
  if (present.length > 0) {
    for (const k of LATENCY_KEYS)
      if (!isNum(s.latency_ms[k])) throw new ParseError(`${what}: latency_ms.${k} is missing or not a number`);
  }
  return s;
}

export function parseK6(stdout: string, cellDir?: string): Measurement[] {
  const s = summary(parseJson(stdout, "k6 output"));
  const out: Measurement[] = [];
  const add = (metric: string, value: number, unit: Unit) => out.push({ metric, value, unit, t: null });

  add("throughput", s.throughput_per_s, "calls/s");
  add("calls", s.calls, "count");
  add("errors", s.errors.total, "count");
  // mcp-call.js adds every tools/call to its latency trend, failed ones too (a refused connection
  // counts as 0 ms), while mcp-load's percentiles are of successful calls only. With errors the
  // k6 percentiles would mix the two, so they are withheld: the cell shows its errors instead.
  // A percentile needs at least 10/(1-p) calls in its sample (percentiles.ts).
  if (isNum(s.latency_ms.p50) && s.errors.total === 0)
    for (const k of LATENCY_KEYS) if (publishable(k, s.ok)) add(`latency_${k}`, s.latency_ms[k] as number, "ms");

  if (!cellDir) return out;
  out.push(...warmupFromCell(cellDir));
  const cpuFile = path.join(cellDir, "k6-cpu.json");
  if (existsSync(cpuFile)) {
    const cpu = parseJson(readFileSync(cpuFile, "utf8"), "k6-cpu.json") as { per_call_us?: unknown; window?: unknown };
    // null when k6 ended before the window closed: no figure rather than a wrong one.
    if (cpu.per_call_us !== null && cpu.per_call_us !== undefined) {
      if (!isNum(cpu.per_call_us) || cpu.per_call_us <= 0)
        throw new ParseError(
          `k6-cpu.json: per_call_us must be a positive number or null, got ${JSON.stringify(cpu.per_call_us)}`,
        );
      add("client_cpu_per_call", cpu.per_call_us, "us");
    }
  }
  const faultsFile = path.join(cellDir, "faults.json");
  if (existsSync(faultsFile)) {
    const f = parseJson(readFileSync(faultsFile, "utf8"), "faults.json") as Record<string, unknown>;
    if (f.server_alive_after_run === false) add("server_crashed", 1, "count");
  }
  return out;
}

export function parse(ctx: { cellDir: string; stdout: string }): Measurement[] {
  return parseK6(ctx.stdout, ctx.cellDir);
}
