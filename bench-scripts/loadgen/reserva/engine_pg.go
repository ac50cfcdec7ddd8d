package main

// PostgreSQL through pgx. Driver mode by variant:
//   as-published: QueryExecModeDescribeExec — every parameterized query is parsed and described,
//     then bound and executed: two network round trips, what upstream's lib/pq does by default.
//   parity: QueryExecModeCacheStatement — prepared once per connection, one round trip, the same
//     as the MySQL-family parity mode (server-side prepared statements once per connection).
// Isolation: as-published leaves the server default; parity sets READ COMMITTED explicitly.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

const (
	pgAuthSQL = `SELECT users.id, users.organization_id, users.frozen, tokens.permission_id, tokens.expires_at
FROM users INNER JOIN tokens ON users.id = tokens.user_id WHERE tokens.hash = $1`
	pgCardSQL = `SELECT accounts.id, accounts.organization_id, accounts.balance, accounts.frozen,
cards.account_id, cards.expiration_date, cards.security_code, cards.frozen
FROM accounts INNER JOIN cards ON accounts.id = cards.account_id WHERE cards.id = $1`
	pgTransferSQL = `SELECT transfer_funds($1, $2, $3, $4, $5, $6)`
	pgDeleteSQL   = `DELETE FROM transfers WHERE id = $1`
)

type pgDB struct {
	pool *pgxpool.Pool
}

func openPG(ctx context.Context, dsn, variant string, pool int) (*pgDB, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("bad -dsn for postgresql: %v", err)
	}
	cfg.MaxConns = int32(pool)
	cfg.MaxConnIdleTime = 15 * time.Minute
	switch variant {
	case VariantParity:
		cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeCacheStatement
		cfg.ConnConfig.RuntimeParams["default_transaction_isolation"] = "read committed"
	default:
		cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeDescribeExec
	}
	cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	p, err := pgxpool.NewWithConfig(cctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := p.Ping(cctx); err != nil {
		p.Close()
		return nil, err
	}
	return &pgDB{pool: p}, nil
}

func (d *pgDB) Name() string { return "postgresql" }
func (d *pgDB) Close()       { d.pool.Close() }

func (d *pgDB) AuthByToken(ctx context.Context, token string) ([]AuthRow, error) {
	rows, err := d.pool.Query(ctx, pgAuthSQL, token)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []AuthRow
	for rows.Next() {
		var r AuthRow
		var uid, org, perm int16
		if err := rows.Scan(&uid, &org, &r.Frozen, &perm, &r.ExpiresAt); err != nil {
			return nil, err
		}
		r.UserID, r.OrgID, r.PermissionID = int64(uid), int64(org), int64(perm)
		out = append(out, r)
	}
	return out, rows.Err()
}

func (d *pgDB) CardAccount(ctx context.Context, cardID int64) (CardAccount, error) {
	var c CardAccount
	var accID, cardAcc int32
	var org, cvv int16
	err := d.pool.QueryRow(ctx, pgCardSQL, cardID).Scan(&accID, &org, &c.Balance, &c.AccountFrozen, &cardAcc, &c.Expiration, &cvv, &c.CardFrozen)
	if errors.Is(err, pgx.ErrNoRows) {
		return c, ErrNotFound
	}
	c.AccountID, c.OrgID, c.CardAccountID, c.CVV = int64(accID), int64(org), int64(cardAcc), int64(cvv)
	return c, err
}

func (d *pgDB) TransferFunds(ctx context.Context, r TransferRequest) (int64, error) {
	var id int64
	// Upstream scanned the id into a local and returned 0 (every later delete hit id 0); we keep it.
	err := d.pool.QueryRow(ctx, pgTransferSQL, r.CardID, int32(r.FromAccountID), int32(r.ToAccountID),
		int32(r.RequestingUserID), r.Amount, r.CreatedAt).Scan(&id)
	return id, err
}

func (d *pgDB) DeleteTransfer(ctx context.Context, id int64) error {
	_, err := d.pool.Exec(ctx, pgDeleteSQL, id)
	return err
}

