// Preset queries for the Explore page. They run in DuckDB-WASM over the table `results`
// (results.csv, one row per record). The latest measured run is the greatest run_id, since run ids
// start with their UTC start time. The queries of one study live in its folder (study.json `presets`,
// carried by `samebox publish` into studies.json); these are the ones across studies. Client-safe: no
// build-time imports (the page script imports inComparedRuns).
export interface Preset {
  id: string;
  label: string;
  sql: string;
}
// The runs the presets show: table compared_runs(run_id, study, source), which the page fills with the
// latest measured run of each study, plus the reader's own run when they drop one (its rows get source
// 'yours' and system '<system> (yours)', so every preset shows it beside ours without changing its SQL).
// A row is shown only when its whole (run_id, study, source) is listed: a multi-study run that is the
// latest for one study does not bring its other studies along, and a dropped file that carries one of
// our run ids adds its own rows, never the older measured rows of ours that share that id.
export const comparedRunsSql = `CREATE OR REPLACE TABLE compared_runs AS
  SELECT max(run_id) AS run_id, study, 'measured' AS source FROM results WHERE source = 'measured' GROUP BY study`;
export const inComparedRuns = "(run_id, study, source) IN (SELECT run_id, study, source FROM compared_runs)";

/** workload -> the metric it is judged by, where a study's headline_metrics (study.json) says so. */
export type HeadlineRules = Record<string, string>;

/** SQL for the throughput metric of COLUMN's workload: a study's headline metric where it names one, else tps. */
export function throughputMetricSql(rules: HeadlineRules, column = "workload"): string {
  const q = (s: string) => `'${s.replaceAll("'", "''")}'`;
  const whens = Object.entries(rules)
    .filter(([, m]) => m !== "tps")
    .map(([w, m]) => `WHEN ${column} = ${q(w)} THEN ${q(m)}`);
  return whens.length ? `CASE ${whens.join(" ")} ELSE 'tps' END` : "'tps'";
}

/** The Explore page's presets: the cross-study ones, then each study's (catalogue order), then runs and raw. */
export function explorePresets(
  studies: Array<{ explore_presets?: Preset[]; headline_metrics?: HeadlineRules }>,
): Preset[] {
  const rules: HeadlineRules = Object.assign({}, ...studies.map((s) => s.headline_metrics ?? {}));
  const [head, tail] = crossStudyPresets(rules);
  return [
    ...head,
    ...studies.flatMap((s) => (s.explore_presets ?? []).map(({ id, label, sql }) => ({ id, label, sql }))),
    ...tail,
  ];
}

function crossStudyPresets(rules: HeadlineRules): [Preset[], Preset[]] {
  const head: Preset[] = [
    {
      id: "throughput",
      label: "Median throughput per workload and system (latest run)",
      sql: `SELECT workload, system, any_value(unit) AS unit,
       median(value) AS median, min(value) AS min, max(value) AS max, count(*) AS repetitions
FROM results
WHERE ${inComparedRuns}
  AND metric = ${throughputMetricSql(rules)}
  AND t IS NULL
GROUP BY workload, system
ORDER BY workload, median DESC;`,
    },
    {
      id: "vs-published",
      label: "samebox vs published: throughput relative to PostgreSQL",
      sql: `WITH m AS (
  SELECT source, workload, system, metric, median(value) AS v
  FROM results
  WHERE (source = 'published' OR ${inComparedRuns})
    AND metric IN ('tps', 'qps') AND t IS NULL
  GROUP BY source, workload, system, metric
)
SELECT m.workload || ' (' || m.source || ')' AS workload_source, m.system, m.metric,
       round(m.v / pg.v, 3) AS relative_to_postgresql
FROM m JOIN m AS pg
  ON pg.source = m.source AND pg.workload = m.workload AND pg.metric = m.metric AND pg.system = 'postgresql'
WHERE m.metric = ${throughputMetricSql(rules, "m.workload")}
ORDER BY m.workload, m.source, m.system;`,
    },
    {
      id: "memory",
      label: "Memory idle vs under load per system (latest run)",
      sql: `SELECT metric, system, median(value) AS median_mib, min(value) AS min_mib, max(value) AS max_mib, count(*) AS samples
FROM results
WHERE ${inComparedRuns} AND metric IN ('mem_idle', 'mem_load')
GROUP BY metric, system
ORDER BY metric, system;`,
    },
    {
      id: "spread",
      label: "Run-to-run spread of throughput per cell (all measured runs)",
      sql: `SELECT workload, system, run_id, count(*) AS repetitions,
       round(100 * (max(value) - min(value)) / median(value), 1) AS spread_pct
FROM results
WHERE source IN ('measured', 'yours') AND metric IN ('tps', 'qps') AND t IS NULL
GROUP BY workload, system, run_id
ORDER BY spread_pct DESC;`,
    },
  ];
  const tail: Preset[] = [
    {
      id: "runs",
      label: "Records per run and machine",
      // One row per run: a published study may describe more than one machine (e.g. seed 004's client
      // and companion-article setups), so machines are listed, not grouped by.
      sql: `SELECT run_id, source, string_agg(DISTINCT machine, ' | ' ORDER BY machine) AS machine, profile, count(*) AS records,
       count(DISTINCT system) AS systems, count(DISTINCT workload) AS workloads
FROM results
GROUP BY run_id, source, profile
ORDER BY run_id DESC;`,
    },
    {
      id: "raw",
      label: "Raw records of the latest run (first 200)",
      sql: `SELECT * FROM results WHERE ${inComparedRuns} LIMIT 200;`,
    },
  ];
  return [head, tail];
}
