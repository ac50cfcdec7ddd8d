// The results board: one table per study with systems as columns and workloads as rows, from
// the study's featured run, built at build time. Each cell holds the median of the workload's headline
// metric with its 95 % interval, and its ratio to the best cell of the row (≥ 1, 1 = best), banded for the
// colour; a cell whose interval overlaps the best one's (or, below 2 repetitions, whose range does) is
// "within noise" and greyed; a cell without records is badged with its manifest status and reason.
import type { ResultRecord, RunManifest, Study } from "./data.ts";
import { beyondNoise, cellStats, headlineMetric, higherIsBetter, type CellStat } from "./stats.ts";
import type { Verdict } from "../../../pipeline/lib/verdicts.ts";
import { claimSides, sideHasWorkload } from "../../../pipeline/lib/verdicts.ts";
import { serverVariantLabel as label } from "../../../pipeline/lib/servers.ts";
import type { StudyVerdicts } from "./verdicts.ts";
import { systemLabel } from "./systems.ts";

/** Ratio-to-best bands, upper bounds: the colour of a cell. The last band is everything above. */
export const RATIO_BANDS = [1.1, 1.5, 2, 4] as const;
export function ratioBand(ratio: number): number {
  const i = RATIO_BANDS.findIndex((b) => ratio <= b);
  return i < 0 ? RATIO_BANDS.length : i;
}

export interface BoardColumn {
  key: string; // system, or "system variant" when the study runs variants of a system
  system: string;
  /** server and variant as one label (faucet-indexed: what the cells' verbs take), or the variant */
  variant: string;
}
/** A claim of the study's claims.json that reads a board cell, with its verdict on /reproduce/<study>/ (#claim-<id>). */
export interface CellClaim {
  id: string;
  claim: string;
  metric: string;
  /** The system (and variant) on the claim's other side. */
  other: string;
  verdict: Verdict;
}
export type BoardCell =
  | {
      kind: "measured";
      stat: CellStat;
      ratio: number;
      band: number;
      best: boolean;
      noisy: boolean;
      claims: CellClaim[];
    }
  | { kind: "missing"; status: string; reason: string; claims: CellClaim[] };
export interface BoardRow {
  workload: string;
  title: string;
  metric: string;
  unit: string;
  higherBetter: boolean;
  cells: Map<string, BoardCell>;
}
/** A study's board page (components/BoardStudy.astro): the board and the run and metric selectors' choices. */
export interface BoardPageProps {
  study: Study;
  studies: Study[];
  board: Board | undefined;
  select: { runs: RunManifest[]; featured: string; run: string; metrics: string[]; metric?: string } | undefined;
}
export interface Board {
  study: Study;
  run: RunManifest;
  columns: BoardColumn[];
  rows: BoardRow[];
}

const columnKey = (system: string, variant: string, variants: boolean) =>
  variants && variant ? `${system} ${variant}` : system;

/** Highest concurrency per (workload, column): one cell per board square, the figure the seed headlines. */
function pickCells(stats: CellStat[], variants: boolean): Map<string, CellStat> {
  const out = new Map<string, CellStat>();
  for (const c of stats) {
    const k = `${c.workload}\u0000${columnKey(c.system, label(c), variants)}`;
    const prev = out.get(k);
    if (!prev || c.concurrency > prev.concurrency) out.set(k, c);
  }
  return out;
}

function missingCell(
  run: RunManifest,
  study: string,
  workload: string,
  col: BoardColumn,
): Omit<Extract<BoardCell, { kind: "missing" }>, "claims"> {
  const cells = run.cells.filter(
    (c) =>
      c.study === study &&
      c.workload === workload &&
      c.system === col.system &&
      (!col.variant || c.variant === col.variant),
  );
  const notOk = cells.find((c) => c.status !== "ok");
  if (notOk)
    return {
      kind: "missing",
      status: notOk.status,
      reason:
        notOk.reason ||
        `cell ${notOk.id} ${notOk.status} (exit code ${notOk.exit_code ?? "none"}); its log: ${notOk.log}`,
    };
  if (cells.length)
    return {
      kind: "missing",
      status: "no records",
      reason: "its cells ran but wrote no record of the headline metric",
    };
  const sys = run.systems[col.system];
  if (sys?.status && sys.status !== "ok")
    return {
      kind: "missing",
      status: sys.status,
      reason: sys.reason || `${col.system} ${sys.status} in run ${run.run_id}`,
    };
  return {
    kind: "missing",
    status: "not planned",
    reason: `run ${run.run_id} (profile ${run.profile}) planned no ${workload} cell for ${col.key}`,
  };
}

// The conformance workload is a check, not a measurement (1/0 per scenario): the study page tables it
// (ConformanceTable), the board leaves it out.
const NOT_ON_BOARD = new Set(["conformance"]);

/** Metrics a reader can pick instead of each workload's headline one, in this order (those a run has for ≥ 2 columns of some workload). */
export const BOARD_METRICS = [
  "latency_p50",
  "latency_p95",
  "latency_p99",
  "errors",
  "cpu_util",
  "mem_load",
  "server_rss_avg",
] as const;

