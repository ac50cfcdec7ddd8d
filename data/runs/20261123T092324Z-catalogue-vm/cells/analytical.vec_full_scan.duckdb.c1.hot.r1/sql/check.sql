SELECT COUNT(*), SUM(list_sum(embedding::FLOAT[])) FROM vec_items;
