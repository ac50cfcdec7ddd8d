import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { ParseError } from "../lib/errors.ts";
import type { Measurement, Unit } from "../lib/records.ts";
import { parseJson } from "./json-output.ts";
import { publishable } from "./percentiles.ts";

// mcp-load (bench-scripts/loadgen/mcp-load): one JSON report on stdout. The mcp-db study's run
// verb also leaves in the cell folder
//   direct.json  mcpdb-direct's report: the same queries through the database's own driver, no MCP
//   faults.json  {server_alive_after_run, direct_ok, ...}
// from which come direct_* metrics, the MCP overhead (MCP latency minus direct latency, same
// queries, same concurrency) and a server_crashed marker. Warm-up is already excluded by both tools.

interface LatencyMs {
  p50: number;
  p90: number;
  p95: number;
  p99: number;
  p999: number;
  max: number;
  mean: number;
}
interface Report {
  tool: string;
  calls: number;
  ok?: number;
  warmup_s?: number;
  steady?: boolean | null;
  dropped?: number;
  errors: { total: number; by_kind?: Record<string, number> };
  throughput_per_s: number;
  latency_ms: LatencyMs | null;
  cpu?: { user_s: number; sys_s: number; per_call_us: number };
  session_reinits?: number;
}

const LATENCY_KEYS = ["p50", "p90", "p95", "p99", "p999", "max", "mean"] as const;

function isNum(v: unknown): v is number {
  return typeof v === "number" && Number.isFinite(v);
}

// Checks the fields every report (mcp-load's and mcpdb-direct's) shares.
function report(doc: unknown, tool: string, what: string): Report {
  const r = doc as Report;
  if (!r || typeof r !== "object" || r.tool !== tool)
    throw new ParseError(`${what}: expected a ${tool} report (field tool = "${tool}")`);
  if (!isNum(r.calls)) throw new ParseError(`${what}: 'calls' is missing or not a number`);
  if (!isNum(r.throughput_per_s)) throw new ParseError(`${what}: 'throughput_per_s' is missing or not a number`);
  if (!r.errors || !isNum(r.errors.total)) throw new ParseError(`${what}: 'errors.total' is missing or not a number`);
  if (r.latency_ms !== null) {
    if (typeof r.latency_ms !== "object") throw new ParseError(`${what}: 'latency_ms' must be an object or null`);
    for (const k of LATENCY_KEYS)
      if (!isNum(r.latency_ms[k])) throw new ParseError(`${what}: latency_ms.${k} is missing or not a number`);
  }
  return r;
}

// errors_<kind>: kinds are mcp-load's (transport, timeout, http_<status>, jsonrpc_<code>,
// tool_is_error, protocol, session_lost, ...), made metric-safe.
function kindMetric(prefix: string, kind: string): string {
  return `${prefix}errors_${kind
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_|_$/g, "")}`;
}

// Successful calls: the latency sample (older reports without 'ok': calls - errors).
function okOf(r: Report): number {
  return isNum(r.ok) ? r.ok : Math.max(0, r.calls - r.errors.total);
}

export function parseMcpLoad(stdout: string, cellDir?: string): Measurement[] {
  const r = report(parseJson(stdout, "mcp-load output"), "mcp-load", "mcp-load output");
  const out: Measurement[] = [];
  const add = (metric: string, value: number, unit: Unit) => out.push({ metric, value, unit, t: null });

  add("throughput", r.throughput_per_s, "calls/s");
  add("calls", r.calls, "count");
  add("errors", r.errors.total, "count");
  for (const [kind, n] of Object.entries(r.errors.by_kind ?? {})) if (isNum(n)) add(kindMetric("", kind), n, "count");
  // Open-loop arrivals dropped at the in-flight bound: mcp-load counts them in errors (kind dropped) too.
  if (isNum(r.dropped)) add("dropped", r.dropped, "count");
  // The warm-up this cell took (steady-state: until successive windows agreed) and whether it got there.
  if (isNum(r.warmup_s)) add("warmup_s", r.warmup_s, "s");
  if (typeof r.steady === "boolean") add("steady", r.steady ? 1 : 0, "count");
  // No successful call, no latency: the cell reports throughput 0 and its errors only. A percentile
  // needs at least 10/(1-p) successful calls (percentiles.ts).
  const okCalls = okOf(r);
  if (r.latency_ms)
    for (const k of LATENCY_KEYS) if (publishable(k, okCalls)) add(`latency_${k}`, r.latency_ms[k], "ms");
  if (r.cpu && isNum(r.cpu.per_call_us)) add("client_cpu_per_call", r.cpu.per_call_us, "us");
  if (isNum(r.session_reinits)) add("session_reinits", r.session_reinits, "count");

  if (!cellDir) return out;
  const directFile = path.join(cellDir, "direct.json");
  if (existsSync(directFile)) {
    const d = report(parseJson(readFileSync(directFile, "utf8"), "direct.json"), "mcpdb-direct", "direct.json");
    add("direct_throughput", d.throughput_per_s, "q/s");
    add("direct_errors", d.errors.total, "count");
    if (d.latency_ms) {
      const dOk = okOf(d);
      for (const k of LATENCY_KEYS) if (publishable(k, dOk)) add(`direct_latency_${k}`, d.latency_ms[k], "ms");
      if (r.latency_ms && publishable("p50", Math.min(okCalls, dOk))) {
        // What the agent pays on top of the database: same queries, same concurrency.
        const round = (x: number) => Math.round(x * 10_000) / 10_000;
        add("mcp_overhead_p50", round(r.latency_ms.p50 - d.latency_ms.p50), "ms");
        add("mcp_overhead_mean", round(r.latency_ms.mean - d.latency_ms.mean), "ms");
      }
    }
  }
  const faultsFile = path.join(cellDir, "faults.json");
  if (existsSync(faultsFile)) {
    const f = parseJson(readFileSync(faultsFile, "utf8"), "faults.json") as Record<string, unknown>;
    if (f.server_alive_after_run === false) add("server_crashed", 1, "count");
    if (f.direct_ok === false) add("direct_failed", 1, "count");
  }
  return out;
}

export function parse(ctx: { cellDir: string; stdout: string }): Measurement[] {
  return parseMcpLoad(ctx.stdout, ctx.cellDir);
}
