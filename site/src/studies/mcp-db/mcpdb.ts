// The mcp-db study's page (seed 000): records have system = the database, server = the MCP server and
// variant = the schema state (baseline, indexed; the client ceiling: trivial); a manifest cell names its
// server beside the variant its verbs take (<server>-<state>, pipeline/lib/servers.ts). Derived here from records and the run manifest: per database × server tables, the index
// improvement factor, concurrency scaling, the MCP-vs-driver overhead split and the client ceiling.
import type { ResultRecord, RunManifest, Study } from "../../lib/data.ts";
import { cellStats, type CellStat } from "../../lib/stats.ts";
import { cellIdentity } from "../../../../pipeline/lib/servers.ts";

/** Calibration workloads: a load client against a trivial MCP tool (no database), the client's own ceiling. */
export const CEILING_WORKLOADS: Record<string, string> = { client_ceiling: "mcp-load", client_ceiling_k6: "k6" };
export const CEILING_WORKLOAD = "client_ceiling";
/** The variant ceiling cells pin (study.json variants.client_ceiling); database cells never use it. */
export function ceilingVariant(study: Study): string {
  const v = (study.variants as { client_ceiling?: unknown } | undefined)?.client_ceiling;
  return typeof v === "string" ? v : "trivial";
}

// A cell status as the run manifest has it.
type CellStatus = RunManifest["cells"][number]["status"];

export interface McpCell {
  workload: string;
  system: string; // the database
  server: string; // the MCP server
  state: string; // baseline | indexed (the records' variant)
  concurrency: number;
  status: CellStatus;
  reason: string;
  cells: number; // repetitions in the manifest
  metric(name: string): CellStat | undefined;
}

function combine(statuses: string[]): CellStatus {
  for (const s of ["wrong_answer", "failed", "ok"] as const) if (statuses.includes(s)) return s;
  return "skipped";
}

/** One entry per (workload, database, server, state, concurrency) of the run, from the manifest's cells and the records. */
export function mcpCells(study: Study, run: RunManifest, records: ResultRecord[]): McpCell[] {
  const stats = cellStats(
    records.filter((r) => r.run_id === run.run_id && r.study === study.name && r.source === "measured"),
  );
  const key = (w: string, s: string, server: string, state: string, c: number) =>
    `${w}\u0000${s}\u0000${server}\u0000${state}\u0000${c}`;
  const byKey = new Map<
    string,
    {
      workload: string;
      system: string;
      server: string;
      state: string;
      concurrency: number;
      statuses: string[];
      reasons: string[];
    }
  >();
  for (const cell of run.cells) {
    if (cell.study !== study.name) continue;
    const c = cellIdentity(cell);
    const k = key(c.workload, c.system, c.server, c.variant, c.concurrency);
    const g = byKey.get(k) ?? {
      workload: c.workload,
      system: c.system,
      server: c.server,
      state: c.variant,
      concurrency: c.concurrency,
      statuses: [],
      reasons: [],
    };
    g.statuses.push(c.status);
    if (c.status !== "ok" && c.reason) g.reasons.push(c.reason);
    byKey.set(k, g);
  }
  // Records without a manifest cell (should not happen) still show, as ok.
  for (const s of stats) {
    const k = key(s.workload, s.system, s.server, s.variant, s.concurrency);
    if (!byKey.has(k))
      byKey.set(k, {
        workload: s.workload,
        system: s.system,
        server: s.server,
        state: s.variant,
        concurrency: s.concurrency,
        statuses: ["ok"],
        reasons: [],
      });
  }
  const statsByKey = new Map<string, Map<string, CellStat>>();
  for (const s of stats) {
    const k = key(s.workload, s.system, s.server, s.variant, s.concurrency);
    (statsByKey.get(k) ?? statsByKey.set(k, new Map()).get(k)!).set(s.metric, s);
  }
  return [...byKey.entries()].map(([k, g]) => {
    const m = statsByKey.get(k) ?? new Map<string, CellStat>();
    return {
      workload: g.workload,
      system: g.system,
      server: g.server,
      state: g.state,
      concurrency: g.concurrency,
      status: combine(g.statuses),
      reason: [...new Set(g.reasons)].join("; "),
      cells: g.statuses.length,
      metric: (name: string) => m.get(name),
    };
  });
}

