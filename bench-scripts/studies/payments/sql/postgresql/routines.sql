-- The transfer write (round trip 4): one plpgsql function, called in autocommit, so the UPDATE
-- and the INSERT run in the single implicit transaction of the calling statement (upstream's
-- shape). Both variants call this function; parity only sets the isolation level explicitly.
CREATE OR REPLACE FUNCTION transfer_funds(
  p_card_id bigint, p_from_account_id integer, p_to_account_id integer,
  p_requesting_user_id integer, p_amount bigint, p_created_at timestamp
) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  v_transfer_id bigint;
BEGIN
  UPDATE accounts
     SET balance = CASE WHEN id = p_from_account_id THEN balance - p_amount
                        WHEN id = p_to_account_id THEN balance + p_amount END
   WHERE id IN (p_from_account_id, p_to_account_id);
  INSERT INTO transfers (card_id, from_account_id, to_account_id, requesting_user_id, amount, created_at)
  VALUES (p_card_id, p_from_account_id, p_to_account_id, p_requesting_user_id, p_amount, p_created_at)
  RETURNING id INTO v_transfer_id;
  RETURN v_transfer_id;
END
$$;
