// Protocol conformance of the MCP servers: the official suite (@modelcontextprotocol/conformance)
// runs as workload `conformance` in the mcp-servers and mcp-db studies. Records carry 1 (passed) / 0
// (failed) per scenario as conformance_<scenario>, plus conformance_passed and conformance_applicable;
// each failure's message, the suite's version and the spec revisions come from the cell folders through
// `samebox publish` (src/generated/conformance.json). Which scenarios apply, and why, is written once in
// bench-scripts/studies/mcp-servers/conformance-scenarios.json, which publish copies to src/generated/.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { ResultRecord, RunManifest } from "./data.ts";
import type { ConformanceNegotiated, ConformanceReport } from "../../../pipeline/publish/publish.ts";
import { tQuantile } from "../../../pipeline/lib/stats.ts";
import { machineKey } from "./history.ts";

export const CONFORMANCE_WORKLOAD = "conformance";
const TOTALS = new Set(["conformance_passed", "conformance_applicable"]);

export interface ScenarioDoc {
  scenario: string;
  why: string;
}
/** samebox's own checks (own_checks.py), listed with the suite's scenarios and marked own. */
export interface OwnChecksDoc {
  why: string;
  checks: Array<ScenarioDoc & { failure: string }>;
  negotiation: string;
}
export interface ScenariosDoc {
  suite: string;
  why: string;
  applicable: ScenarioDoc[];
  not_applicable: Array<{ scenarios: string[]; why: string }>;
  own_checks?: OwnChecksDoc;
}

// What a failure means for someone running the server, beside the study's "why it applies".
const FAILURE_MEANS: Record<string, string> = {
  "server-initialize": "a client cannot open a session with it, so no tool can be called",
  ping: "clients that check liveness with ping see it as dead",
  "tools-list": "clients cannot discover its tools, or get tools without a valid name or input schema",
  "dns-rebinding-protection":
    "it answers requests carrying a foreign Host/Origin header (HTTP 200 instead of 4xx): a web page the developer visits can use DNS rebinding to reach the server on localhost and call its tools without any credentials — for an MCP server in front of a database, run its queries",
};

let docCache: ScenariosDoc | null | undefined;
/** conformance-scenarios.json of the mcp-servers study (also used by mcp-db), or null when absent. */
export function scenariosDoc(): ScenariosDoc | null {
  if (docCache !== undefined) return docCache;
  const file = path.join(
    process.env.SAMEBOX_RESOLVED_SITE_DIR ?? path.resolve("site"),
    "src",
    "generated",
    "conformance-scenarios.json",
  );
  if (!existsSync(file)) {
    docCache = null;
    return docCache;
  }
  try {
    docCache = JSON.parse(readFileSync(file, "utf8")) as ScenariosDoc;
  } catch (e) {
    throw new Error(`samebox site: ${file} is not valid JSON (${(e as Error).message})`);
  }
  return docCache;
}

/** Why the scenario applies to a tools-only server, and what failing it means; own = one of samebox's own checks. */
export function scenarioMeaning(scenario: string): { why: string; failure: string; own: boolean } {
  const own = scenariosDoc()?.own_checks?.checks.find((c) => c.scenario === scenario);
  if (own) return { why: own.why, failure: own.failure, own: true };
  return {
    why: scenariosDoc()?.applicable.find((a) => a.scenario === scenario)?.why ?? "",
    failure: FAILURE_MEANS[scenario] ?? "",
    own: false,
  };
}

let reportsCache: ConformanceReport[] | undefined;
/** Reports from src/generated/conformance.json; none when publish did not write it (older data, the test fixture). */
function reports(): ConformanceReport[] {
  if (reportsCache) return reportsCache;
  const file = path.join(
    process.env.SAMEBOX_RESOLVED_SITE_DIR ?? path.resolve("site"),
    "src",
    "generated",
    "conformance.json",
  );
  if (!existsSync(file)) {
    reportsCache = [];
    return reportsCache;
  }
  try {
    const doc = JSON.parse(readFileSync(file, "utf8")) as { reports?: ConformanceReport[] };
    reportsCache = Array.isArray(doc.reports) ? doc.reports : [];
  } catch (e) {
    throw new Error(`samebox site: ${file} is not valid JSON (${(e as Error).message})`);
  }
  return reportsCache;
}

// One scenario as a table row shows it (passed as a boolean, message and revisions always present), not the parser's ScenarioResult.
export interface ScenarioRow {
  scenario: string;
  passed: boolean;
  message: string;
  spec_revisions: string[];
  own: boolean;
}
export interface ConformanceRow {
  system: string;
  /** the MCP server (mcp-db; "" where the system is the server, mcp-servers) */
  server: string;
  variant: string;
  version: string;
  passed: number;
  applicable: number;
  scenarios: ScenarioRow[];
  failed: ScenarioRow[];
  /** The protocolVersion the server answered per client revision (empty for reports before it was kept). */
  negotiated: ConformanceNegotiated[];
}
export interface Conformance {
  run: RunManifest;
  suite_version: string;
  rows: ConformanceRow[];
  revisions: string[];
  /** mcp-load checked by the suite's client scenarios, as the run manifest records it (versions verb), or "". */
  client: string;
}

