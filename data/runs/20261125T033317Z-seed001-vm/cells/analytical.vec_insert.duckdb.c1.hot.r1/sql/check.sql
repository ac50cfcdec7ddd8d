SELECT COUNT(*), SUM(id), SUM(category), SUM(list_sum(embedding::FLOAT[])) FROM w_vec;
