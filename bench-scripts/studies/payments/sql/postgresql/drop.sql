-- cleanup: drop what prepare made.
DROP FUNCTION IF EXISTS transfer_funds(bigint, integer, integer, integer, bigint, timestamp);
DROP TABLE IF EXISTS transfers, tokens, cards, accounts, permissions, users, organizations, reserva_meta CASCADE;
