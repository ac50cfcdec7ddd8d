SELECT id, CONCAT(UPPER(first_name), ' ', UPPER(last_name)) AS full_name, LENGTH(email), REPLACE(email, 'example.com', 'test.org') FROM strtbl WHERE first_name LIKE 'FirstName_1%' ORDER BY id;
SELECT id, CONCAT(UPPER(first_name), ' ', UPPER(last_name)) AS full_name, LENGTH(email), REPLACE(email, 'example.com', 'test.org') FROM strtbl WHERE first_name LIKE 'FirstName_1%' ORDER BY id;
