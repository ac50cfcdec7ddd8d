SELECT workload, system AS database, server, variant AS schema_state, concurrency,
       median(value) FILTER (WHERE metric = 'throughput') AS calls_per_s,
       median(value) FILTER (WHERE metric = 'latency_p50') AS p50_ms,
       median(value) FILTER (WHERE metric = 'latency_p99') AS p99_ms,
       median(value) FILTER (WHERE metric = 'errors') AS errors
FROM results
WHERE (run_id, study, source) IN (SELECT run_id, study, source FROM compared_runs) AND study = 'mcp-db' AND t IS NULL
GROUP BY ALL
ORDER BY workload, database, server, schema_state, concurrency;
