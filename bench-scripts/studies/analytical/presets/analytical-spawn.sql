SELECT system, variant, round(median(value), 2) AS median_ms, round(min(value), 2) AS min_ms,
       round(max(value), 2) AS max_ms, count(*) AS runs
FROM results
WHERE (run_id, study, source) IN (SELECT run_id, study, source FROM compared_runs) AND study = 'analytical'
  AND workload = 'noop' AND metric = 'time_run'
GROUP BY system, variant
ORDER BY variant, median_ms;
