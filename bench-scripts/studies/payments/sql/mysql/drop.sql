-- cleanup: drop what prepare made.
DROP PROCEDURE IF EXISTS transfer_funds;
DROP PROCEDURE IF EXISTS transfer_funds_parity;
SET FOREIGN_KEY_CHECKS = 0;
DROP TABLE IF EXISTS transfers, tokens, cards, accounts, permissions, users, organizations, reserva_meta;
SET FOREIGN_KEY_CHECKS = 1;
