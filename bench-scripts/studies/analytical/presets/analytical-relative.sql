WITH t AS (
  SELECT workload, system, median(value) AS median_ms, count(*) AS runs
  FROM results
  WHERE (run_id, study, source) IN (SELECT run_id, study, source FROM compared_runs) AND study = 'analytical'
    AND metric = 'time_run' AND variant = 'hot' AND workload <> 'noop'
  GROUP BY workload, system
)
SELECT workload, system, round(median_ms, 2) AS median_ms, runs,
       round((median_ms + 10) / (min(median_ms) OVER (PARTITION BY workload) + 10), 2) AS relative
FROM t
ORDER BY workload, relative;
