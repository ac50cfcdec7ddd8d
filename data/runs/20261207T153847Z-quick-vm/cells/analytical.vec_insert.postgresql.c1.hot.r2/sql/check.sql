SELECT id, label, v FROM t_vec WHERE id < 10 OR id > 4989;
