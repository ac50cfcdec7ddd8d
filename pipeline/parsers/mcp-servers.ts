import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { ParseError } from "../lib/errors.ts";
import type { Measurement, Unit } from "../lib/records.ts";
import { parseJson } from "./json-output.ts";
import { publishable } from "./percentiles.ts";
import { warmupFromCell } from "./warmup.ts";

// The mcp-servers study (seed 003), bench-scripts/studies/mcp-servers/run. stdout is one JSON report,
// either mcp-load's (tool "mcp-load", --mix tools.json: per-tool figures in "tools", whole_run = the
// seed's way of counting) or the study's k6 script's (tool "k6-seed003", k6/seed-003.js: steady-state
// figures, per-tool Trends, seed_way = all MCP requests over the whole run). Both report tool calls in
// the measured window: calls, ok, errors by class, throughput_per_s, merged latency_ms, tools[].
// The run verb also leaves in the cell folder
//   resources.json  measure.py: CPU seconds of the server tree, Redis, the api-service and the load
//                   generator, and the server's RSS avg/peak, over the tool's own measured window
//                   (published per 1,000 calls; the server's utilisation is the runner's cpu_util)
//   warmup.json     seed_k6: the mcp-load pre-warm's steady-state decision (warmup_s, steady)
//   open-loop-rate.json  open loop only: {closed_loop_peak, fraction, rate}
//   faults.json     {server_alive_after_run}

export const ERROR_CLASSES = [
  "http",
  "jsonrpc",
  "is_error",
  "failed_check",
  "timeout",
  "transport",
  "protocol",
  "dropped",
] as const;
export const TOOLS = ["search_products", "get_user_cart", "checkout"] as const;
const LATENCY_KEYS = ["p50", "p90", "p95", "p99", "p999", "max", "mean"] as const;

type Latency = Record<(typeof LATENCY_KEYS)[number], number> & { count?: number };
interface ToolPart {
  name: string;
  calls: number;
  ok: number;
  errors: { total: number; by_class?: Record<string, number> };
  throughput_per_s: number;
  latency_ms: Latency | null;
}
interface Report {
  tool: "mcp-load" | "k6-seed003";
  calls: number;
  ok: number;
  errors: { total: number; by_class?: Record<string, number> };
  throughput_per_s: number;
  latency_ms: Latency | null;
  tools?: ToolPart[];
  whole_run?: { calls: number; wall_s: number; rate_per_s: number };
  seed_way?: { mcp_requests: number; run_s: number; rps: number; latency_ms: Latency | null };
  requests_per_s?: number;
  warmup_s?: number;
  steady?: boolean | null;
  dropped?: number;
  open_loop?: { intended: number; sent: number; dropped: number; late: number };
  rate?: number | null;
}
interface Resources {
  window?: { seconds: number };
  error?: string;
  server?: { cpu_s: number; rss_avg_mib?: number; rss_peak_mib?: number; processes?: number };
  redis?: { cpu_s: number };
  api_service?: { cpu_s: number };
  loadgen?: { cpu_s: number };
}

const isNum = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
const round = (x: number, d = 4) => Math.round(x * 10 ** d) / 10 ** d;

function checkLatency(l: unknown, what: string): Latency | null {
  if (l === null || l === undefined) return null;
  if (typeof l !== "object") throw new ParseError(`${what} must be an object or null`);
  for (const k of LATENCY_KEYS)
    if (!isNum((l as Record<string, unknown>)[k])) throw new ParseError(`${what}.${k} is missing or not a number`);
  return l as Latency;
}

function report(doc: unknown): Report {
  const r = doc as Report;
  if (!r || typeof r !== "object" || (r.tool !== "mcp-load" && r.tool !== "k6-seed003")) {
    throw new ParseError(
      `expected an mcp-load or k6-seed003 report (field tool), got ${JSON.stringify((r as { tool?: unknown })?.tool)}`,
    );
  }
  for (const k of ["calls", "ok", "throughput_per_s"] as const)
    if (!isNum(r[k])) throw new ParseError(`${r.tool} report: '${k}' is missing or not a number`);
  if (!r.errors || !isNum(r.errors.total))
    throw new ParseError(`${r.tool} report: 'errors.total' is missing or not a number`);
  r.latency_ms = checkLatency(r.latency_ms, `${r.tool} report: latency_ms`);
  if (!Array.isArray(r.tools) || r.tools.length === 0)
    throw new ParseError(`${r.tool} report: 'tools' (per-tool figures) is missing: was mcp-load run with --mix?`);
  for (const t of r.tools) {
    if (!TOOLS.includes(t.name as (typeof TOOLS)[number]))
      throw new ParseError(`${r.tool} report: unknown tool '${t.name}' (valid: ${TOOLS.join(", ")})`);
    if (!isNum(t.calls) || !isNum(t.ok) || !isNum(t.throughput_per_s))
      throw new ParseError(`${r.tool} report: tools[${t.name}] lacks calls/ok/throughput_per_s`);
    t.latency_ms = checkLatency(t.latency_ms, `${r.tool} report: tools[${t.name}].latency_ms`);
  }
  return r;
}

