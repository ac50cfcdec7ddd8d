package main

// MariaDB and MySQL through go-sql-driver/mysql and database/sql. Driver mode by variant:
//   as-published: interpolateParams off (the driver default) and plain db.Query with arguments, so
//     database/sql prepares, executes and closes a server-side statement for every call (upstream's
//     behaviour, CALL transfer_funds re-prepared per transfer); CALL transfer_funds, the upstream
//     procedure (explicit transaction, engine default isolation, errors swallowed).
//   parity: every statement prepared once per connection (database/sql Stmt), executed with one
//     round trip; session isolation READ COMMITTED; CALL transfer_funds_parity (same transaction
//     shape, READ COMMITTED, errors re-raised).

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

const (
	myAuthSQL = `SELECT users.id, users.organization_id, users.frozen, tokens.permission_id, tokens.expires_at
FROM users INNER JOIN tokens ON users.id = tokens.user_id WHERE tokens.hash = ?`
	myCardSQL = `SELECT accounts.id, accounts.organization_id, accounts.balance, accounts.frozen,
cards.account_id, cards.expiration_date, cards.security_code, cards.frozen
FROM accounts INNER JOIN cards ON accounts.id = cards.account_id WHERE cards.id = ?`
	myTransferSQL       = `CALL transfer_funds(?, ?, ?, ?, ?, ?)`
	myTransferParitySQL = `CALL transfer_funds_parity(?, ?, ?, ?, ?, ?)`
	myDeleteSQL         = `DELETE FROM transfers WHERE id = ?`
)

type myDB struct {
	engine string
	db     *sql.DB
	admin  *sql.DB // multi-statement scripts and the load; not used by the measured loop
	parity bool
	stmts  map[string]*sql.Stmt
}

func openMySQL(ctx context.Context, engine, dsn, variant string, pool int) (*myDB, error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("bad -dsn for %s: %v (valid: user:password@tcp(127.0.0.1:3306)/db)", engine, err)
	}
	cfg.ParseTime = true
	cfg.Loc = time.UTC
	cfg.InterpolateParams = false

	adminCfg := cfg.Clone()
	adminCfg.MultiStatements = true
	admin, err := sql.Open("mysql", adminCfg.FormatDSN())
	if err != nil {
		return nil, err
	}
	admin.SetMaxOpenConns(2)
	cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := admin.PingContext(cctx); err != nil {
		admin.Close()
		return nil, err
	}
	d := &myDB{engine: engine, admin: admin, parity: variant == VariantParity, stmts: map[string]*sql.Stmt{}}
	if d.parity {
		// MariaDB before 11.1 names the session variable tx_isolation; MySQL 8+ only transaction_isolation.
		name := "transaction_isolation"
		var vn, vv string
		if err := admin.QueryRowContext(cctx, `SHOW VARIABLES LIKE 'transaction_isolation'`).Scan(&vn, &vv); errors.Is(err, sql.ErrNoRows) {
			name = "tx_isolation"
		} else if err != nil {
			admin.Close()
			return nil, err
		}
		if cfg.Params == nil {
			cfg.Params = map[string]string{}
		}
		cfg.Params[name] = "'READ-COMMITTED'"
	}
	d.db, err = sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		admin.Close()
		return nil, err
	}
	// Upstream: MaxOpen = MaxIdle = concurrency, idle time 15 minutes.
	d.db.SetMaxOpenConns(pool)
	d.db.SetMaxIdleConns(pool)
	d.db.SetConnMaxIdleTime(15 * time.Minute)
	if err := d.db.PingContext(cctx); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

func (d *myDB) Name() string { return d.engine }

func (d *myDB) Close() {
	for _, s := range d.stmts {
		s.Close()
	}
	if d.db != nil {
		d.db.Close()
	}
	d.admin.Close()
}

// PrepareStatements prepares the measured statements once (parity); database/sql then prepares
// each on every pooled connection the first time it is used there, and reuses it after.
func (d *myDB) PrepareStatements(ctx context.Context) error {
	if !d.parity {
		return nil
	}
	for _, q := range []string{myAuthSQL, myCardSQL, myTransferParitySQL, myDeleteSQL} {
		s, err := d.db.PrepareContext(ctx, q)
		if err != nil {
			return fmt.Errorf("prepare %q: %w", strings.Fields(q)[0], err)
		}
		d.stmts[q] = s
	}
	return nil
}

func (d *myDB) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	if s, ok := d.stmts[q]; ok {
		return s.QueryContext(ctx, args...)
	}
	return d.db.QueryContext(ctx, q, args...)
}

