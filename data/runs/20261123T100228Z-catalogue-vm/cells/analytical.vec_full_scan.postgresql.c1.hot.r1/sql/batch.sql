SELECT id, embedding FROM vec_items;
SELECT id, embedding FROM vec_items;
