SELECT id, array_distance(embedding, [720, 733, 746, 759, 772, 785, 798, 811, 824, 837, 850, 863, 876, 889, 902, 915]::FLOAT[16]) AS d FROM vec_items WHERE category = 3 ORDER BY d, id LIMIT 10;
