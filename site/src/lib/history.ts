// What changed between runs: the history of a workload × system × metric over every measured run
// (grouped by machine, since runs on different machines are not comparable) and run-vs-run diffs
// (ratio per cell with its interval, significant changes first, setup differences listed).
import type { ResultRecord, RunManifest } from "./data.ts";
import { cellStats, beyondNoise, higherIsBetter, headlineMetric, type CellStat } from "./stats.ts";
import { serverVariantLabel } from "../../../pipeline/lib/servers.ts";

export function measuredRuns(runs: RunManifest[], records: ResultRecord[]): RunManifest[] {
  const withData = new Set(records.filter((r) => r.source === "measured").map((r) => r.run_id));
  // Oldest first: history reads left to right in time.
  return runs.filter((m) => withData.has(m.run_id)).sort((a, b) => a.started_at.localeCompare(b.started_at));
}

/** Runs share a machine when their machine labels match; only those are compared in one table or chart. */
export function machineKey(m: RunManifest): string {
  return m.machine.label;
}

export interface HistoryPoint {
  run: RunManifest;
  cell: CellStat;
}
export interface MetricHistory {
  metric: string;
  unit: string;
  systems: string[];
  /** per machine label: runs in time order, and per run × system the cell (first variant/concurrency by name when several) */
  machines: { machine: string; runs: RunManifest[]; cells: Map<string, CellStat[]> }[];
}

/** Every metric of one study × workload over all measured runs; cells keyed `${run_id}|${system}`. */
export function workloadHistory(
  study: string,
  workload: string,
  runs: RunManifest[],
  records: ResultRecord[],
  studyHeadlines: Record<string, string> = {},
): MetricHistory[] {
  const rs = records.filter((r) => r.source === "measured" && r.study === study && r.workload === workload);
  const stats = cellStats(rs);
  const ordered = measuredRuns(runs, rs);
  const metrics = [...new Set(stats.map((c) => c.metric))];
  const head = headlineMetric(workload, metrics, studyHeadlines);
  metrics.sort((a, b) => (a === head ? -1 : b === head ? 1 : a.localeCompare(b)));
  return metrics.map((metric) => {
    const ms = stats.filter((c) => c.metric === metric);
    const machines = [...new Set(ordered.map(machineKey))]
      .map((machine) => {
        const mruns = ordered.filter((m) => machineKey(m) === machine && ms.some((c) => c.run_id === m.run_id));
        const cells = new Map<string, CellStat[]>();
        for (const c of ms) {
          const k = `${c.run_id}|${c.system}`;
          (cells.get(k) ?? cells.set(k, []).get(k)!).push(c);
        }
        for (const v of cells.values())
          v.sort((a, b) => a.concurrency - b.concurrency || serverVariantLabel(a).localeCompare(serverVariantLabel(b)));
        return { machine, runs: mruns, cells };
      })
      .filter((g) => g.runs.length > 0);
    return { metric, unit: ms[0].unit, systems: [...new Set(ms.map((c) => c.system))].sort(), machines };
  });
}

export interface DiffRow {
  key: string;
  a: CellStat;
  b: CellStat;
  /** b.mean ÷ a.mean, and its conservative interval from the two 95 % intervals */
  ratio: number;
  lo?: number;
  hi?: number;
  significant: boolean | undefined;
  /** "better"/"worse" for the metric's direction, when significant */
  change: "better" | "worse" | "same" | "unknown";
}
export interface SetupDifference {
  what: string;
  a: string;
  b: string;
}
export interface RunDiff {
  a: RunManifest;
  b: RunManifest;
  sameMachine: boolean;
  rows: DiffRow[];
  onlyA: number;
  onlyB: number;
  setup: SetupDifference[];
}

// server and variant as one part (faucet-indexed), so a key reads as before the server field
export const cellKey = (c: {
  study: string;
  workload: string;
  system: string;
  server?: string;
  variant: string;
  concurrency: number;
  metric: string;
}) => [c.study, c.workload, c.system, serverVariantLabel(c) || "-", `c${c.concurrency}`, c.metric].join("|");

function flatten(prefix: string, v: unknown, out: Map<string, string>) {
  if (v !== null && typeof v === "object" && !Array.isArray(v)) {
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) flatten(prefix ? `${prefix}.${k}` : k, x, out);
  } else out.set(prefix, v === undefined ? "" : typeof v === "string" ? v : JSON.stringify(v));
}

