-- Foreign keys (ON DELETE CASCADE) and an index on every foreign-key column, after the load, as upstream.
ALTER TABLE users ADD FOREIGN KEY (organization_id) REFERENCES organizations (id) ON DELETE CASCADE;
ALTER TABLE accounts ADD FOREIGN KEY (organization_id) REFERENCES organizations (id) ON DELETE CASCADE;
ALTER TABLE cards ADD FOREIGN KEY (account_id) REFERENCES accounts (id) ON DELETE CASCADE;
ALTER TABLE transfers ADD FOREIGN KEY (card_id) REFERENCES cards (id) ON DELETE CASCADE;
ALTER TABLE transfers ADD FOREIGN KEY (from_account_id) REFERENCES accounts (id) ON DELETE CASCADE;
ALTER TABLE transfers ADD FOREIGN KEY (to_account_id) REFERENCES accounts (id) ON DELETE CASCADE;
ALTER TABLE transfers ADD FOREIGN KEY (requesting_user_id) REFERENCES users (id) ON DELETE CASCADE;
ALTER TABLE tokens ADD FOREIGN KEY (permission_id) REFERENCES permissions (id) ON DELETE CASCADE;
ALTER TABLE tokens ADD FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE;
CREATE INDEX ON users (organization_id);
CREATE INDEX ON accounts (organization_id);
CREATE INDEX ON cards (account_id);
CREATE INDEX ON transfers (card_id);
CREATE INDEX ON transfers (from_account_id);
CREATE INDEX ON transfers (to_account_id);
CREATE INDEX ON transfers (requesting_user_id);
CREATE INDEX ON tokens (permission_id);
CREATE INDEX ON tokens (user_id);
