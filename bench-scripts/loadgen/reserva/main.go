// reserva: our load generator for seed 004's payments workload (Cal Mitchell's Reserva), written
// from the facts in ../shared/reference/ (beside the repository) seed-004-reserva-upstream.md.
//
//	reserva prepare -driver D -dsn DSN -sql-dir DIR -accounts N [-seed S] [-label SYSTEM]
//	    (re)creates the schema, loads the fixed-seed data, adds constraints and routines.
//	reserva cleanup -driver D -dsn DSN -sql-dir DIR
//	    drops what prepare made (drop.sql).
//	reserva run -driver D -dsn DSN -variant V -accounts N -concurrency C -warmup W -duration D ...
//	    empties transfers, runs the closed loop, checks the invariants, prints one JSON report.
//
// Exit codes: 0 ok; 2 bad input (one line naming what is wrong and what is valid), including a
// scale the data was not prepared at; 1 a failure, including a violated invariant (the report is
// still printed, the reason is the last line on stderr).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

const toolVersion = 1

type Report struct {
	Tool        string            `json:"tool"`
	Version     int               `json:"version"`
	Engine      string            `json:"engine"`
	Variant     string            `json:"variant"`
	Concurrency int               `json:"concurrency"`
	Pool        int               `json:"pool"`
	Accounts    int64             `json:"accounts"`
	Seed        uint64            `json:"seed"`
	Fingerprint string            `json:"data_fingerprint"`
	Deletes     bool              `json:"deletes_enabled"`
	WarmupS     float64           `json:"warmup_s"`
	DurationS   float64           `json:"duration_s"`
	DriverMode  string            `json:"driver_mode"`
	Settings    map[string]string `json:"settings"`
	*LoopResult
	TablePerMinute  []MinuteCount  `json:"table_per_minute"`
	Invariants      InvariantCheck `json:"invariants"`
	BrokenOnPurpose bool           `json:"invariant_broken_on_purpose,omitempty"`
}

// Keyed by driver (-driver).
var driverModes = map[string]map[string]string{
	"pgx": {
		VariantAsPublished: "pgx QueryExecModeDescribeExec (parse+describe, then bind+execute: 2 round trips per query, like lib/pq); server default isolation",
		VariantParity:      "pgx QueryExecModeCacheStatement (prepared once per connection, 1 round trip); READ COMMITTED set per session",
	},
	"mysql": {
		VariantAsPublished: "go-sql-driver interpolateParams=false: database/sql prepares, executes and closes every statement; CALL transfer_funds (explicit transaction, default isolation, errors swallowed)",
		VariantParity:      "go-sql-driver statements prepared once per connection, 1 round trip; READ COMMITTED per session; CALL transfer_funds_parity (errors re-raised)",
	},
}

type usageError struct{ msg string }

func (u *usageError) Error() string { return u.msg }

func bad(format string, a ...any) error { return &usageError{fmt.Sprintf(format, a...)} }

type options struct {
	cmd, driver, label, dsn, sqlDir, variant, markDir, out string
	accounts                                               int64
	seed                                                   uint64
	concurrency, pool                                      int
	warmup, duration, queryTimeout                         time.Duration
	warmupMax                                              time.Duration
	warmupWindows                                          int
	warmupTol                                              float64
	deletes, breakInvariant, quiet                         bool
	serverPIDs                                             []int
}

// engine is the system's name for messages and the report: -label, else the driver.
func (o options) engine() string {
	if o.label != "" {
		return o.label
	}
	return o.driver
}