// The seed's "p99" was the count-weighted average of the tools' p99s (not a percentile of the
// merged distribution); computed here from the same per-tool figures to show the difference.
function averagedPercentile(tools: ToolPart[], key: "p95" | "p99"): number | null {
  let n = 0;
  let sum = 0;
  for (const t of tools) {
    if (!t.latency_ms || t.ok === 0) continue;
    n += t.ok;
    sum += t.ok * t.latency_ms[key];
  }
  return n > 0 ? sum / n : null;
}

type Add = (metric: string, value: number, unit: Unit) => void;

/** Throughput, calls, errors by class, latency percentiles (all and per tool) and the seed's averaged percentiles. */
function addLoad(r: Report, add: Add): void {
  add("throughput", r.throughput_per_s, "calls/s");
  add("calls", r.calls, "count");
  add("errors", r.errors.total, "count");
  for (const c of ERROR_CLASSES) add(`errors_${c}`, r.errors.by_class?.[c] ?? 0, "count");
  // A percentile needs at least 10/(1-p) successful calls in its sample (percentiles.ts).
  if (r.latency_ms) for (const k of LATENCY_KEYS) if (publishable(k, r.ok)) add(`latency_${k}`, r.latency_ms[k], "ms");
  for (const t of r.tools!) {
    add(`${t.name}_throughput`, t.throughput_per_s, "calls/s");
    add(`${t.name}_errors`, t.errors?.total ?? 0, "count");
    if (t.latency_ms)
      for (const k of LATENCY_KEYS) if (publishable(k, t.ok)) add(`${t.name}_latency_${k}`, t.latency_ms[k], "ms");
  }
  for (const key of ["p95", "p99"] as const) {
    // The seed's averaged percentile: each tool's own percentile must be publishable.
    if (r.tools!.some((t) => t.latency_ms && t.ok > 0 && !publishable(key, t.ok))) continue;
    const v = averagedPercentile(r.tools!, key);
    if (v !== null) add(`seed_averaged_${key}`, v, "ms");
  }
}

/** The warm-up, the seed's way of counting (whole run), k6's own figures and the open loop's offered rate and drops. */
function addToolFigures(r: Report, add: Add): void {
  // The steady-state warm-up this cell took (mcp-load's own, or the mcp-load pre-warm before k6).
  // (mcp-load only: k6-seed003's own warmup_s is the seed's K6_WARMUP_S exclusion, not a warm-up
  // until steady; seed_k6 cells take theirs from the pre-warm's warmup.json.)
  if (r.tool === "mcp-load" && isNum(r.warmup_s)) add("warmup_s", r.warmup_s, "s");
  if (r.tool === "mcp-load" && typeof r.steady === "boolean") add("steady", r.steady ? 1 : 0, "count");
  // The seed's way of counting: everything over the whole run, warm-up and ramps included.
  if (r.tool === "mcp-load" && r.whole_run && isNum(r.whole_run.rate_per_s))
    add("seed_way_rps", r.whole_run.rate_per_s, "calls/s");
  if (r.tool === "k6-seed003" && r.seed_way && isNum(r.seed_way.rps)) {
    add("seed_way_rps", r.seed_way.rps, "calls/s");
    const sl = checkLatency(r.seed_way.latency_ms, "k6-seed003 report: seed_way.latency_ms");
    if (sl) add("seed_way_latency_mean", sl.mean, "ms");
  }
  if (r.tool === "k6-seed003" && isNum(r.requests_per_s)) add("requests_per_s", r.requests_per_s, "calls/s");
  if (r.open_loop) {
    if (isNum(r.rate)) add("offered_rate", r.rate, "calls/s");
    // Dropped arrivals are failed calls: mcp-load counts them in errors (class dropped) as well.
    add("dropped", r.open_loop.dropped, "count");
    add("open_loop_late", r.open_loop.late, "count");
  }
}

