// The oltp study's quick decision table (seed 002's use cases), derived from one run: each use case
// names the workload and metric that stand for it and picks the system with the best median. Rules
// are keyed by workload and metric (study knowledge) and by what the systems table says (SQL
// dialect), never by a system's name.
import {
  headlineMetric,
  higherIsBetter,
  metricLabel,
  noiseText,
  pooledBySystem,
  rank,
  type CellStat,
} from "../../lib/stats.ts";
import { systemLabel, systemOf } from "../../lib/systems.ts";

export interface DecisionRow {
  useCase: string;
  /** The workload and metric the row ranks ("*": all workloads), and the runner-up, to find the claim comparing the same cells. */
  workload: string;
  metric: string;
  runnerUp?: string;
  basis: string;
  pick: string | undefined;
  why: string;
  clear: boolean;
}
interface DecisionRule {
  useCase: string;
  workload: string; // "*" pools all workloads
  metric: string;
}
const decisionRules: DecisionRule[] = [
  { useCase: "Mixed read-write OLTP (web apps, SaaS)", workload: "oltp_read_write", metric: "tps" },
  { useCase: "Read-heavy (reporting, read replicas)", workload: "oltp_read_only", metric: "tps" },
  { useCase: "Bulk INSERT (logging, events)", workload: "oltp_insert", metric: "tps" },
  { useCase: "Point lookups (caching, key-value access)", workload: "select_random_points", metric: "qps" },
  { useCase: "Lowest tail latency under mixed load", workload: "oltp_read_write", metric: "latency_p95" },
  { useCase: "Lowest memory footprint when idle", workload: "*", metric: "mem_idle" },
];
/** The dialect whose ecosystem seed 002's last use case asks about ("existing MySQL ecosystem"). */
const ECOSYSTEM_DIALECT = "mysql";

/** studySystems: the systems able to run the study (studies.json), named in the ecosystem row even when not measured. */
export function decisionTable(
  stats: CellStat[],
  fmt: (v: number, unit: string) => string,
  studySystems: string[],
  studyHeadlines: Record<string, string> = {},
): DecisionRow[] {
  const rows: DecisionRow[] = decisionRules.map((rule) => {
    const basis = `${rule.workload === "*" ? "all workloads" : rule.workload}: median ${metricLabel(rule.metric)}`;
    const rk =
      rule.workload === "*"
        ? rank(
            pooledBySystem(stats, rule.metric).map((c) => ({ ...c, workload: "*" })),
            "*",
            rule.metric,
          )
        : rank(stats, rule.workload, rule.metric);
    if (!rk)
      return {
        useCase: rule.useCase,
        workload: rule.workload,
        metric: rule.metric,
        basis,
        pick: undefined,
        why: "not measured in this run",
        clear: false,
      };
    const [best, ...rest] = rk.ranked;
    const others = rest.map((c) => `${c.system} ${fmt(c.median, c.unit)}`).join(", ");
    let why = `${best.system} ${fmt(best.median, best.unit)} (n=${best.n}, ${noiseText(best, fmt)})`;
    if (others) why += ` vs ${others}; ${rk.ratio!.toFixed(2)}× the runner-up (${noiseText(rest[0], fmt)})`;
    else why += "; the only system measured";
    if (rk.overlap)
      why +=
        rk.noiseBasis === "interval"
          ? "; the 95 % intervals overlap, so the lead is within noise"
          : "; ranges overlap (fewer than 2 repetitions, no interval), so the lead is within run-to-run noise";
    return {
      useCase: rule.useCase,
      workload: rule.workload,
      metric: rule.metric,
      runnerUp: rest[0]?.system,
      basis,
      pick: best.system,
      why,
      clear: rest.length > 0 && !rk.overlap,
    };
  });
  rows.push(ecosystemRow(stats, ECOSYSTEM_DIALECT, studySystems, studyHeadlines));
  return rows;
}

/** Among the measured systems of one SQL dialect (system.json sql.dialect): which wins most workloads on their headline metric. */
function ecosystemRow(
  stats: CellStat[],
  dialect: string,
  studySystems: string[],
  studyHeadlines: Record<string, string>,
): DecisionRow {
  const systems = [...new Set(stats.map((c) => c.system))].filter((s) => systemOf(s)?.sql?.dialect === dialect).sort();
  const labels = [...new Set([...studySystems, ...systems])]
    .filter((s) => systemOf(s)?.sql?.dialect === dialect)
    .sort()
    .map(systemLabel);
  const useCase = `Existing ${dialect === "mysql" ? "MySQL" : dialect} ecosystem (${labels.length ? labels.join(" or ") : `systems of the ${dialect} dialect`})`;
  const basis = `each workload's headline throughput, among systems of the ${dialect} SQL dialect`;
  const rowOf = { useCase, basis, workload: "*", metric: "headline" };
  if (systems.length < 2) {
    return {
      ...rowOf,
      pick: undefined,
      why: `${systems.length ? `only ${systems[0]}` : "no system"} of the ${dialect} dialect was measured in this run, nothing to compare (why the others were not: "Not measured in this run" above)`,
      clear: false,
    };
  }
  const wins = new Map(systems.map((s) => [s, 0]));
  let compared = 0;
  for (const w of new Set(stats.map((c) => c.workload))) {
    const hm = headlineMetric(
      w,
      stats.filter((c) => c.workload === w).map((c) => c.metric),
      studyHeadlines,
    );
    if (!hm) continue;
    const contenders = stats.filter((c) => c.workload === w && c.metric === hm && systems.includes(c.system));
    if (contenders.length !== systems.length) continue; // compare only where every one of them ran
    compared++;
    const hb = higherIsBetter(contenders[0].unit);
    const best = contenders.reduce((a, b) => ((hb ? b.median > a.median : b.median < a.median) ? b : a));
    wins.set(best.system, wins.get(best.system)! + 1);
  }
  if (compared === 0)
    return {
      ...rowOf,
      pick: undefined,
      why: `${systems.join(", ")} never ran the same workload in this run`,
      clear: false,
    };
  const ranked = [...wins.entries()].sort((a, b) => b[1] - a[1]);
  const pick = ranked[0][1] * 2 > compared ? ranked[0][0] : undefined;
  return {
    ...rowOf,
    pick,
    why: `${ranked.map(([s, n]) => `${s} faster on ${n} of ${compared} workloads`).join(", ")}`,
    clear: pick !== undefined,
  };
}
