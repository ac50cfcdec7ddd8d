// Preset queries for the Explore page. They run in DuckDB-WASM over the table `results`
// (results.csv, one row per record). The latest measured run is the greatest run_id, since run ids
// start with their UTC start time.
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
export const presets: Preset[] = [
  {
    id: "throughput",
    label: "Median throughput per workload and system (latest run)",
    sql: `SELECT workload, system, any_value(unit) AS unit,
       median(value) AS median, min(value) AS min, max(value) AS max, count(*) AS repetitions
FROM results
WHERE ${inComparedRuns}
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
WHERE ${inComparedRuns}
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
WHERE ${inComparedRuns}
  AND workload = 'oltp_read_write' AND metric = 'tps_series' AND repetition = 1
ORDER BY system, t;`,
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
WHERE (m.metric = 'qps') = (m.workload = 'select_random_points')
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
  // Seed 001 (analytical): the page's ClickBench-style view, recomputed from records. Only cells
  // whose answer matched the expected checksum have timing records, so wrong answers drop out here too.
  {
    id: "analytical-relative",
    label: "Analytical: relative time (t + 10 ms) / (t_min + 10 ms) per workload and engine (latest analytical run, hot)",
    sql: `WITH t AS (
  SELECT workload, system, median(value) AS median_ms, count(*) AS runs
  FROM results
  WHERE ${inComparedRuns} AND study = 'analytical'
    AND metric = 'time_run' AND variant = 'hot' AND workload <> 'noop'
  GROUP BY workload, system
)
SELECT workload, system, round(median_ms, 2) AS median_ms, runs,
       round((median_ms + 10) / (min(median_ms) OVER (PARTITION BY workload) + 10), 2) AS relative
FROM t
ORDER BY workload, relative;`,
  },
  {
    id: "analytical-geomean",
    label: "Analytical: geometric mean of relative time per engine and variant (latest analytical run)",
    sql: `WITH t AS (
  SELECT variant, workload, system, median(value) AS median_ms
  FROM results
  WHERE ${inComparedRuns} AND study = 'analytical'
    AND metric = 'time_run' AND workload <> 'noop'
  GROUP BY variant, workload, system
), r AS (
  SELECT variant, workload, system,
         (median_ms + 10) / (min(median_ms) OVER (PARTITION BY variant, workload) + 10) AS relative
  FROM t
)
SELECT variant, system, round(exp(avg(ln(relative))), 2) AS geomean, count(*) AS workloads_ran
FROM r
GROUP BY variant, system
ORDER BY variant, geomean;`,
  },
  {
    id: "analytical-spawn",
    label: "Analytical: process-spawn cost per engine (workload noop: connect or open, SELECT 1, exit)",
    sql: `SELECT system, variant, round(median(value), 2) AS median_ms, round(min(value), 2) AS min_ms,
       round(max(value), 2) AS max_ms, count(*) AS runs
FROM results
WHERE ${inComparedRuns} AND study = 'analytical'
  AND workload = 'noop' AND metric = 'time_run'
GROUP BY system, variant
ORDER BY variant, median_ms;`,
  },
  {
    id: "analytical-pgwire",
    label: "Analytical: pgwire throughput, queries/s with p50 and p99 (latest analytical run)",
    sql: `SELECT workload, system, concurrency AS connections,
       median(value) FILTER (WHERE metric = 'qps') AS qps,
       median(value) FILTER (WHERE metric = 'latency_p50') AS p50_ms,
       median(value) FILTER (WHERE metric = 'latency_p99') AS p99_ms
FROM results
WHERE ${inComparedRuns} AND study = 'analytical'
  AND metric IN ('qps', 'latency_p50', 'latency_p99') AND t IS NULL
GROUP BY workload, system, concurrency
ORDER BY workload, qps DESC;`,
  },
  // Seed 000 (mcp-db): variant = <server>-<state>, split at the last '-'.
  {
    id: "mcp-throughput",
    label: "MCP: throughput and latency per database × MCP server (latest mcp-db run)",
    sql: `SELECT workload, system AS database,
       regexp_extract(variant, '^(.*)-([^-]*)$', 1) AS server,
       regexp_extract(variant, '^(.*)-([^-]*)$', 2) AS schema_state, concurrency,
       median(value) FILTER (WHERE metric = 'throughput') AS calls_per_s,
       median(value) FILTER (WHERE metric = 'latency_p50') AS p50_ms,
       median(value) FILTER (WHERE metric = 'latency_p99') AS p99_ms,
       median(value) FILTER (WHERE metric = 'errors') AS errors
FROM results
WHERE ${inComparedRuns} AND study = 'mcp-db' AND t IS NULL
GROUP BY ALL
ORDER BY workload, database, server, schema_state, concurrency;`,
  },
  {
    id: "mcp-improvement",
    label: "MCP: index improvement factor, indexed ÷ baseline throughput (latest mcp-db run)",
    sql: `WITH t AS (
  SELECT workload, system, concurrency,
         regexp_extract(variant, '^(.*)-([^-]*)$', 1) AS server,
         regexp_extract(variant, '^(.*)-([^-]*)$', 2) AS state,
         median(value) AS calls_per_s
  FROM results
  WHERE ${inComparedRuns} AND study = 'mcp-db' AND metric = 'throughput'
  GROUP BY ALL
)
SELECT b.workload, b.system AS database, b.server, b.concurrency,
       b.calls_per_s AS baseline, i.calls_per_s AS indexed, round(i.calls_per_s / b.calls_per_s, 2) AS improvement
FROM t AS b JOIN t AS i USING (workload, system, server, concurrency)
WHERE b.state = 'baseline' AND i.state = 'indexed' AND b.calls_per_s > 0
ORDER BY improvement DESC;`,
  },
  {
    id: "mcp-overhead",
    label: "MCP: median latency through MCP vs the database's own driver (overhead per call)",
    sql: `SELECT workload, system AS database, variant, concurrency,
       median(value) FILTER (WHERE metric = 'latency_p50') AS mcp_p50_ms,
       median(value) FILTER (WHERE metric = 'direct_latency_p50') AS direct_p50_ms,
       median(value) FILTER (WHERE metric = 'mcp_overhead_p50') AS overhead_p50_ms
FROM results
WHERE ${inComparedRuns} AND study = 'mcp-db'
  AND metric IN ('latency_p50', 'direct_latency_p50', 'mcp_overhead_p50')
GROUP BY ALL
HAVING direct_p50_ms IS NOT NULL
ORDER BY workload, database, variant;`,
  },
  {
    id: "mcp-scaling",
    label: "MCP: throughput against concurrency (latest mcp-db run)",
    sql: `SELECT workload, system AS database, variant, concurrency, median(value) AS calls_per_s
FROM results
WHERE ${inComparedRuns} AND study = 'mcp-db' AND metric = 'throughput'
  AND workload IN (SELECT workload FROM results WHERE study = 'mcp-db' AND source = 'measured'
                   GROUP BY workload HAVING count(DISTINCT concurrency) > 1)
GROUP BY ALL
ORDER BY workload, database, variant, concurrency;`,
  },
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
