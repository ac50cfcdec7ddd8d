-- The transfer write (round trip 4) on MariaDB/MySQL.
-- as-published: upstream's procedure: an explicit transaction at the session's default isolation
-- (InnoDB: REPEATABLE READ) whose exit handler rolls back and swallows the error, so the client
-- only sees that no id came back.
DROP PROCEDURE IF EXISTS transfer_funds;
CREATE PROCEDURE transfer_funds(
  IN p_card_id BIGINT UNSIGNED, IN p_from_account_id INT UNSIGNED, IN p_to_account_id INT UNSIGNED,
  IN p_requesting_user_id SMALLINT UNSIGNED, IN p_amount BIGINT, IN p_created_at TIMESTAMP)
BEGIN
  DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; END;
  START TRANSACTION;
  UPDATE accounts
     SET balance = CASE WHEN id = p_from_account_id THEN balance - p_amount
                        WHEN id = p_to_account_id THEN balance + p_amount END
   WHERE id IN (p_from_account_id, p_to_account_id);
  INSERT INTO transfers (card_id, from_account_id, to_account_id, requesting_user_id, amount, created_at)
  VALUES (p_card_id, p_from_account_id, p_to_account_id, p_requesting_user_id, p_amount, p_created_at);
  SELECT LAST_INSERT_ID();
  COMMIT;
END;
-- parity: the same one-transaction shape as the PostgreSQL function, at READ COMMITTED (what
-- PostgreSQL runs by default, set explicitly on both engines), and the error re-raised to the
-- client so it is classified (deadlock, lock timeout, CHECK violation) instead of swallowed.
DROP PROCEDURE IF EXISTS transfer_funds_parity;
CREATE PROCEDURE transfer_funds_parity(
  IN p_card_id BIGINT UNSIGNED, IN p_from_account_id INT UNSIGNED, IN p_to_account_id INT UNSIGNED,
  IN p_requesting_user_id SMALLINT UNSIGNED, IN p_amount BIGINT, IN p_created_at TIMESTAMP)
BEGIN
  DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
  SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
  START TRANSACTION;
  UPDATE accounts
     SET balance = CASE WHEN id = p_from_account_id THEN balance - p_amount
                        WHEN id = p_to_account_id THEN balance + p_amount END
   WHERE id IN (p_from_account_id, p_to_account_id);
  INSERT INTO transfers (card_id, from_account_id, to_account_id, requesting_user_id, amount, created_at)
  VALUES (p_card_id, p_from_account_id, p_to_account_id, p_requesting_user_id, p_amount, p_created_at);
  COMMIT;
  SELECT LAST_INSERT_ID();
END;