func parseArgs(args []string) (options, error) {
	var o options
	if len(args) == 0 || !slices.Contains([]string{"prepare", "run", "cleanup"}, args[0]) {
		return o, bad("usage: reserva prepare|run|cleanup [flags] (see -h)")
	}
	o.cmd = args[0]
	fs := flag.NewFlagSet("reserva "+o.cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.driver, "driver", "", "pgx (PostgreSQL protocol) or mysql (MariaDB, MySQL): the system's drivers.go")
	fs.StringVar(&o.label, "label", "", "the system's name, for messages and the report's engine field (default: the driver)")
	fs.StringVar(&o.dsn, "dsn", "", "postgresql://user:pw@127.0.0.1:5432/db, or user:pw@tcp(127.0.0.1:3306)/db")
	fs.Int64Var(&o.accounts, "accounts", 1_000_000, "accounts (and cards) the data holds, 100..10,000,000")
	fs.Uint64Var(&o.seed, "seed", 4, "data generator seed")
	fs.StringVar(&o.sqlDir, "sql-dir", "", "prepare: folder with schema.sql, constraints.sql, routines.sql")
	fs.StringVar(&o.variant, "variant", "", "run: as-published or parity")
	fs.IntVar(&o.concurrency, "concurrency", 64, "run: transfers in flight, 1..1000")
	fs.IntVar(&o.pool, "pool", 0, "run: connection pool size (0: = concurrency, as upstream)")
	fs.DurationVar(&o.warmup, "warmup", 10*time.Second, "run: warm-up before the measured window, 0..1h, whole seconds")
	fs.DurationVar(&o.warmupMax, "warmup-max", 0, "run: steady-state warm-up: warm up until the last -warmup-windows seconds' transfer counts agree within -warmup-tol, at most this long (whole seconds; 0 = fixed -warmup, which is then the minimum otherwise)")
	fs.IntVar(&o.warmupWindows, "warmup-windows", 3, "run: steady-state warm-up: successive 1 s windows that must agree, 2..60")
	fs.Float64Var(&o.warmupTol, "warmup-tol", 0.05, "run: steady-state warm-up: tolerance as a fraction of the windows' mean (0.05 = ±5 %)")
	fs.DurationVar(&o.duration, "duration", 60*time.Second, "run: measured window, 1s..6h, whole seconds")
	fs.DurationVar(&o.queryTimeout, "query-timeout", time.Minute, "run: timeout of one transfer (upstream: 1m)")
	fs.BoolVar(&o.deletes, "deletes", true, "run: delete a transfer after every 20th (upstream default on)")
	fs.StringVar(&o.markDir, "mark-dir", "", "run: touch .measure-start/.measure-end here")
	pids := fs.String("server-pids", "", "run: comma-separated server PIDs whose process tree CPU is measured")
	fs.StringVar(&o.out, "out", "", "run: also write the JSON report here")
	fs.BoolVar(&o.breakInvariant, "break-invariant", false, "run: TEST HOOK: add 1 to one balance outside any transfer before the check (and undo it after)")
	fs.BoolVar(&o.quiet, "quiet", false, "run: no progress lines on stderr")
	if err := fs.Parse(args[1:]); err != nil {
		return o, bad("reserva %s: %v (see -h)", o.cmd, err)
	}
	if fs.NArg() > 0 {
		return o, bad("reserva %s: unexpected argument %q (flags only)", o.cmd, fs.Arg(0))
	}
	switch {
	case !slices.Contains(drivers, o.driver):
		return o, bad("-driver %q is not valid (valid: %s)", o.driver, strings.Join(drivers, ", "))
	case o.dsn == "":
		return o, bad("-dsn is required (postgresql://user:pw@127.0.0.1:5432/db or user:pw@tcp(127.0.0.1:3306)/db)")
	case o.accounts < 100 || o.accounts > 10_000_000:
		return o, bad("-accounts %d is not valid (valid: 100..10000000)", o.accounts)
	}
	if o.cmd == "prepare" || o.cmd == "cleanup" {
		if o.sqlDir == "" {
			return o, bad("-sql-dir is required for %s (the folder with schema.sql, constraints.sql, routines.sql, drop.sql)", o.cmd)
		}
		return o, nil
	}
	switch {
	case !slices.Contains(variants, o.variant):
		return o, bad("-variant %q is not valid (valid: %s)", o.variant, strings.Join(variants, ", "))
	case o.concurrency < 1 || o.concurrency > 1000:
		return o, bad("-concurrency %d is not valid (valid: 1..1000 transfers in flight)", o.concurrency)
	case o.pool < 0 || o.pool > 1000:
		return o, bad("-pool %d is not valid (valid: 0 (= concurrency) or 1..1000)", o.pool)
	case o.warmup < 0 || o.warmup > time.Hour || o.warmup%time.Second != 0:
		return o, bad("-warmup %s is not valid (valid: whole seconds, 0s..1h)", o.warmup)
	case o.warmupMax < 0 || o.warmupMax > time.Hour || o.warmupMax%time.Second != 0 || (o.warmupMax > 0 && (o.warmupMax < o.warmup || o.warmupMax < 2*time.Second)):
		return o, bad("-warmup-max %s is not valid (valid: 0 (fixed -warmup) or whole seconds from max(2s, -warmup) to 1h)", o.warmupMax)
	case o.warmupWindows < 2 || o.warmupWindows > 60:
		return o, bad("-warmup-windows %d is not valid (valid: 2..60)", o.warmupWindows)
	case !(o.warmupTol > 0 && o.warmupTol < 1):
		return o, bad("-warmup-tol %v is not valid (valid: between 0 and 1, e.g. 0.05)", o.warmupTol)
	case o.duration < time.Second || o.duration > 6*time.Hour || o.duration%time.Second != 0:
		return o, bad("-duration %s is not valid (valid: whole seconds, 1s..6h)", o.duration)
	case o.queryTimeout < time.Second || o.queryTimeout > 10*time.Minute:
		return o, bad("-query-timeout %s is not valid (valid: 1s..10m)", o.queryTimeout)
	}
	if o.pool == 0 {
		o.pool = o.concurrency
	}
	for _, p := range strings.Split(*pids, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 {
			return o, bad("-server-pids %q is not valid (valid: comma-separated process ids)", *pids)
		}
		o.serverPIDs = append(o.serverPIDs, n)
	}
	return o, nil
}

