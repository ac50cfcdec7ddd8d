WITH t AS (
  SELECT variant, workload, system, median(value) AS median_ms
  FROM results
  WHERE (run_id, study, source) IN (SELECT run_id, study, source FROM compared_runs) AND study = 'analytical'
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
ORDER BY variant, geomean;