/** The selectable metrics of a study's run: BOARD_METRICS that ≥ 2 columns (system × variant) of one workload have, with a board row. */
export function boardMetrics(study: Study, run: RunManifest, records: ResultRecord[]): string[] {
  const cols = new Map<string, Set<string>>();
  for (const r of records) {
    if (
      r.source !== "measured" ||
      r.run_id !== run.run_id ||
      r.study !== study.name ||
      r.t !== null ||
      NOT_ON_BOARD.has(r.workload)
    )
      continue;
    if (!(BOARD_METRICS as readonly string[]).includes(r.metric)) continue;
    const k = `${r.metric}\u0000${r.workload}`;
    (cols.get(k) ?? cols.set(k, new Set()).get(k)!).add(`${r.system}\u0000${r.server}\u0000${r.variant}`);
  }
  // …and a row on the board (a figure above zero: a metric that is 0 everywhere, e.g. errors, has no ratio).
  return BOARD_METRICS.filter(
    (m) =>
      [...cols].some(([k, v]) => k.startsWith(`${m}\u0000`) && v.size >= 2) &&
      buildBoard(study, run, records, m).rows.length > 0,
  );
}

/** Runs (newest first, as RUNS are) with at least one board row of the study: the run selector's choices. */
export function boardRuns(study: Study, runs: RunManifest[], records: ResultRecord[]): RunManifest[] {
  const has = new Set(
    records
      .filter((r) => r.source === "measured" && r.study === study.name && r.t === null && !NOT_ON_BOARD.has(r.workload))
      .map((r) => r.run_id),
  );
  return runs.filter(
    (m) => has.has(m.run_id) && m.status !== "running" && buildBoard(study, m, records).rows.length > 0,
  );
}

/**
 * The claims that read the cell (WORKLOAD, COL): a side's workload (or each_of) and system (and variant, when
 * both pin one) match. A claim over every workload ("*", e.g. idle memory) reads a row only when the row
 * shows its metric, so it is not repeated on every row.
 */
export function cellClaims(
  verdicts: StudyVerdicts | undefined,
  workload: string,
  metric: string,
  col: BoardColumn,
): CellClaim[] {
  if (!verdicts) return [];
  const out: CellClaim[] = [];
  for (const row of verdicts.rows) {
    const { a, b } = claimSides(row.claim);
    for (const [mine, theirs] of [
      [a, b],
      [b, a],
    ] as const) {
      if (mine.system !== col.system || !sideHasWorkload(mine, workload)) continue;
      if (mine.workload === "*" && row.claim.metric !== metric) continue;
      if (col.variant && mine.variant !== undefined && label(mine) !== col.variant) continue;
      out.push({
        id: row.claim.id,
        claim: row.claim.claim,
        metric: row.claim.metric,
        other: `${systemLabel(theirs.system)}${label(theirs) ? ` ${label(theirs)}` : ""}`,
        verdict: row.verdict,
      });
      break;
    }
  }
  return out;
}

/** The board of STUDY in RUN: per workload its headline metric, or METRIC (rows without it left out); each cell with the claims that read it (VERDICTS). */
export function buildBoard(
  study: Study,
  run: RunManifest,
  records: ResultRecord[],
  metric?: string,
  verdicts?: StudyVerdicts,
): Board {
  const measured = records.filter(
    (r) =>
      r.source === "measured" && r.run_id === run.run_id && r.study === study.name && !NOT_ON_BOARD.has(r.workload),
  );
  const all = cellStats(measured);
  const variants =
    new Set(all.map((c) => `${c.system}\u0000${label(c)}`)).size > new Set(all.map((c) => c.system)).size;
  const order = study.workloads.map((w) => w.name);
  const workloads = [...new Set(all.map((c) => c.workload))].sort(
    (a, b) => (order.indexOf(a) + 1 || 999) - (order.indexOf(b) + 1 || 999),
  );
  const colMap = new Map<string, BoardColumn>();
  for (const c of all)
    colMap.set(columnKey(c.system, label(c), variants), {
      key: columnKey(c.system, label(c), variants),
      system: c.system,
      variant: variants ? label(c) : "",
    });
  for (const s of study.systems)
    if (![...colMap.values()].some((c) => c.system === s)) colMap.set(s, { key: s, system: s, variant: "" });
  const columns = [...colMap.values()].sort((a, b) => a.key.localeCompare(b.key));
  const rows: BoardRow[] = [];
  for (const w of workloads) {
    const available = all.filter((c) => c.workload === w).map((c) => c.metric);
    const m = metric ?? headlineMetric(w, available, study.headline_metrics);
    if (!m || !available.includes(m)) continue;
    const picked = pickCells(
      all.filter((c) => c.workload === w && c.metric === m && Number.isFinite(c.median) && c.median > 0),
      variants,
    );
    if (picked.size === 0) continue;
    const unit = [...picked.values()][0].unit;
    const hb = higherIsBetter(unit);
    const best = [...picked.values()].reduce((a, b) => ((hb ? b.median > a.median : b.median < a.median) ? b : a));
    const cells = new Map<string, BoardCell>();
    for (const col of columns) {
      const stat = picked.get(`${w}\u0000${col.key}`);
      const claims = cellClaims(verdicts, w, m, col);
      if (!stat) {
        cells.set(col.key, { ...missingCell(run, study.name, w, col), claims });
        continue;
      }
      const ratio = hb ? best.median / stat.median : stat.median / best.median;
      const beyond = beyondNoise(best.ci, stat.ci);
      const overlap = beyond === undefined ? (hb ? stat.max >= best.min : stat.min <= best.max) : !beyond;
      cells.set(col.key, {
        kind: "measured",
        stat,
        ratio,
        band: ratioBand(ratio),
        best: stat === best,
        noisy: stat !== best && overlap,
        claims,
      });
    }
    rows.push({
      workload: w,
      title: study.workloads.find((x) => x.name === w)?.title ?? w,
      metric: m,
      unit,
      higherBetter: hb,
      cells,
    });
  }
  return { study, run, columns, rows };
}