func (d *pgDB) ApplySQLFile(ctx context.Context, path string) error {
	text, err := readSQLFile(path)
	if err != nil {
		return err
	}
	// No arguments: the simple protocol, which runs a multi-statement script.
	_, err = d.pool.Exec(ctx, text, pgx.QueryExecModeSimpleProtocol)
	return err
}

func (d *pgDB) LoadRows(ctx context.Context, seed uint64, accounts int64, expires time.Time) error {
	conn, err := d.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	c := conn.Conn()
	exec := func(sql string, args ...any) error { _, err := c.Exec(ctx, sql, args...); return err }
	if err := exec(`INSERT INTO organizations (id) SELECT g FROM generate_series(1, $1::int) g`, numOrganizations); err != nil {
		return err
	}
	if err := exec(`INSERT INTO users (id, organization_id) SELECT g, g FROM generate_series(1, $1::int) g`, numUsers); err != nil {
		return err
	}
	for i, name := range permissionNames {
		if err := exec(`INSERT INTO permissions (id, name) VALUES ($1, $2)`, i+1, name); err != nil {
			return err
		}
	}
	for _, t := range GenerateTokens(seed) {
		for perm := range permissionNames {
			if err := exec(`INSERT INTO tokens (hash, permission_id, user_id, expires_at) VALUES ($1, $2, $3, $4)`, t.Hash, perm+1, t.UserID, expires); err != nil {
				return err
			}
		}
	}
	var total int64
	if err := copyAccounts(ctx, c, seed, accounts, &total); err != nil {
		return err
	}
	if err := copyCards(ctx, c, seed, accounts, expires); err != nil {
		return err
	}
	for _, s := range []string{
		`SELECT setval(pg_get_serial_sequence('organizations', 'id'), (SELECT max(id) FROM organizations))`,
		`SELECT setval(pg_get_serial_sequence('users', 'id'), (SELECT max(id) FROM users))`,
		`SELECT setval(pg_get_serial_sequence('permissions', 'id'), (SELECT max(id) FROM permissions))`,
		`SELECT setval(pg_get_serial_sequence('accounts', 'id'), (SELECT max(id) FROM accounts))`,
		`SELECT setval(pg_get_serial_sequence('cards', 'id'), (SELECT max(id) FROM cards))`,
	} {
		if err := exec(s); err != nil {
			return err
		}
	}
	return exec(`INSERT INTO reserva_meta (accounts, seed, total_balance, fingerprint, generator, loaded_at) VALUES ($1, $2, $3, $4, $5, now())`,
		accounts, int64(seed), total, Fingerprint(seed, accounts), generatorVersion)
}

func copyAccounts(ctx context.Context, c *pgx.Conn, seed uint64, n int64, total *int64) error {
	rows := make([][]any, 0, n)
	if err := GenerateAccounts(seed, n, func(a Account) error {
		*total += a.Balance
		rows = append(rows, []any{int32(a.ID), int16(a.OrgID), a.Balance, false})
		return nil
	}); err != nil {
		return err
	}
	_, err := c.CopyFrom(ctx, pgx.Identifier{"accounts"}, []string{"id", "organization_id", "balance", "frozen"}, pgx.CopyFromRows(rows))
	return err
}

func copyCards(ctx context.Context, c *pgx.Conn, seed uint64, n int64, expires time.Time) error {
	rows := make([][]any, 0, n)
	if err := GenerateAccounts(seed, n, func(a Account) error {
		rows = append(rows, []any{a.ID, int32(a.ID), expires, int16(a.CVV), false})
		return nil
	}); err != nil {
		return err
	}
	_, err := c.CopyFrom(ctx, pgx.Identifier{"cards"}, []string{"id", "account_id", "expiration_date", "security_code", "frozen"}, pgx.CopyFromRows(rows))
	return err
}

func (d *pgDB) Analyze(ctx context.Context) error {
	// VACUUM cannot run in a transaction block: one statement, simple protocol.
	_, err := d.pool.Exec(ctx, `VACUUM (ANALYZE)`, pgx.QueryExecModeSimpleProtocol)
	return err
}

