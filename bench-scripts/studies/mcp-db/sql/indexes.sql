-- mcp-db study: the ten secondary indexes of the `indexed` state (seed 000 added 10; theirs are
-- not published, these are ours). Plain CREATE INDEX is the same in PostgreSQL, MySQL/MariaDB,
-- SQLite and SQL Server. Each serves named workload queries (args from tools/cmd/mcpdb-gen):
-- orders of a customer, newest first (filtered: orders WHERE customer_id ORDER BY created_at DESC)
CREATE INDEX ix_orders_customer_created ON orders (customer_id, created_at);
-- one day of orders by status (analytical: orders WHERE created_at range GROUP BY status)
CREATE INDEX ix_orders_created ON orders (created_at);
-- items of a range of orders joined to products (analytical: order_items WHERE order_id BETWEEN)
CREATE INDEX ix_order_items_order ON order_items (order_id);
-- sales lines of one product (filtered: order_items WHERE product_id)
CREATE INDEX ix_order_items_product ON order_items (product_id);
-- login-style lookup by e-mail (filtered: customers WHERE email = ...)
CREATE INDEX ix_customers_email ON customers (email);
-- a product's good reviews and its rating histogram (filtered + analytical: reviews WHERE product_id [AND rating >= 4])
CREATE INDEX ix_reviews_product_rating ON reviews (product_id, rating);
-- a customer's recent activity (filtered: events WHERE customer_id ORDER BY created_at DESC)
CREATE INDEX ix_events_customer_created ON events (customer_id, created_at);
-- one hour of activity by type (analytical: events WHERE created_at range GROUP BY event_type)
CREATE INDEX ix_events_created ON events (created_at);
-- the payment of an order (filtered: payments WHERE order_id)
CREATE INDEX ix_payments_order ON payments (order_id);
-- the shipment of an order (filtered: shipments WHERE order_id)
CREATE INDEX ix_shipments_order ON shipments (order_id);
