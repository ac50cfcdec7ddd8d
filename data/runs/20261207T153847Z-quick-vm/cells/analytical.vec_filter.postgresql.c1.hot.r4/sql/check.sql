SELECT id, v FROM t_vfilt WHERE category = 5;
