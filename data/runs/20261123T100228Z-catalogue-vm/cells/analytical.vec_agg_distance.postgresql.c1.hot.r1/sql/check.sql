SELECT category, AVG(embedding <-> '[720, 733, 746, 759, 772, 785, 798, 811, 824, 837, 850, 863, 876, 889, 902, 915]') FROM vec_items GROUP BY category;
