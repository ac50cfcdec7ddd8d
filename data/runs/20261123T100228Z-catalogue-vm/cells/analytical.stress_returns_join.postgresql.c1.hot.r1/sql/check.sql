SELECT r.reason, COUNT(*), SUM(ABS(r.refund_amount - o.amount)), ROUND(AVG(r.refund_amount)::numeric, 0) FROM returns r JOIN orders o ON r.order_id = o.id GROUP BY r.reason ORDER BY r.reason;
