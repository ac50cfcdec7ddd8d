SELECT COUNT(*), SUM(val) FROM w_delete;
