SELECT COUNT(*), (SELECT SUM(x) FROM vec_items, unnest(embedding::real[]) x) FROM vec_items;
