"""The analytical study's tables: names, columns and the deterministic formula for every row.

The formulas follow seed 001's generator (bench/bench_vs_pg.py in that project) so our workloads
ask the same questions of the same data; they are pure functions of the row number, so every
engine loads byte-identical CSV files and the answer checksums can be compared across engines.
"""

REGIONS = ["north", "south", "east", "west"]
TIERS = ["basic", "premium", "enterprise"]
CATEGORIES = ["electronics", "clothing", "food", "books", "toys"]
RETURN_REASONS = ["defective", "wrong_size", "changed_mind", "damaged", "other"]


def _score(i):
    # seed: f"{i % 100}.{i % 10}" -- a decimal literal, kept as text so no float formatting creeps in
    return f"{i % 100}.{i % 10}"


# Each table: (name, group, [(column, type)], row_count, row_function, [index columns])
# type is one of int, text, double; loaders map it per engine (lib/analytical.py).
TABLES = [
    # ---- micro: one small table per seed micro workload ----
    ("m_scan", "micro", [("id", "int"), ("name", "text"), ("val", "int")], 5000,
     lambda i: (i, f"row_{i}", i * 7), []),
    ("m_where", "micro", [("id", "int"), ("category", "text"), ("amount", "int")], 5000,
     lambda i: (i, f"cat_{i % 10}", i), []),
    ("m_sales", "micro", [("region", "text"), ("amount", "int")], 5000,
     lambda i: (REGIONS[i % 4], (i * 13) % 1000), []),
    ("m_order", "micro", [("id", "int"), ("val", "int")], 5000,
     lambda i: (i, (i * 31337) % 100000), []),
    ("m_users", "micro", [("id", "int"), ("name", "text")], 500,
     lambda i: (i, f"user_{i}"), []),
    ("m_orders", "micro", [("id", "int"), ("user_id", "int"), ("total", "int")], 2000,
     lambda i: (i, i % 500, (i * 17) % 1000), []),
    ("m_lookup", "micro", [("id", "int"), ("val", "text")], 10000,
     lambda i: (i, f"value_{i}"), [["id"]]),
    ("m_composite", "micro", [("a", "int"), ("b", "int"), ("val", "text")], 10000,
     lambda i: (i % 100, i // 100, f"value_{i}"), [["a", "b"]]),
    ("m_window", "micro", [("id", "int"), ("grp", "int"), ("val", "int")], 5000,
     lambda i: (i, i % 20, (i * 7) % 1000), []),
    ("m_distinct", "micro", [("id", "int"), ("category", "text"), ("val", "int")], 5000,
     lambda i: (i, f"cat_{i % 100}", i), []),
    ("m_sub1", "micro", [("id", "int"), ("val", "int")], 5000,
     lambda i: (i, i * 3), []),
    ("m_sub2", "micro", [("id", "int"), ("flag", "int")], 5000,
     lambda i: (i, i % 1000), []),
    ("m_cte", "micro", [("id", "int"), ("val", "int"), ("category", "text")], 5000,
     lambda i: (i, i * 3, f"cat_{i % 10}"), []),
    ("m_scalar", "micro", [("id", "int"), ("name", "text"), ("score", "double")], 5000,
     lambda i: (i, f"user_{i}", _score(i)), []),
    ("m_expr", "micro", [("id", "int"), ("category", "text"), ("price", "int"), ("quantity", "int")], 5000,
     lambda i: (i, CATEGORIES[i % 5], (i * 17) % 500, (i * 7) % 100), []),
    ("m_msort", "micro", [("id", "int"), ("a", "int"), ("b", "int")], 5000,
     lambda i: (i, (i * 31337) % 1000, (i * 7919) % 1000), []),
    ("m_set1", "micro", [("id", "int"), ("val", "text")], 2000,
     lambda i: (i, f"a_{i}"), []),
    ("m_set2", "micro", [("id", "int"), ("val", "text")], 2000,
     lambda i: (i + 1000, f"b_{i + 1000}"), []),
    # ---- star schema (seed's "bootstrap" dataset) ----
    ("customers", "star", [("id", "int"), ("name", "text"), ("region", "text"), ("tier", "text")], 2000,
     lambda i: (i, f"cust_{i}", REGIONS[i % 4], TIERS[i % 3]), []),
    ("products", "star", [("id", "int"), ("name", "text"), ("category", "text"), ("price", "int"), ("weight", "int")], 500,
     lambda i: (i, f"prod_{i}", CATEGORIES[i % 5], 10 + (i * 17) % 490, 1 + (i * 3) % 50), []),
    ("orders", "star", [("id", "int"), ("customer_id", "int"), ("product_id", "int"), ("quantity", "int"), ("amount", "int")], 50000,
     lambda n: (n, n % 2000, n % 500, 1 + (n * 7) % 20, 10 + (n * 13) % 990), []),
    ("events", "star", [("id", "int"), ("user_id", "int"), ("event_type", "int"), ("amount", "int"), ("score", "int")], 50000,
     lambda n: (n, n % 2000, n % 5, (n * 11) % 1000, (n * 31337) % 10000), []),
    ("metrics", "star", [("id", "int"), ("sensor_id", "int"), ("v1", "int"), ("v2", "int"), ("v3", "int"), ("v4", "int"), ("v5", "int")], 50000,
     lambda n: (n, n % 100, (n * 7) % 1000, (n * 13) % 1000, (n * 19) % 1000, (n * 23) % 1000, (n * 29) % 1000), []),
    ("sales", "star", [("id", "int"), ("rep_id", "int"), ("region_id", "int"), ("amount", "int")], 50000,
     lambda n: (n, n % 200, n % 4, 10 + (n * 17) % 990), []),
    ("returns", "star", [("id", "int"), ("order_id", "int"), ("reason", "text"), ("refund_amount", "int")], 10000,
     lambda n: (n, n % 50000, RETURN_REASONS[n % 5], 10 + (n * 17) % 490), []),
    ("ref_regions", "star", [("id", "int"), ("name", "text"), ("tax_rate", "int")], 4,
     lambda n: (n, REGIONS[n], [10, 8, 12, 9][n]), []),
    ("lineitem", "star", [("id", "int"), ("order_id", "int"), ("product_id", "int"), ("quantity", "int"), ("unit_price", "int")], 200000,
     lambda n: (n, n % 50000, (n * 7) % 500, 1 + (n * 11) % 10, 5 + (n * 13) % 495), []),
    # ---- cases the seed expected PostgreSQL to win ----
    ("big", "pg-favoured", [("id", "int"), ("a", "int"), ("b", "int"), ("c", "text"), ("d", "int")], 200000,
     lambda n: (n, n % 1000, (n * 31337) % 100000, f"row_{n % 5000}", (n * 7) % 10000), []),
    ("csq_master", "pg-favoured", [("id", "int"), ("val", "int")], 2000,
     lambda n: (n, n * 3), []),
    ("csq_detail", "pg-favoured", [("id", "int"), ("ref_id", "int"), ("score", "int")], 10000,
     lambda n: (n, n % 2000, (n * 17) % 1000), []),
    ("midx", "pg-favoured", [("id", "int"), ("status", "int"), ("category", "int"), ("region", "int"), ("score", "int"), ("name", "text")], 100000,
     lambda n: (n, n % 5, n % 50, n % 4, (n * 31337) % 10000, f"user_{n}"), [["status"], ["category"]]),
    ("strtbl", "pg-favoured", [("id", "int"), ("first_name", "text"), ("last_name", "text"), ("email", "text")], 10000,
     lambda n: (n, f"FirstName_{n}", f"LastName_{n}", f"user_{n}@example.com"), []),
    ("wide", "pg-favoured", [("c0", "int")] + [(f"c{k}", "int") for k in range(1, 10)], 50000,
     lambda n: (n, (n * 3) % 10000, (n * 7) % 10000, (n * 11) % 10000, (n * 13) % 10000, (n * 17) % 10000,
                (n * 19) % 10000, (n * 23) % 10000, (n * 29) % 10000, (n * 31) % 10000), []),
]

# Tables also written as Parquet files (by DuckDB, during prepare) for the parquet workloads.
PARQUET_TABLES = ["orders", "events", "metrics", "customers", "products", "sales", "lineitem", "ref_regions"]
