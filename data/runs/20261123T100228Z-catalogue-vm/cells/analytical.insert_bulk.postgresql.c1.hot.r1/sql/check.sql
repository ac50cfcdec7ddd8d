SELECT COUNT(*), SUM(id), SUM(score), MIN(name), MAX(name) FROM w_insert_bulk;
