SELECT c.id, c.tier, e.id, e.amount FROM customers c LEFT JOIN events e ON e.user_id = c.id AND e.event_type = 1 AND e.amount > 990 WHERE c.id < 300;
SELECT c.id, c.tier, e.id, e.amount FROM customers c LEFT JOIN events e ON e.user_id = c.id AND e.event_type = 1 AND e.amount > 990 WHERE c.id < 300;
SELECT c.id, c.tier, e.id, e.amount FROM customers c LEFT JOIN events e ON e.user_id = c.id AND e.event_type = 1 AND e.amount > 990 WHERE c.id < 300;
SELECT c.id, c.tier, e.id, e.amount FROM customers c LEFT JOIN events e ON e.user_id = c.id AND e.event_type = 1 AND e.amount > 990 WHERE c.id < 300;
SELECT c.id, c.tier, e.id, e.amount FROM customers c LEFT JOIN events e ON e.user_id = c.id AND e.event_type = 1 AND e.amount > 990 WHERE c.id < 300;
