SELECT workload, system AS database, server, variant AS schema_state, concurrency, median(value) AS calls_per_s
FROM results
WHERE (run_id, study, source) IN (SELECT run_id, study, source FROM compared_runs) AND study = 'mcp-db' AND metric = 'throughput'
  AND workload IN (SELECT workload FROM results WHERE study = 'mcp-db' AND source = 'measured'
                   GROUP BY workload HAVING count(DISTINCT concurrency) > 1)
GROUP BY ALL
ORDER BY workload, database, server, schema_state, concurrency;