/** The scenario of metric conformance_<x>: the report's name when one matches, else the study's list, else x with - for _. */
function scenarioName(metric: string, known: string[]): string {
  const x = metric.slice("conformance_".length);
  return known.find((k) => k.replaceAll("-", "_") === x) ?? x.replaceAll("_", "-");
}

/** PREFER when it qualifies, else the newest of RUNS (any order) that does: the pages' fallback for a table the shown run lacks. */
function preferredOrNewest(
  prefer: RunManifest | undefined,
  runs: RunManifest[],
  qualifies: (m: RunManifest) => boolean,
): RunManifest | undefined {
  if (prefer && qualifies(prefer)) return prefer;
  return runs.filter(qualifies).sort((a, b) => b.started_at.localeCompare(a.started_at))[0];
}

/**
 * The conformance results of a study: from run PREFER when it ran the suite for the study, else from the
 * newest run that did (RUNS in any order). One row per system × server × variant, in record order.
 */
export function conformanceOf(
  study: string,
  prefer: RunManifest | undefined,
  runs: RunManifest[],
  records: ResultRecord[],
): Conformance | undefined {
  const rs = records.filter(
    (r) =>
      r.source === "measured" &&
      r.study === study &&
      r.workload === CONFORMANCE_WORKLOAD &&
      r.metric.startsWith("conformance_") &&
      r.t === null,
  );
  if (rs.length === 0) return undefined;
  const withIt = new Set(rs.map((r) => r.run_id));
  const run = preferredOrNewest(prefer, runs, (m) => withIt.has(m.run_id));
  if (!run) return undefined;
  const mine = rs.filter((r) => r.run_id === run.run_id);
  const reps = reports().filter((p) => p.run_id === run.run_id && p.study === study);
  const known = [
    ...new Set([
      ...reps.flatMap((p) => p.scenarios.map((s) => s.scenario)),
      ...(scenariosDoc()?.applicable.map((a) => a.scenario) ?? []),
    ]),
  ];
  const rows = new Map<string, ConformanceRow>();
  for (const r of mine) {
    const key = `${r.system}\u0000${r.server}\u0000${r.variant}`;
    const same = (x: { system: string; server: string; variant: string }) =>
      x.system === r.system && x.server === r.server && x.variant === r.variant;
    const report = reps.find(same);
    const row =
      rows.get(key) ??
      rows
        .set(key, {
          system: r.system,
          server: r.server,
          variant: r.variant,
          version: r.system_version,
          passed: 0,
          applicable: 0,
          scenarios: [],
          failed: [],
          negotiated: report?.negotiated ?? [],
        })
        .get(key)!;
    if (r.repetition !== Math.min(...mine.filter(same).map((x) => x.repetition))) continue;
    if (TOTALS.has(r.metric)) continue;
    const scenario = scenarioName(r.metric, known);
    const rep = report?.scenarios.find((s) => s.scenario === scenario);
    row.scenarios.push({
      scenario,
      passed: r.value === 1,
      message: rep?.message ?? "",
      spec_revisions: rep?.spec_revisions ?? [],
      own: rep?.own ?? scenarioMeaning(scenario).own,
    });
  }
  for (const row of rows.values()) {
    row.failed = row.scenarios.filter((s) => !s.passed);
    row.passed = row.scenarios.length - row.failed.length;
    row.applicable = row.scenarios.length;
  }
  const suite = [...new Set(reps.map((p) => p.suite_version).filter(Boolean))];
  const revisions = [...new Set(reps.flatMap((p) => p.scenarios.flatMap((s) => s.spec_revisions)))].sort();
  return {
    run,
    suite_version: suite.join(", "),
    rows: [...rows.values()],
    revisions,
    client: run.tools?.["mcp-load_client_conformance"] ?? "",
  };
}

/** The revision the server answered to mcp-load's (the load client's), e.g. "2025-06-18", or "" when not recorded. */
export function loadClientRevision(row: ConformanceRow | undefined): string {
  const n = row?.negotiated.find((x) => x.client === "mcp-load");
  return n ? (n.answered ?? "initialize refused") : "";
}

/** "3/4 · fails dns-rebinding-protection", the short form for a column beside throughput. */
export function shortConformance(row: ConformanceRow | undefined): string {
  if (!row) return "not checked";
  return `${row.passed}/${row.applicable}${row.failed.length ? ` · fails ${row.failed.map((f) => f.scenario).join(", ")}` : " passed"}`;
}

