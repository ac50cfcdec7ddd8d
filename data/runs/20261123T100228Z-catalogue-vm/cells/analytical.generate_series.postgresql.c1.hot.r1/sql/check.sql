SELECT * FROM generate_series(1, 10000);
