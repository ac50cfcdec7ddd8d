CREATE EXTENSION IF NOT EXISTS vector;
DROP TABLE IF EXISTS vec_items;
CREATE TABLE vec_items AS SELECT i AS id, i % 10 AS category, (SELECT array_agg(((i * 31 + k * 17) % 1000)::real ORDER BY k) FROM generate_series(0, 15) k)::vector(16) AS embedding FROM generate_series(0, 9999) i;
DROP TABLE IF EXISTS w_vec;
CREATE TABLE w_vec (id INTEGER, category INTEGER, embedding vector(16));