/** measure.py's resources.json: CPU per 1,000 calls of each process group, the load generator's share, the server's memory. */
function addResources(r: Report, cellDir: string, add: Add): void {
  const resFile = path.join(cellDir, "resources.json");
  if (!existsSync(resFile)) return;
  const res = parseJson(readFileSync(resFile, "utf8"), "resources.json") as Resources;
  if (res.error || !res.window || !isNum(res.window.seconds) || res.window.seconds <= 0) return;
  // Per call sent: dropped open-loop arrivals are in calls (as errors) but cost no CPU.
  const sent = r.calls - (isNum(r.open_loop?.dropped) ? r.open_loop.dropped : 0);
  const perK = (cpu: number | undefined) => (isNum(cpu) && sent > 0 ? (cpu / sent) * 1000 : null);
  const parts: [string, number | undefined][] = [
    ["server", res.server?.cpu_s],
    ["redis", res.redis?.cpu_s],
    ["api", res.api_service?.cpu_s],
    ["loadgen", res.loadgen?.cpu_s],
  ];
  for (const [name, cpu] of parts) {
    const v = perK(cpu);
    if (v !== null) add(`${name}_cpu_per_1k_calls`, v, "s");
  }
  // No server_cpu_util here: the server's CPU utilisation is the runner's cpu_util, which
  // now covers the same measured window (mcp-load --mark-dir, measure.py --k6-window touch the
  // markers); two figures of one quantity were published before (0.48-1.18x apart: the runner's
  // covered the whole cell). measure.py's server CPU stays as CPU per 1,000 calls.
  if (isNum(res.loadgen?.cpu_s)) add("loadgen_cpu_util", (100 * res.loadgen.cpu_s) / res.window.seconds, "%");
  if (isNum(res.loadgen?.cpu_s) && sent > 0) add("loadgen_cpu_per_call", (res.loadgen.cpu_s / sent) * 1e6, "us");
  if (isNum(res.server?.rss_avg_mib)) add("server_rss_avg", res.server.rss_avg_mib, "MiB");
  if (isNum(res.server?.rss_peak_mib)) add("server_rss_peak", res.server.rss_peak_mib, "MiB");
  if (isNum(res.server?.processes)) add("server_processes", res.server.processes, "count");
}

/** The open loop's rate fraction, the CPUs the server and the generator had to themselves, whether the server survived the run (faults.json). */
function addCellFiles(cellDir: string, add: Add): void {
  const rateFile = path.join(cellDir, "open-loop-rate.json");
  if (existsSync(rateFile)) {
    const o = parseJson(readFileSync(rateFile, "utf8"), "open-loop-rate.json") as {
      fraction?: number;
      closed_loop_peak?: number;
    };
    if (isNum(o.fraction)) add("open_loop_fraction", o.fraction, "ratio");
  }
  // The run verb's CPU isolation (isolation.json): how many CPUs the server and the load generator each had to themselves.
  const isoFile = path.join(cellDir, "isolation.json");
  if (existsSync(isoFile)) {
    const i = parseJson(readFileSync(isoFile, "utf8"), "isolation.json") as Record<string, unknown>;
    if (i.isolated === true && isNum(i.sut_cpu_count) && isNum(i.loadgen_cpu_count)) {
      add("sut_cpus", i.sut_cpu_count, "count");
      add("loadgen_cpus", i.loadgen_cpu_count, "count");
    }
  }
  const faultsFile = path.join(cellDir, "faults.json");
  if (existsSync(faultsFile)) {
    const f = parseJson(readFileSync(faultsFile, "utf8"), "faults.json") as Record<string, unknown>;
    if (f.server_alive_after_run === false) add("server_crashed", 1, "count");
  }
}

export function parseCell(stdout: string, cellDir?: string): Measurement[] {
  const r = report(parseJson(stdout, "mcp-servers cell output"));
  const out: Measurement[] = [];
  const add: Add = (metric, value, unit) => out.push({ metric, value: round(value), unit, t: null });
  addLoad(r, add);
  addToolFigures(r, add);
  if (!cellDir) return out;
  // seed_k6: k6's own report has no warm-up; the run verb pre-warms with mcp-load until steady
  // and leaves warmup.json (lib/steady.sh's format).
  if (r.tool === "k6-seed003") out.push(...warmupFromCell(cellDir));
  addResources(r, cellDir, add);
  addCellFiles(cellDir, add);
  return out;
}

export function parse(ctx: { cellDir: string; stdout: string }): Measurement[] {
  return parseCell(ctx.stdout, ctx.cellDir);
}
