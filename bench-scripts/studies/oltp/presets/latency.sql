SELECT metric, system, median(value) AS median_ms, min(value) AS min_ms, max(value) AS max_ms
FROM results
WHERE (run_id, study, source) IN (SELECT run_id, study, source FROM compared_runs)
  AND workload = 'oltp_read_write'
  AND metric IN ('latency_p50', 'latency_avg', 'latency_p95', 'latency_p99')
GROUP BY metric, system
ORDER BY metric, system;
