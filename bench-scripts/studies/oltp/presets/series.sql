SELECT t, system, value AS tps
FROM results
WHERE (run_id, study, source) IN (SELECT run_id, study, source FROM compared_runs)
  AND workload = 'oltp_read_write' AND metric = 'tps_series' AND repetition = 1
ORDER BY system, t;
