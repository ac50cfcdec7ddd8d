-- mcp-db study schema, SQL Server. Baseline: primary keys only (seed 000's round 1).
-- Columns and order match the CSV files written by tools/cmd/mcpdb-gen.
CREATE TABLE customers   (id BIGINT PRIMARY KEY, name VARCHAR(64) NOT NULL, email VARCHAR(128) NOT NULL, country CHAR(2) NOT NULL, segment VARCHAR(16) NOT NULL, created_at DATETIME2(0) NOT NULL);
CREATE TABLE products    (id BIGINT PRIMARY KEY, sku VARCHAR(32) NOT NULL, name VARCHAR(64) NOT NULL, category VARCHAR(32) NOT NULL, price DECIMAL(12,2) NOT NULL, stock INTEGER NOT NULL, created_at DATETIME2(0) NOT NULL);
CREATE TABLE orders      (id BIGINT PRIMARY KEY, customer_id BIGINT NOT NULL, status VARCHAR(16) NOT NULL, total DECIMAL(12,2) NOT NULL, created_at DATETIME2(0) NOT NULL);
CREATE TABLE order_items (id BIGINT PRIMARY KEY, order_id BIGINT NOT NULL, product_id BIGINT NOT NULL, quantity INTEGER NOT NULL, unit_price DECIMAL(12,2) NOT NULL);
CREATE TABLE payments    (id BIGINT PRIMARY KEY, order_id BIGINT NOT NULL, method VARCHAR(16) NOT NULL, amount DECIMAL(12,2) NOT NULL, status VARCHAR(16) NOT NULL, paid_at DATETIME2(0) NOT NULL);
CREATE TABLE shipments   (id BIGINT PRIMARY KEY, order_id BIGINT NOT NULL, carrier VARCHAR(16) NOT NULL, status VARCHAR(16) NOT NULL, shipped_at DATETIME2(0) NOT NULL);
CREATE TABLE reviews     (id BIGINT PRIMARY KEY, product_id BIGINT NOT NULL, customer_id BIGINT NOT NULL, rating SMALLINT NOT NULL, created_at DATETIME2(0) NOT NULL);
CREATE TABLE events      (id BIGINT PRIMARY KEY, customer_id BIGINT NOT NULL, event_type VARCHAR(16) NOT NULL, product_id BIGINT NOT NULL, created_at DATETIME2(0) NOT NULL);
