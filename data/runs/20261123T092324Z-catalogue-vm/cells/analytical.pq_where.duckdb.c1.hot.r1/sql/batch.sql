SELECT * FROM pq_events WHERE amount > 500 AND score > 5000;
SELECT * FROM pq_events WHERE amount > 500 AND score > 5000;
SELECT * FROM pq_events WHERE amount > 500 AND score > 5000;
SELECT * FROM pq_events WHERE amount > 500 AND score > 5000;
SELECT * FROM pq_events WHERE amount > 500 AND score > 5000;
