SELECT COUNT(*), SUM(id), SUM(val) FROM w_txn;