// ---- safety against speed: a server run both its default way and its safe way
// (mcp-db: toolbox = Toolbox's default allowed hosts '*', toolboxsafe = --allowed-hosts 127.0.0.1,localhost).
// Each pair is [default server, safe server], as the mcp-db records' server field names them.
export const SAFE_PAIRS: ReadonlyArray<readonly [string, string]> = [["toolbox", "toolboxsafe"]];

interface Stat {
  median: number;
  n: number;
}
interface PairCell {
  workload: string;
  system: string;
  server: string;
  state: string;
  concurrency: number;
  metric(name: string): Stat | undefined;
}
export interface SafetyRow {
  workload: string;
  system: string;
  state: string;
  concurrency: number;
  server: string;
  safe: string;
  plain: Stat;
  guarded: Stat;
  ratio: number;
  paired?: PairedRatio;
}
/** Safe ÷ default per repetition (both ran back to back in one visit), geometric mean with its 95 % interval. */
export interface PairedRatio {
  n: number;
  ratio: number;
  lo: number;
  hi: number;
}

/**
 * The paired ratio of two per-repetition series (repetition -> value): a Student-t interval on the log
 * ratios of the repetitions that measured both, as the verdicts use (methodology page; Kalibera & Jones,
 * ISMM 2013). Undefined below 2 pairs.
 */
export function pairedRatio(plain: Map<number, number>, guarded: Map<number, number>): PairedRatio | undefined {
  const logs = [...plain]
    .filter(([rep, v]) => v > 0 && (guarded.get(rep) ?? 0) > 0)
    .map(([rep, v]) => Math.log(guarded.get(rep)! / v));
  const n = logs.length;
  if (n < 2) return undefined;
  const mean = logs.reduce((a, b) => a + b, 0) / n;
  const sd = Math.sqrt(logs.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1));
  const h = (tQuantile(0.975, n - 1) * sd) / Math.sqrt(n);
  return { n, ratio: Math.exp(mean), lo: Math.exp(mean - h), hi: Math.exp(mean + h) };
}

/** Throughput per repetition of one cell of a run, from its scalar records. */
export function throughputByRepetition(
  records: ResultRecord[],
  run: string,
  at: { workload: string; system: string; server: string; variant: string; concurrency: number },
): Map<number, number> {
  const out = new Map<number, number>();
  for (const r of records) {
    if (r.run_id !== run || r.study !== "mcp-db" || r.t !== null || r.metric !== "throughput") continue;
    if (
      r.workload === at.workload &&
      r.system === at.system &&
      r.server === at.server &&
      r.variant === at.variant &&
      r.concurrency === at.concurrency
    )
      out.set(r.repetition, r.value);
  }
  return out;
}

/** Runs with throughput of a server both ways (SAFE_PAIRS) on one workload × database × schema × concurrency. */
function runsMeasuringBothWays(study: string, records: ResultRecord[]): Set<string> {
  const tput = records.filter(
    (r) => r.source === "measured" && r.study === study && r.t === null && r.metric === "throughput",
  );
  const at = (r: ResultRecord, server: string) =>
    [r.run_id, server, r.workload, r.system, r.variant, r.concurrency].join("\u0000");
  const have = new Set(tput.map((r) => at(r, r.server)));
  const paired = tput.filter((r) => SAFE_PAIRS.some(([plain, safe]) => r.server === plain && have.has(at(r, safe))));
  return new Set(paired.map((r) => r.run_id));
}

/**
 * The run whose safety table a page shows: SHOWN when it measured a server both ways, else the newest run on
 * the same machine that did (quick checks Toolbox's conformance only; full measures its speed both ways).
 * Never a run on another machine: a speed ratio is the machine's that measured it, not this page's.
 */
export function safetyRunOf(
  study: string,
  shown: RunManifest | undefined,
  runs: RunManifest[],
  records: ResultRecord[],
): RunManifest | undefined {
  if (!shown) return undefined;
  const both = runsMeasuringBothWays(study, records);
  return preferredOrNewest(shown, runs, (m) => both.has(m.run_id) && machineKey(m) === machineKey(shown));
}

/** Per workload × database × schema × concurrency measured both ways: median calls/s of each and safe ÷ default. */
export function safetyCost(cells: PairCell[]): SafetyRow[] {
  const out: SafetyRow[] = [];
  for (const [server, safe] of SAFE_PAIRS) {
    for (const c of cells.filter((x) => x.server === server && x.metric("throughput"))) {
      const s = cells.find(
        (x) =>
          x.server === safe &&
          x.workload === c.workload &&
          x.system === c.system &&
          x.state === c.state &&
          x.concurrency === c.concurrency &&
          x.metric("throughput"),
      );
      if (!s) continue;
      const plain = c.metric("throughput")!;
      const guarded = s.metric("throughput")!;
      out.push({
        workload: c.workload,
        system: c.system,
        state: c.state,
        concurrency: c.concurrency,
        server,
        safe,
        plain,
        guarded,
        ratio: guarded.median / plain.median,
      });
    }
  }
  return out;
}