func (d *myDB) AuthByToken(ctx context.Context, token string) ([]AuthRow, error) {
	rows, err := d.query(ctx, myAuthSQL, token)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []AuthRow
	for rows.Next() {
		var r AuthRow
		if err := rows.Scan(&r.UserID, &r.OrgID, &r.Frozen, &r.PermissionID, &r.ExpiresAt); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

func (d *myDB) CardAccount(ctx context.Context, cardID int64) (CardAccount, error) {
	var c CardAccount
	rows, err := d.query(ctx, myCardSQL, cardID)
	if err != nil {
		return c, err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return c, err
		}
		return c, ErrNotFound
	}
	err = rows.Scan(&c.AccountID, &c.OrgID, &c.Balance, &c.AccountFrozen, &c.CardAccountID, &c.Expiration, &c.CVV, &c.CardFrozen)
	return c, err
}

func (d *myDB) TransferFunds(ctx context.Context, r TransferRequest) (int64, error) {
	q := myTransferSQL
	if d.parity {
		q = myTransferParitySQL
	}
	rows, err := d.query(ctx, q, r.CardID, r.FromAccountID, r.ToAccountID, r.RequestingUserID, r.Amount, r.CreatedAt)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return 0, err
		}
		return 0, ErrProcedureNoResult
	}
	var id int64
	if err := rows.Scan(&id); err != nil {
		return 0, err
	}
	// Drain the CALL's trailing status result so the connection is clean for the next statement.
	for rows.NextResultSet() {
	}
	return id, rows.Err()
}

func (d *myDB) DeleteTransfer(ctx context.Context, id int64) error {
	if s, ok := d.stmts[myDeleteSQL]; ok {
		_, err := s.ExecContext(ctx, id)
		return err
	}
	_, err := d.db.ExecContext(ctx, myDeleteSQL, id)
	return err
}