export function sortCells(cells: McpCell[], order: string[]): McpCell[] {
  const wi = (w: string) => order.indexOf(w) + 1 || 1e6;
  const si = (s: string) => ["baseline", "indexed"].indexOf(s) + 1 || 99;
  return [...cells].sort(
    (a, b) =>
      wi(a.workload) - wi(b.workload) ||
      a.workload.localeCompare(b.workload) ||
      a.concurrency - b.concurrency ||
      a.server.localeCompare(b.server) ||
      si(a.state) - si(b.state),
  );
}

export interface Improvement {
  workload: string;
  system: string;
  server: string;
  concurrency: number;
  baseline: CellStat;
  indexed: CellStat;
  factor: number; // indexed / baseline median throughput
}
/** indexed / baseline median throughput of the same workload, database, server and concurrency (seed 000's "Improvement"). */
export function improvements(cells: McpCell[]): Improvement[] {
  const out: Improvement[] = [];
  for (const ix of cells) {
    if (ix.state !== "indexed" || ix.status !== "ok") continue;
    const base = cells.find(
      (c) =>
        c.state === "baseline" &&
        c.status === "ok" &&
        c.workload === ix.workload &&
        c.system === ix.system &&
        c.server === ix.server &&
        c.concurrency === ix.concurrency,
    );
    const i = ix.metric("throughput");
    const b = base?.metric("throughput");
    if (!i || !b || !(b.median > 0)) continue;
    out.push({
      workload: ix.workload,
      system: ix.system,
      server: ix.server,
      concurrency: ix.concurrency,
      baseline: b,
      indexed: i,
      factor: i.median / b.median,
    });
  }
  return out;
}

export interface ScalingPoint {
  workload: string;
  series: string; // "<database> · <server> · <state>"
  system: string;
  server: string;
  state: string;
  concurrency: number;
  throughput: number;
  min: number;
  max: number;
  n: number;
}
/** Throughput against concurrency for every workload measured at two or more concurrency levels. */
export function scaling(cells: McpCell[]): ScalingPoint[] {
  const levels = new Map<string, Set<number>>();
  for (const c of cells)
    if (c.metric("throughput"))
      (levels.get(c.workload) ?? levels.set(c.workload, new Set()).get(c.workload)!).add(c.concurrency);
  return cells
    .filter((c) => (levels.get(c.workload)?.size ?? 0) >= 2 && c.status === "ok" && c.metric("throughput"))
    .map((c) => {
      const t = c.metric("throughput")!;
      return {
        workload: c.workload,
        series: `${c.system} · ${c.server} · ${c.state}`,
        system: c.system,
        server: c.server,
        state: c.state,
        concurrency: c.concurrency,
        throughput: t.median,
        min: t.min,
        max: t.max,
        n: t.n,
      };
    })
    .sort((a, b) => a.series.localeCompare(b.series) || a.concurrency - b.concurrency);
}

export interface OverheadRow {
  cell: McpCell;
  label: string; // "<database> · <server>"
  mcpP50: number; // median over repetitions of the MCP call's p50 latency
  directP50: number; // the same queries through the database's own driver
  overheadP50: number; // median of mcp_overhead_p50 (MCP p50 − direct p50, per repetition)
  share: number; // overhead / MCP p50
  n: number;
}
/** The split of an agent's median latency into database time (direct driver) and MCP/server overhead. */
export function overheads(cells: McpCell[]): OverheadRow[] {
  return cells
    .filter(
      (c) =>
        c.status === "ok" && c.metric("latency_p50") && c.metric("direct_latency_p50") && c.metric("mcp_overhead_p50"),
    )
    .map((c) => {
      const mcp = c.metric("latency_p50")!;
      const direct = c.metric("direct_latency_p50")!;
      const over = c.metric("mcp_overhead_p50")!;
      return {
        cell: c,
        label: `${c.system} · ${c.server}`,
        mcpP50: mcp.median,
        directP50: direct.median,
        overheadP50: over.median,
        share: over.median / mcp.median,
        n: Math.min(mcp.n, direct.n),
      };
    });
}
