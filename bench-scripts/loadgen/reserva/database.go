package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Variants of the measured cell (the VARIANT a profile lists).
const (
	VariantAsPublished = "as-published"
	VariantParity      = "parity"
)

var variants = []string{VariantAsPublished, VariantParity}

// Drivers the -driver flag accepts (a system's drivers.go in its system.json): pgx for
// PostgreSQL-protocol servers, mysql (go-sql-driver) for MariaDB and MySQL.
var drivers = []string{"pgx", "mysql"}

// Meta is what prepare loaded (table reserva_meta).
type Meta struct {
	Accounts     int64  `json:"accounts"`
	Seed         uint64 `json:"seed"`
	TotalBalance int64  `json:"total_balance"`
	Fingerprint  string `json:"fingerprint"`
	Generator    int64  `json:"generator"`
}

type MinuteCount struct {
	Minute string `json:"minute"`
	Count  int64  `json:"count"`
}

type InvariantState struct {
	BalanceSum       int64 `json:"balance_sum"`
	NegativeBalances int64 `json:"negative_balances"`
	TransferRows     int64 `json:"transfer_rows"`
}

// ErrNotPrepared: the database holds no Reserva data (prepare has not run).
var ErrNotPrepared = errors.New("not prepared")

// Database is an Engine plus what loading, resetting and checking need.
type Database interface {
	Engine
	Name() string
	ApplySQLFile(ctx context.Context, path string) error
	LoadRows(ctx context.Context, seed uint64, accounts int64, expires time.Time) error
	Analyze(ctx context.Context) error
	Meta(ctx context.Context) (Meta, error)
	ResetTransfers(ctx context.Context) error
	Entries(ctx context.Context) ([]Entry, error)
	Invariants(ctx context.Context) (InvariantState, error)
	TransfersPerMinute(ctx context.Context) ([]MinuteCount, error)
	Settings(ctx context.Context) (map[string]string, error)
	// AdjustBalance adds delta to one account outside any transfer: the test hook that breaks
	// the conserved-sum invariant on purpose (and undoes it afterwards).
	AdjustBalance(ctx context.Context, accountID, delta int64) error
	Close()
}

// Open connects through the driver with the variant's driver mode and isolation; label names
// the system in messages and the report.
func Open(ctx context.Context, driver, label, dsn, variant string, pool int) (Database, error) {
	switch driver {
	case "pgx":
		return openPG(ctx, dsn, variant, pool)
	case "mysql":
		return openMySQL(ctx, label, dsn, variant, pool)
	}
	return nil, fmt.Errorf("unknown driver %q", driver)
}

// Prepare (re)creates the schema, loads the generated rows, adds constraints and routines.
func Prepare(ctx context.Context, db Database, sqlDir string, seed uint64, accounts int64) (Meta, error) {
	for _, step := range []string{"schema.sql"} {
		if err := db.ApplySQLFile(ctx, filepath.Join(sqlDir, step)); err != nil {
			return Meta{}, fmt.Errorf("%s: %w", step, err)
		}
	}
	// Cards and tokens expire a year after the load, as upstream (now + 1 year).
	expires := time.Now().UTC().AddDate(1, 0, 0).Truncate(24 * time.Hour)
	if err := db.LoadRows(ctx, seed, accounts, expires); err != nil {
		return Meta{}, fmt.Errorf("load: %w", err)
	}
	for _, step := range []string{"constraints.sql", "routines.sql"} {
		if err := db.ApplySQLFile(ctx, filepath.Join(sqlDir, step)); err != nil {
			return Meta{}, fmt.Errorf("%s: %w", step, err)
		}
	}
	if err := db.Analyze(ctx); err != nil {
		return Meta{}, fmt.Errorf("analyze: %w", err)
	}
	return db.Meta(ctx)
}

func readSQLFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	return string(b), nil
}