func (d *pgDB) Meta(ctx context.Context) (Meta, error) {
	var m Meta
	var seed int64
	err := d.pool.QueryRow(ctx, `SELECT accounts, seed, total_balance, fingerprint, generator FROM reserva_meta`).
		Scan(&m.Accounts, &seed, &m.TotalBalance, &m.Fingerprint, &m.Generator)
	m.Seed = uint64(seed)
	var pgErr *pgconn.PgError
	if errors.Is(err, pgx.ErrNoRows) || (errors.As(err, &pgErr) && pgErr.Code == "42P01") {
		return m, ErrNotPrepared
	}
	return m, err
}

func (d *pgDB) ResetTransfers(ctx context.Context) error {
	_, err := d.pool.Exec(ctx, `TRUNCATE transfers RESTART IDENTITY`, pgx.QueryExecModeSimpleProtocol)
	return err
}

func (d *pgDB) Entries(ctx context.Context) ([]Entry, error) {
	// Upstream's start-up join (users, organizations, accounts of the same organization, tokens,
	// cards); we keep the permission-1 token row only, one entry per account, which is the same
	// uniform choice of account as upstream's two rows per account.
	rows, err := d.pool.Query(ctx, `SELECT users.id, users.organization_id, tokens.hash::text, accounts.id, cards.id, cards.security_code
FROM users JOIN organizations ON organizations.id = users.organization_id
JOIN accounts ON accounts.organization_id = organizations.id
JOIN tokens ON tokens.user_id = users.id AND tokens.permission_id = 1
JOIN cards ON cards.account_id = accounts.id
ORDER BY accounts.id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Entry
	for rows.Next() {
		var e Entry
		var uid, org, cvv int16
		var acc int32
		if err := rows.Scan(&uid, &org, &e.Token, &acc, &e.CardID, &cvv); err != nil {
			return nil, err
		}
		e.UserID, e.OrgID, e.AccountID, e.CVV = int64(uid), int64(org), int64(acc), int64(cvv)
		out = append(out, e)
	}
	return out, rows.Err()
}

func (d *pgDB) Invariants(ctx context.Context) (InvariantState, error) {
	var s InvariantState
	err := d.pool.QueryRow(ctx, `SELECT (SELECT COALESCE(sum(balance), 0)::bigint FROM accounts),
(SELECT count(*) FROM accounts WHERE balance < 0), (SELECT count(*) FROM transfers)`).
		Scan(&s.BalanceSum, &s.NegativeBalances, &s.TransferRows)
	return s, err
}

func (d *pgDB) TransfersPerMinute(ctx context.Context) ([]MinuteCount, error) {
	rows, err := d.pool.Query(ctx, `SELECT to_char(date_trunc('minute', created_at), 'YYYY-MM-DD"T"HH24:MI'), count(*)
FROM transfers GROUP BY 1 ORDER BY 1`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (MinuteCount, error) {
		var m MinuteCount
		err := r.Scan(&m.Minute, &m.Count)
		return m, err
	})
}

func (d *pgDB) Settings(ctx context.Context) (map[string]string, error) {
	out := map[string]string{}
	rows, err := d.pool.Query(ctx, `SELECT name, current_setting(name) FROM pg_settings WHERE name = ANY($1)`,
		[]string{"server_version", "default_transaction_isolation", "fsync", "synchronous_commit", "full_page_writes",
			"wal_sync_method", "shared_buffers", "max_wal_size", "checkpoint_timeout", "autovacuum", "max_connections"})
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		out[k] = v
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// What a pooled client session actually runs at (parity sets it per connection).
	var iso string
	if err := d.pool.QueryRow(ctx, `SHOW transaction_isolation`).Scan(&iso); err != nil {
		return nil, err
	}
	out["session_transaction_isolation"] = iso
	return out, nil
}

func (d *pgDB) AdjustBalance(ctx context.Context, accountID, delta int64) error {
	_, err := d.pool.Exec(ctx, `UPDATE accounts SET balance = balance + $2 WHERE id = $1`, int32(accountID), delta)
	return err
}