func main() {
	o, err := parseArgs(os.Args[1:])
	if err == nil {
		err = execute(context.Background(), o, os.Stdout, os.Stderr)
	}
	var ue *usageError
	switch {
	case err == nil:
		return
	case errors.As(err, &ue):
		fmt.Fprintln(os.Stderr, "reserva: "+ue.msg)
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "reserva: "+strings.ReplaceAll(err.Error(), "\n", " "))
		os.Exit(1)
	}
}

func execute(ctx context.Context, o options, stdout, stderr io.Writer) error {
	pool := o.pool
	if o.cmd != "run" {
		pool = 2
	}
	db, err := Open(ctx, o.driver, o.engine(), o.dsn, o.variant, pool)
	if err != nil {
		return fmt.Errorf("connect to %s: %w", o.engine(), err)
	}
	defer db.Close()

	if o.cmd == "prepare" {
		t0 := time.Now()
		m, err := Prepare(ctx, db, o.sqlDir, o.seed, o.accounts)
		if err != nil {
			return fmt.Errorf("prepare %s: %w", o.engine(), err)
		}
		fmt.Fprintf(stderr, "reserva: prepared %s: %d accounts and cards, seed %d, fingerprint %s, in %.1fs\n",
			o.engine(), m.Accounts, m.Seed, m.Fingerprint, time.Since(t0).Seconds())
		return json.NewEncoder(stdout).Encode(m)
	}

	if o.cmd == "cleanup" {
		if err := db.ApplySQLFile(ctx, filepath.Join(o.sqlDir, "drop.sql")); err != nil {
			return fmt.Errorf("cleanup %s: %w", o.engine(), err)
		}
		return nil
	}

	meta, err := db.Meta(ctx)
	if errors.Is(err, ErrNotPrepared) {
		return bad("%s holds no payments data: run prepare first (reserva prepare -accounts %d)", o.engine(), o.accounts)
	}
	if err != nil {
		return fmt.Errorf("read reserva_meta: %w", err)
	}
	if meta.Accounts != o.accounts || meta.Seed != o.seed {
		return bad("the data on %s was prepared with %d accounts (seed %d), not %d (seed %d): prepare again at this scale or run at %d",
			o.engine(), meta.Accounts, meta.Seed, o.accounts, o.seed, meta.Accounts)
	}
	if p, ok := db.(interface{ PrepareStatements(context.Context) error }); ok {
		if err := p.PrepareStatements(ctx); err != nil {
			return err
		}
	}
	if err := db.ResetTransfers(ctx); err != nil {
		return fmt.Errorf("empty transfers: %w", err)
	}
	entries, err := db.Entries(ctx)
	if err != nil {
		return fmt.Errorf("load users, tokens, accounts and cards: %w", err)
	}
	if int64(len(entries)) != o.accounts {
		return fmt.Errorf("start-up join gave %d entries for %d accounts: the data is incomplete, prepare again", len(entries), o.accounts)
	}
	settings, err := db.Settings(ctx)
	if err != nil {
		return fmt.Errorf("read settings: %w", err)
	}
	rep := Report{
		Tool: "reserva", Version: toolVersion, Engine: o.engine(), Variant: o.variant, Concurrency: o.concurrency, Pool: o.pool,
		Accounts: o.accounts, Seed: o.seed, Fingerprint: meta.Fingerprint, Deletes: o.deletes,
		WarmupS: o.warmup.Seconds(), DurationS: o.duration.Seconds(), DriverMode: driverModes[o.driver][o.variant], Settings: settings,
	}
	var progress io.Writer = stderr
	if o.quiet {
		progress = nil
	}
	rep.LoopResult = RunLoop(ctx, db, entries, LoopConfig{
		Concurrency: o.concurrency, Warmup: o.warmup, Duration: o.duration,
		WarmupMax: o.warmupMax, WarmupWindows: o.warmupWindows, WarmupTol: o.warmupTol, Deletes: o.deletes, Seed: o.seed,
		QueryTimeout: o.queryTimeout, MarkDir: o.markDir, ServerPIDs: o.serverPIDs, Progress: progress,
		Label: o.engine() + "/" + o.variant,
	})

	rep.WarmupS = float64(rep.LoopResult.warmupS) // the warm-up this cell needed (steady-state) or was given

	if rep.TablePerMinute, err = db.TransfersPerMinute(ctx); err != nil {
		return fmt.Errorf("count transfers per minute: %w", err)
	}
	if o.breakInvariant {
		// Test hook: money appears from nowhere; the check below must catch it.
		if err := db.AdjustBalance(ctx, 1, 1); err != nil {
			return fmt.Errorf("test hook: %w", err)
		}
		rep.BrokenOnPurpose = true
	}
	state, err := db.Invariants(ctx)
	if o.breakInvariant {
		if uerr := db.AdjustBalance(ctx, 1, -1); uerr != nil && err == nil {
			err = fmt.Errorf("test hook: undo: %w", uerr)
		}
	}
	if err != nil {
		return fmt.Errorf("invariant check: %w", err)
	}
	rep.Invariants = CheckInvariants(meta, state, rep.Committed, rep.DeletedTotal)

	b, err := json.MarshalIndent(rep, "", " ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if o.out != "" {
		if err := os.WriteFile(o.out, b, 0o644); err != nil {
			return err
		}
	}
	if _, err := stdout.Write(b); err != nil {
		return err
	}
	if !rep.Invariants.OK {
		return fmt.Errorf("invariant violated on %s/%s: %s", o.engine(), o.variant, strings.Join(rep.Invariants.Violations, "; "))
	}
	return nil
}
