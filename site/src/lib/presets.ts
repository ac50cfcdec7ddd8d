// Preset queries for the Explore page. They run in DuckDB-WASM over the table `results`
// (results.csv, one row per record). The latest measured run is the greatest run_id, since run ids
// start with their UTC start time.
export interface Preset {
  id: string;
  label: string;
  sql: string;
}
const latestRun = "(SELECT max(run_id) FROM results WHERE source = 'measured')";
export const presets: Preset[] = [
  {
    id: "throughput",
    label: "Median throughput per workload and system (latest run)",
    sql: `SELECT workload, system, any_value(unit) AS unit,
       median(value) AS median, min(value) AS min, max(value) AS max, count(*) AS repetitions
FROM results
WHERE run_id = ${latestRun}
  AND metric = CASE WHEN workload = 'select_random_points' THEN 'qps' ELSE 'tps' END
  AND t IS NULL
GROUP BY workload, system
ORDER BY workload, median DESC;`,
  },
  {
    id: "latency",
    label: "Latency percentiles per system, OLTP read-write (latest run)",
    sql: `SELECT metric, system, median(value) AS median_ms, min(value) AS min_ms, max(value) AS max_ms
FROM results
WHERE run_id = ${latestRun}
  AND workload = 'oltp_read_write'
  AND metric IN ('latency_p50', 'latency_avg', 'latency_p95', 'latency_p99')
GROUP BY metric, system
ORDER BY metric, system;`,
  },
  {
    id: "series",
    label: "Transactions per second over time, OLTP read-write, repetition 1",
    sql: `SELECT t, system, value AS tps
FROM results
WHERE run_id = ${latestRun}
  AND workload = 'oltp_read_write' AND metric = 'tps_series' AND repetition = 1
ORDER BY system, t;`,
  },
  {
    id: "vs-published",
    label: "samebox vs published: throughput relative to PostgreSQL",
    sql: `WITH m AS (
  SELECT source, workload, system, metric, median(value) AS v
  FROM results
  WHERE (source = 'published' OR run_id = ${latestRun})
    AND metric IN ('tps', 'qps') AND t IS NULL
  GROUP BY source, workload, system, metric
)
SELECT m.workload || ' (' || m.source || ')' AS workload_source, m.system, m.metric,
       round(m.v / pg.v, 3) AS relative_to_postgresql
FROM m JOIN m AS pg
  ON pg.source = m.source AND pg.workload = m.workload AND pg.metric = m.metric AND pg.system = 'postgresql'
WHERE (m.metric = 'qps') = (m.workload = 'select_random_points')
ORDER BY m.workload, m.source, m.system;`,
  },
  {
    id: "memory",
    label: "Memory idle vs under load per system (latest run)",
    sql: `SELECT metric, system, median(value) AS median_mib, min(value) AS min_mib, max(value) AS max_mib, count(*) AS samples
FROM results
WHERE run_id = ${latestRun} AND metric IN ('mem_idle', 'mem_load')
GROUP BY metric, system
ORDER BY metric, system;`,
  },
  {
    id: "spread",
    label: "Run-to-run spread of throughput per cell (all measured runs)",
    sql: `SELECT workload, system, run_id, count(*) AS repetitions,
       round(100 * (max(value) - min(value)) / median(value), 1) AS spread_pct
FROM results
WHERE source = 'measured' AND metric IN ('tps', 'qps') AND t IS NULL
GROUP BY workload, system, run_id
ORDER BY spread_pct DESC;`,
  },
  {
    id: "runs",
    label: "Records per run and machine",
    sql: `SELECT run_id, source, machine, profile, count(*) AS records,
       count(DISTINCT system) AS systems, count(DISTINCT workload) AS workloads
FROM results
GROUP BY run_id, source, machine, profile
ORDER BY run_id DESC;`,
  },
  {
    id: "raw",
    label: "Raw records of the latest run (first 200)",
    sql: `SELECT * FROM results WHERE run_id = ${latestRun} LIMIT 200;`,
  },
];
