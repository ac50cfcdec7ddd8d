SELECT workload, system, concurrency AS connections,
       median(value) FILTER (WHERE metric = 'qps') AS qps,
       median(value) FILTER (WHERE metric = 'latency_p50') AS p50_ms,
       median(value) FILTER (WHERE metric = 'latency_p99') AS p99_ms
FROM results
WHERE (run_id, study, source) IN (SELECT run_id, study, source FROM compared_runs) AND study = 'analytical'
  AND metric IN ('qps', 'latency_p50', 'latency_p99') AND t IS NULL
GROUP BY workload, system, concurrency
ORDER BY workload, qps DESC;
