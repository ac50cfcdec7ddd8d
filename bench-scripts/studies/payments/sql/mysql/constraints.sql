-- Foreign keys (ON DELETE CASCADE) after the load, as upstream. InnoDB indexes every foreign-key
-- column itself when the constraint is added, which gives the same nine indexes as on PostgreSQL.
ALTER TABLE users ADD FOREIGN KEY (organization_id) REFERENCES organizations (id) ON DELETE CASCADE;
ALTER TABLE accounts ADD FOREIGN KEY (organization_id) REFERENCES organizations (id) ON DELETE CASCADE;
ALTER TABLE cards ADD FOREIGN KEY (account_id) REFERENCES accounts (id) ON DELETE CASCADE;
ALTER TABLE transfers ADD FOREIGN KEY (card_id) REFERENCES cards (id) ON DELETE CASCADE,
  ADD FOREIGN KEY (from_account_id) REFERENCES accounts (id) ON DELETE CASCADE,
  ADD FOREIGN KEY (to_account_id) REFERENCES accounts (id) ON DELETE CASCADE,
  ADD FOREIGN KEY (requesting_user_id) REFERENCES users (id) ON DELETE CASCADE;
ALTER TABLE tokens ADD FOREIGN KEY (permission_id) REFERENCES permissions (id) ON DELETE CASCADE,
  ADD FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE;
