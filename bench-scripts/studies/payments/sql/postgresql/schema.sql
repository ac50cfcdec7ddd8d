-- Reserva schema on PostgreSQL, as upstream's migrations/postgresql_init.sql declares it (types
-- included). Tables only: prepare loads the rows, then applies constraints.sql (foreign keys and
-- indexes after the load, as upstream) and routines.sql.
DROP TABLE IF EXISTS transfers, tokens, cards, accounts, permissions, users, organizations, reserva_meta CASCADE;

CREATE TABLE organizations (id smallserial PRIMARY KEY);
CREATE TABLE users (
  id smallserial PRIMARY KEY,
  organization_id smallint NOT NULL,
  frozen boolean NOT NULL DEFAULT false
);
CREATE TABLE permissions (id smallserial PRIMARY KEY, name text NOT NULL UNIQUE);
CREATE TABLE accounts (
  id serial PRIMARY KEY,
  organization_id smallint NOT NULL,
  balance bigint NOT NULL CHECK (balance >= 0),
  frozen boolean NOT NULL DEFAULT false
);
CREATE TABLE cards (
  id bigserial PRIMARY KEY,
  account_id integer NOT NULL,
  expiration_date date NOT NULL,
  security_code smallint NOT NULL,
  frozen boolean NOT NULL DEFAULT false
);
CREATE TABLE transfers (
  id bigserial PRIMARY KEY,
  card_id bigint NOT NULL,
  from_account_id integer NOT NULL,
  to_account_id integer NOT NULL,
  requesting_user_id integer NOT NULL,
  amount bigint NOT NULL,
  created_at timestamp NOT NULL
);
CREATE TABLE tokens (
  hash uuid NOT NULL DEFAULT gen_random_uuid(),
  permission_id smallint NOT NULL,
  user_id smallint NOT NULL,
  expires_at timestamp NOT NULL,
  PRIMARY KEY (hash, permission_id)
);
-- Ours: what prepare loaded, so a run at another scale is refused (exit 2) instead of measured.
CREATE TABLE reserva_meta (
  accounts bigint NOT NULL,
  seed bigint NOT NULL,
  total_balance bigint NOT NULL,
  fingerprint char(64) NOT NULL,
  generator integer NOT NULL,
  loaded_at timestamp NOT NULL
);
