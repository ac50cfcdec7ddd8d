SELECT COUNT(*), SUM(val), SUM(id) FROM w_update;
