SELECT sensor_id, COUNT(*), AVG(v1), SUM(v2), MIN(v3), MAX(v4), AVG(v5) FROM metrics GROUP BY sensor_id ORDER BY sensor_id;