func (d *myDB) ApplySQLFile(ctx context.Context, path string) error {
	text, err := readSQLFile(path)
	if err != nil {
		return err
	}
	conn, err := d.admin.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	// multiStatements: the server splits the script itself (compound BEGIN ... END bodies included).
	rows, err := conn.QueryContext(ctx, text)
	if err != nil {
		return err
	}
	for {
		for rows.Next() {
		}
		if !rows.NextResultSet() {
			break
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return rows.Close()
}

func (d *myDB) LoadRows(ctx context.Context, seed uint64, accounts int64, expires time.Time) error {
	conn, err := d.admin.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	exec := func(q string) error { _, err := conn.ExecContext(ctx, q); return err }
	var b strings.Builder
	values := func(table, cols string, n int, row func(i int)) error {
		b.Reset()
		fmt.Fprintf(&b, "INSERT INTO %s (%s) VALUES ", table, cols)
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			row(i)
		}
		return exec(b.String())
	}
	if err := values("organizations", "id", numOrganizations, func(i int) { fmt.Fprintf(&b, "(%d)", i+1) }); err != nil {
		return err
	}
	if err := values("users", "id, organization_id", numUsers, func(i int) { fmt.Fprintf(&b, "(%d,%d)", i+1, i+1) }); err != nil {
		return err
	}
	if err := values("permissions", "id, name", len(permissionNames), func(i int) { fmt.Fprintf(&b, "(%d,'%s')", i+1, permissionNames[i]) }); err != nil {
		return err
	}
	exp := expires.Format("2006-01-02 15:04:05")
	tokens := GenerateTokens(seed)
	if err := values("tokens", "hash, permission_id, user_id, expires_at", 2*len(tokens), func(i int) {
		t := tokens[i/2]
		fmt.Fprintf(&b, "('%s',%d,%d,'%s')", t.Hash, i%2+1, t.UserID, exp)
	}); err != nil {
		return err
	}
	// Accounts and cards in batches of multi-row INSERTs (generated numbers only: nothing to escape).
	const batch = 5000
	var total int64
	var acc, card strings.Builder
	flush := func() error {
		if acc.Len() == 0 {
			return nil
		}
		if err := exec("INSERT INTO accounts (id, organization_id, balance, frozen) VALUES " + acc.String()); err != nil {
			return err
		}
		if err := exec("INSERT INTO cards (id, account_id, expiration_date, security_code, frozen) VALUES " + card.String()); err != nil {
			return err
		}
		acc.Reset()
		card.Reset()
		return nil
	}
	day := expires.Format("2006-01-02")
	n := 0
	if err := GenerateAccounts(seed, accounts, func(a Account) error {
		total += a.Balance
		if n > 0 {
			acc.WriteByte(',')
			card.WriteByte(',')
		}
		fmt.Fprintf(&acc, "(%d,%d,%d,0)", a.ID, a.OrgID, a.Balance)
		fmt.Fprintf(&card, "(%d,%d,'%s',%d,0)", a.ID, a.ID, day, a.CVV)
		n++
		if n == batch {
			n = 0
			return flush()
		}
		return nil
	}); err != nil {
		return err
	}
	if err := flush(); err != nil {
		return err
	}
	_, err = conn.ExecContext(ctx, `INSERT INTO reserva_meta (accounts, seed, total_balance, fingerprint, generator) VALUES (?, ?, ?, ?, ?)`,
		accounts, seed, total, Fingerprint(seed, accounts), generatorVersion)
	return err
}

func (d *myDB) Analyze(ctx context.Context) error {
	rows, err := d.admin.QueryContext(ctx, `ANALYZE TABLE organizations, users, permissions, accounts, cards, transfers, tokens`)
	if err != nil {
		return err
	}
	for rows.Next() {
	}
	return rows.Close()
}

func (d *myDB) Meta(ctx context.Context) (Meta, error) {
	var m Meta
	err := d.admin.QueryRowContext(ctx, `SELECT accounts, seed, total_balance, fingerprint, generator FROM reserva_meta`).
		Scan(&m.Accounts, &m.Seed, &m.TotalBalance, &m.Fingerprint, &m.Generator)
	var me *mysql.MySQLError
	if errors.Is(err, sql.ErrNoRows) || (errors.As(err, &me) && me.Number == 1146) {
		return m, ErrNotPrepared
	}
	return m, err
}

func (d *myDB) ResetTransfers(ctx context.Context) error {
	_, err := d.admin.ExecContext(ctx, `TRUNCATE TABLE transfers`)
	return err
}

func (d *myDB) Entries(ctx context.Context) ([]Entry, error) {
	rows, err := d.admin.QueryContext(ctx, `SELECT users.id, users.organization_id, tokens.hash, accounts.id, cards.id, cards.security_code
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
		if err := rows.Scan(&e.UserID, &e.OrgID, &e.Token, &e.AccountID, &e.CardID, &e.CVV); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

func (d *myDB) Invariants(ctx context.Context) (InvariantState, error) {
	var s InvariantState
	err := d.admin.QueryRowContext(ctx, `SELECT (SELECT CAST(COALESCE(SUM(balance), 0) AS SIGNED) FROM accounts),
(SELECT COUNT(*) FROM accounts WHERE balance < 0), (SELECT COUNT(*) FROM transfers)`).
		Scan(&s.BalanceSum, &s.NegativeBalances, &s.TransferRows)
	return s, err
}

func (d *myDB) TransfersPerMinute(ctx context.Context) ([]MinuteCount, error) {
	// Upstream's MySQL query grouped by hour() and minute(); the full minute keeps days apart.
	rows, err := d.admin.QueryContext(ctx, `SELECT DATE_FORMAT(created_at, '%Y-%m-%dT%H:%i') AS m, COUNT(*) FROM transfers GROUP BY m ORDER BY m`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []MinuteCount
	for rows.Next() {
		var m MinuteCount
		if err := rows.Scan(&m.Minute, &m.Count); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

func (d *myDB) Settings(ctx context.Context) (map[string]string, error) {
	out := map[string]string{}
	rows, err := d.admin.QueryContext(ctx, `SHOW GLOBAL VARIABLES WHERE Variable_name IN ('version', 'log_bin', 'sync_binlog',
'innodb_flush_log_at_trx_commit', 'innodb_doublewrite', 'innodb_buffer_pool_size', 'innodb_log_file_size',
'innodb_redo_log_capacity', 'performance_schema', 'tx_isolation', 'transaction_isolation', 'max_connections', 'innodb_flush_method')`)
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
	rows.Close()
	// What a pooled client session actually runs at (parity sets it per connection).
	var k, v string
	if err := d.db.QueryRowContext(ctx, `SHOW SESSION VARIABLES WHERE Variable_name IN ('transaction_isolation', 'tx_isolation')`).Scan(&k, &v); err != nil {
		return nil, err
	}
	out["session_transaction_isolation"] = v
	return out, nil
}

func (d *myDB) AdjustBalance(ctx context.Context, accountID, delta int64) error {
	_, err := d.admin.ExecContext(ctx, `UPDATE accounts SET balance = balance + ? WHERE id = ?`, delta, accountID)
	return err
}