/** Machine, profile, commit, tool and system versions, system config and run config that differ between two runs. */
export function setupDifferences(a: RunManifest, b: RunManifest): SetupDifference[] {
  const pick = (m: RunManifest) => ({
    profile: m.profile,
    commit: `${m.commit}${m.dirty ? " (dirty)" : ""}`,
    machine: m.machine,
    tools: m.tools,
    systems: m.systems,
    config: m.config,
    studies: m.studies,
  });
  const fa = new Map<string, string>();
  const fb = new Map<string, string>();
  flatten("", pick(a), fa);
  flatten("", pick(b), fb);
  const keys = [...new Set([...fa.keys(), ...fb.keys()])].sort();
  return keys
    .filter((k) => (fa.get(k) ?? "") !== (fb.get(k) ?? ""))
    .map((k) => ({ what: k, a: fa.get(k) ?? "(absent)", b: fb.get(k) ?? "(absent)" }));
}

export function runDiff(a: RunManifest, b: RunManifest, records: ResultRecord[]): RunDiff {
  const sa = cellStats(records.filter((r) => r.source === "measured" && r.run_id === a.run_id));
  const sb = cellStats(records.filter((r) => r.source === "measured" && r.run_id === b.run_id));
  const mb = new Map(sb.map((c) => [cellKey(c), c]));
  const ka = new Set(sa.map(cellKey));
  const rows: DiffRow[] = [];
  for (const ca of sa) {
    const cb = mb.get(cellKey(ca));
    if (!cb || !(ca.ci.mean !== 0)) continue;
    const ratio = cb.ci.mean / ca.ci.mean;
    const ivOk = ca.ci.method === "t" && cb.ci.method === "t";
    const lo = ivOk ? (ca.ci.hi > 0 ? Math.max(0, cb.ci.lo / ca.ci.hi) : 0) : undefined;
    const hi = ivOk ? (ca.ci.lo > 0 ? cb.ci.hi / ca.ci.lo : Infinity) : undefined;
    const significant = beyondNoise(ca.ci, cb.ci);
    const up = cb.ci.mean > ca.ci.mean;
    const change =
      significant === undefined
        ? "unknown"
        : !significant
          ? "same"
          : up === higherIsBetter(ca.unit)
            ? "better"
            : "worse";
    rows.push({ key: cellKey(ca), a: ca, b: cb, ratio, lo, hi, significant, change });
  }
  const rank = (r: DiffRow) => (r.significant ? 0 : r.significant === undefined ? 1 : 2);
  rows.sort(
    (x, y) =>
      rank(x) - rank(y) || Math.abs(Math.log(y.ratio)) - Math.abs(Math.log(x.ratio)) || x.key.localeCompare(y.key),
  );
  return {
    a,
    b,
    sameMachine: machineKey(a) === machineKey(b),
    rows,
    onlyA: sa.filter((c) => !mb.has(cellKey(c))).length,
    onlyB: sb.filter((c) => !ka.has(cellKey(c))).length,
    setup: setupDifferences(a, b),
  };
}

/** Most diff pages a build makes (keeps the build and the e2e crawl bounded); above it only consecutive runs on one machine and each run vs the newest. */
export const MAX_DIFF_PAGES = 60;

/** Run pairs (older, newer) that measured at least one common study. */
export function diffPairs(runs: RunManifest[], records: ResultRecord[]): [RunManifest, RunManifest][] {
  const ordered = measuredRuns(runs, records);
  const studiesOf = new Map<string, Set<string>>();
  for (const r of records)
    if (r.source === "measured")
      (studiesOf.get(r.run_id) ?? studiesOf.set(r.run_id, new Set()).get(r.run_id)!).add(r.study);
  const share = (x: RunManifest, y: RunManifest) =>
    [...(studiesOf.get(x.run_id) ?? [])].some((s) => studiesOf.get(y.run_id)?.has(s));
  const all: [RunManifest, RunManifest][] = [];
  for (let i = 0; i < ordered.length; i++)
    for (let j = i + 1; j < ordered.length; j++) if (share(ordered[i], ordered[j])) all.push([ordered[i], ordered[j]]);
  if (all.length <= MAX_DIFF_PAGES) return all;
  const newest = ordered.at(-1)!;
  return all.filter(
    ([x, y]) =>
      y === newest ||
      (machineKey(x) === machineKey(y) &&
        !ordered
          .slice(ordered.indexOf(x) + 1, ordered.indexOf(y))
          .some((m) => machineKey(m) === machineKey(x) && share(x, m))),
  );
}
