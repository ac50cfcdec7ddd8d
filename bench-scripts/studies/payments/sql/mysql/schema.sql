-- Reserva schema on MariaDB and MySQL, as upstream's migrations/mysql_init.sql declares it (types
-- included; balance is a signed BIGINT so the CHECK, not an unsigned range error, rejects an
-- overdraft). Tables only: prepare loads the rows, then constraints.sql and routines.sql.
SET FOREIGN_KEY_CHECKS = 0;
DROP TABLE IF EXISTS transfers, tokens, cards, accounts, permissions, users, organizations, reserva_meta;
SET FOREIGN_KEY_CHECKS = 1;

CREATE TABLE organizations (id SMALLINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY) ENGINE = InnoDB;
CREATE TABLE users (
  id SMALLINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  organization_id SMALLINT UNSIGNED NOT NULL,
  frozen BOOLEAN NOT NULL DEFAULT FALSE
) ENGINE = InnoDB;
CREATE TABLE permissions (
  id SMALLINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  name VARCHAR(255) NOT NULL UNIQUE
) ENGINE = InnoDB;
CREATE TABLE accounts (
  id INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  organization_id SMALLINT UNSIGNED NOT NULL,
  balance BIGINT NOT NULL,
  frozen BOOLEAN NOT NULL DEFAULT FALSE,
  CONSTRAINT balance_not_negative CHECK (balance >= 0)
) ENGINE = InnoDB;
CREATE TABLE cards (
  id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  account_id INT UNSIGNED NOT NULL,
  expiration_date DATE NOT NULL,
  security_code SMALLINT UNSIGNED NOT NULL,
  frozen BOOLEAN NOT NULL DEFAULT FALSE
) ENGINE = InnoDB;
CREATE TABLE transfers (
  id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  card_id BIGINT UNSIGNED NOT NULL,
  from_account_id INT UNSIGNED NOT NULL,
  to_account_id INT UNSIGNED NOT NULL,
  requesting_user_id SMALLINT UNSIGNED NOT NULL,
  amount BIGINT NOT NULL,
  created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP
) ENGINE = InnoDB;
CREATE TABLE tokens (
  hash CHAR(36) NOT NULL DEFAULT (UUID()),
  permission_id SMALLINT UNSIGNED NOT NULL,
  user_id SMALLINT UNSIGNED NOT NULL,
  expires_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  PRIMARY KEY (hash, permission_id)
) ENGINE = InnoDB;
-- Ours: what prepare loaded, so a run at another scale is refused (exit 2) instead of measured.
CREATE TABLE reserva_meta (
  accounts BIGINT NOT NULL,
  seed BIGINT UNSIGNED NOT NULL,
  total_balance BIGINT NOT NULL,
  fingerprint CHAR(64) NOT NULL,
  generator INT NOT NULL,
  loaded_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP
) ENGINE = InnoDB;
