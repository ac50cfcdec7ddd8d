SELECT seq FROM seq_1_to_10000;
