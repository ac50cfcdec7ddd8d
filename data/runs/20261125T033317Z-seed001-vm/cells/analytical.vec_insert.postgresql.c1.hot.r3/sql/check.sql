SELECT COUNT(*), SUM(id), SUM(category), (SELECT SUM(x) FROM w_vec, unnest(embedding::real[]) x) FROM w_vec;
