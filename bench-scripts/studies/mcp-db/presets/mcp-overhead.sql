SELECT workload, system AS database, server, variant AS schema_state, concurrency,
       median(value) FILTER (WHERE metric = 'latency_p50') AS mcp_p50_ms,
       median(value) FILTER (WHERE metric = 'direct_latency_p50') AS direct_p50_ms,
       median(value) FILTER (WHERE metric = 'mcp_overhead_p50') AS overhead_p50_ms
FROM results
WHERE (run_id, study, source) IN (SELECT run_id, study, source FROM compared_runs) AND study = 'mcp-db'
  AND metric IN ('latency_p50', 'direct_latency_p50', 'mcp_overhead_p50')
GROUP BY ALL
HAVING direct_p50_ms IS NOT NULL
ORDER BY workload, database, server, schema_state;
