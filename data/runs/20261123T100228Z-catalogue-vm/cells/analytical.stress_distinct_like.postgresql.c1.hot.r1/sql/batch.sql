SELECT DISTINCT c.name, c.region FROM customers c JOIN orders o ON c.id = o.customer_id WHERE c.name LIKE 'cust_1%' AND o.amount > 500 ORDER BY c.region, c.name;
SELECT DISTINCT c.name, c.region FROM customers c JOIN orders o ON c.id = o.customer_id WHERE c.name LIKE 'cust_1%' AND o.amount > 500 ORDER BY c.region, c.name;
