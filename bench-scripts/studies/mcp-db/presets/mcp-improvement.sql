WITH t AS (
  SELECT workload, system, concurrency, server, variant AS state,
         median(value) AS calls_per_s
  FROM results
  WHERE (run_id, study, source) IN (SELECT run_id, study, source FROM compared_runs) AND study = 'mcp-db' AND metric = 'throughput'
  GROUP BY ALL
)
SELECT b.workload, b.system AS database, b.server, b.concurrency,
       b.calls_per_s AS baseline, i.calls_per_s AS indexed, round(i.calls_per_s / b.calls_per_s, 2) AS improvement
FROM t AS b JOIN t AS i USING (workload, system, server, concurrency)
WHERE b.state = 'baseline' AND i.state = 'indexed' AND b.calls_per_s > 0
ORDER BY improvement DESC;
