CREATE OR REPLACE TABLE vec_items AS SELECT i::INTEGER AS id, (i % 10)::INTEGER AS category, list_transform(range(16), k -> ((i * 31 + k * 17) % 1000)::FLOAT)::FLOAT[16] AS embedding FROM range(10000) t(i);
CREATE OR REPLACE TABLE w_vec (id INTEGER, category INTEGER, embedding FLOAT[16]);
