-- mcp-db study schema, SQLite. Baseline: primary keys only (seed 000's round 1).
-- INTEGER PRIMARY KEY is the rowid (SQLite's clustered key); timestamps are ISO-8601 TEXT,
-- which compares in time order; money is REAL (SQLite has no fixed-point type).
CREATE TABLE customers   (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL, country TEXT NOT NULL, segment TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE products    (id INTEGER PRIMARY KEY, sku TEXT NOT NULL, name TEXT NOT NULL, category TEXT NOT NULL, price REAL NOT NULL, stock INTEGER NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE orders      (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL, status TEXT NOT NULL, total REAL NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE order_items (id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL, product_id INTEGER NOT NULL, quantity INTEGER NOT NULL, unit_price REAL NOT NULL);
CREATE TABLE payments    (id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL, method TEXT NOT NULL, amount REAL NOT NULL, status TEXT NOT NULL, paid_at TEXT NOT NULL);
CREATE TABLE shipments   (id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL, carrier TEXT NOT NULL, status TEXT NOT NULL, shipped_at TEXT NOT NULL);
CREATE TABLE reviews     (id INTEGER PRIMARY KEY, product_id INTEGER NOT NULL, customer_id INTEGER NOT NULL, rating INTEGER NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE events      (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL, event_type TEXT NOT NULL, product_id INTEGER NOT NULL, created_at TEXT NOT NULL);
