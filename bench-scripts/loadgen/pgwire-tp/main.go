// pgwire-tp: closed-loop throughput client over N persistent PostgreSQL-wire connections.
//
// Each connection runs its own loop: pick a query from the workload's weighted mix, execute it,
// read every row, record the latency, repeat. After a warm-up (not recorded) the measured phase
// ends at -duration or once -max-queries queries have completed, whichever comes first. Prints
// one JSON object (also written to -out): QPS, latency percentiles from HdrHistogram, errors,
// and queries completed per second of the measured phase.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/jackc/pgx/v5"
)

type Latency struct {
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	Max  float64 `json:"max"`
	Mean float64 `json:"mean"`
}

type Result struct {
	Tool        string  `json:"tool"`
	Version     int     `json:"version"`
	Workload    string  `json:"workload"`
	Connections int     `json:"connections"`
	Mode        string  `json:"mode"`
	WarmupS     float64 `json:"warmup_s"` // the warm-up taken
	Steady      *bool   `json:"steady"`   // steady-state warm-up only: false = -warmup-max reached first
	Warmup      Warmup  `json:"warmup"`
	DurationS   float64 `json:"duration_s"`
	StoppedBy   string  `json:"stopped_by"`
	Queries     int64   `json:"queries"`
	Errors      int64   `json:"errors"`
	Reconnects  int64   `json:"reconnects"`
	QPS         float64 `json:"qps"`
	LatencyMs   Latency `json:"latency_ms"`
	PerSecond   []int64 `json:"per_second"`
	FirstError  string  `json:"first_error,omitempty"`
	PerQuery    []QStat `json:"per_query"`
}

type QStat struct {
	Name    string  `json:"name"`
	Queries int64   `json:"queries"`
	Errors  int64   `json:"errors"`
	P50Ms   float64 `json:"p50_ms"`
}

type config struct {
	driver      string
	dsn         string
	workload    string
	connections int
	duration    time.Duration
	warmup      time.Duration
	warmupMax   time.Duration
	warmupWin   time.Duration
	warmupK     int
	warmupTol   float64
	maxQueries  int64
	seed        uint64
	mode        string
	timeout     time.Duration
	out         string
}

var modes = map[string]pgx.QueryExecMode{
	"cache":  pgx.QueryExecModeCacheStatement,
	"simple": pgx.QueryExecModeSimpleProtocol,
	"exec":   pgx.QueryExecModeExec,
}

func parseFlags(args []string) (config, error) {
	var c config
	fs := flag.NewFlagSet("pgwire-tp", flag.ContinueOnError)
	fs.StringVar(&c.driver, "driver", "pgx", "the system's Go driver (system.json drivers.go); pgwire-tp speaks the PostgreSQL wire protocol through pgx only")
	fs.StringVar(&c.dsn, "dsn", "", "PostgreSQL-wire DSN, e.g. postgresql://bench:bench@127.0.0.1:5432/sbtest")
	fs.StringVar(&c.workload, "workload", "", "workload JSON file (tool pgwire-tp)")
	fs.IntVar(&c.connections, "connections", 8, "persistent connections (one closed loop each), 1..1024")
	fs.DurationVar(&c.duration, "duration", 5*time.Second, "measured phase, 1s..1h")
	fs.DurationVar(&c.warmup, "warmup", time.Second, "warm-up before measuring (not recorded), 0..10m")
	fs.DurationVar(&c.warmupMax, "warmup-max", 0, "steady-state warm-up: warm up until the last -warmup-windows windows' throughputs agree within -warmup-tol, at most this long (0 = fixed -warmup; otherwise -warmup is the minimum), 0..10m")
	fs.DurationVar(&c.warmupWin, "warmup-window", time.Second, "steady-state warm-up: window length")
	fs.IntVar(&c.warmupK, "warmup-windows", 3, "steady-state warm-up: successive windows that must agree, 2..60")
	fs.Float64Var(&c.warmupTol, "warmup-tol", 0.05, "steady-state warm-up: tolerance, fraction of the windows' mean (0.05 = ±5 %)")
	fs.Int64Var(&c.maxQueries, "max-queries", 10_000_000, "stop the measured phase after this many queries (>= 1)")
	fs.Uint64Var(&c.seed, "seed", 1, "PRNG seed; connection i uses (seed, i)")
	fs.StringVar(&c.mode, "mode", "cache", "query protocol: cache (extended, prepared once per connection), simple (simple query protocol), exec (extended, unprepared)")
	fs.DurationVar(&c.timeout, "query-timeout", 30*time.Second, "per-query timeout")
	fs.StringVar(&c.out, "out", "", "also write the JSON result to this file")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	switch {
	case c.driver != "pgx":
		return c, fmt.Errorf("-driver %q: pgwire-tp measures PostgreSQL-wire servers through pgx; valid: pgx", c.driver)
	case c.dsn == "":
		return c, errors.New("-dsn is required (a postgresql:// URL or key=value DSN)")
	case c.workload == "":
		return c, errors.New("-workload is required (a workload JSON file with \"queries\")")
	case c.connections < 1 || c.connections > 1024:
		return c, fmt.Errorf("-connections %d out of range; valid: 1..1024", c.connections)
	case c.duration < time.Second || c.duration > time.Hour:
		return c, fmt.Errorf("-duration %s out of range; valid: 1s..1h", c.duration)
	case c.warmup < 0 || c.warmup > 10*time.Minute:
		return c, fmt.Errorf("-warmup %s out of range; valid: 0..10m", c.warmup)
	case c.warmupMax < 0 || c.warmupMax > 10*time.Minute || (c.warmupMax > 0 && c.warmupMax < c.warmup):
		return c, fmt.Errorf("-warmup-max %s out of range; valid: 0 (fixed -warmup) or -warmup..10m", c.warmupMax)
	case c.warmupMax > 0 && (c.warmupWin < 10*time.Millisecond || c.warmupK < 2 || c.warmupK > 60 || !(c.warmupTol > 0 && c.warmupTol < 1)):
		return c, fmt.Errorf("-warmup-window %s / -warmup-windows %d / -warmup-tol %v: valid: >= 10ms, 2..60, between 0 and 1", c.warmupWin, c.warmupK, c.warmupTol)
	case c.maxQueries < 1:
		return c, fmt.Errorf("-max-queries %d must be >= 1", c.maxQueries)
	}
	if _, ok := modes[c.mode]; !ok {
		return c, fmt.Errorf("-mode %q unknown; valid: cache, simple, exec", c.mode)
	}
	return c, nil
}

func connect(ctx context.Context, c config) (*pgx.Conn, error) {
	pc, err := pgx.ParseConfig(c.dsn)
	if err != nil {
		return nil, fmt.Errorf("bad -dsn: %v", err)
	}
	pc.DefaultQueryExecMode = modes[c.mode]
	cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	return pgx.ConnectConfig(cctx, pc)
}

// runQuery executes one statement and drains its rows (so result transfer is part of the latency).
// In simple mode the values are inlined here and the text goes out as one simple-protocol 'Q' message, as
// seed 001's bench_throughput.c sends it: pgx's own simple mode refuses a server that does not report
// standard_conforming_strings=on (mskql reports none).
func runQuery(ctx context.Context, conn *pgx.Conn, mode string, sql string, args []any) error {
	if mode == "simple" {
		q, err := inlineArgs(sql, args)
		if err != nil {
			return err
		}
		_, err = conn.PgConn().Exec(ctx, q).ReadAll()
		return err
	}
	rows, err := conn.Query(ctx, sql, args...)
	if err != nil {
		return err
	}
	for rows.Next() {
		if _, err := rows.Values(); err != nil {
			rows.Close()
			return err
		}
	}
	rows.Close()
	return rows.Err()
}

func newHist() *hdrhistogram.Histogram {
	// microseconds, 1 us .. 60 s, 3 significant digits
	return hdrhistogram.New(1, 60_000_000, 3)
}

func run(c config) (*Result, error) {
	w, err := LoadWorkload(c.workload)
	if err != nil {
		return nil, err
	}
	mix, err := NewMix(w.Queries)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", c.workload, err)
	}
	ctx := context.Background()

	setup, err := connect(ctx, c)
	if err != nil {
		return nil, fmt.Errorf("connect: %v", err)
	}
	for _, s := range w.Setup {
		if _, err := setup.Exec(ctx, s, pgx.QueryExecModeSimpleProtocol); err != nil {
			setup.Close(ctx)
			return nil, fmt.Errorf("setup %q: %v", s, err)
		}
	}
	setup.Close(ctx)

	conns := make([]*pgx.Conn, c.connections)
	for i := range conns {
		if conns[i], err = connect(ctx, c); err != nil {
			for _, cn := range conns[:i] {
				cn.Close(ctx)
			}
			return nil, fmt.Errorf("connect %d of %d: %v", i+1, c.connections, err)
		}
	}

	var (
		measuring  atomic.Bool
		stop       atomic.Bool
		done       atomic.Int64 // completed queries in the measured phase
		errCount   atomic.Int64
		reconnects atomic.Int64
		firstErr   atomic.Value
		measureAt  atomic.Int64 // unix nanos when measuring began
		warmDone   atomic.Int64 // queries completed during the warm-up (ok or not)
	)
	seconds := int(c.duration/time.Second) + 2
	perSecond := make([]atomic.Int64, seconds)
	hists := make([]*hdrhistogram.Histogram, c.connections)
	qHists := make([][]*hdrhistogram.Histogram, c.connections)
	qErrs := make([][]int64, c.connections)

	var wg sync.WaitGroup
	for i := range conns {
		hists[i] = newHist()
		qHists[i] = make([]*hdrhistogram.Histogram, len(w.Queries))
		for j := range w.Queries {
			qHists[i][j] = newHist()
		}
		qErrs[i] = make([]int64, len(w.Queries))
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(c.seed, uint64(i)))
			conn := conns[i]
			for !stop.Load() {
				qi, args := mix.Next(r)
				qctx, cancel := context.WithTimeout(ctx, c.timeout)
				t0 := time.Now()
				err := runQuery(qctx, conn, c.mode, w.Queries[qi].SQL, args)
				lat := time.Since(t0)
				cancel()
				if !measuring.Load() {
					warmDone.Add(1)
					if err != nil && conn.IsClosed() {
						if nc, cerr := connect(ctx, c); cerr == nil {
							conn, conns[i] = nc, nc
						}
					}
					continue
				}
				if err != nil {
					errCount.Add(1)
					qErrs[i][qi]++
					firstErr.CompareAndSwap(nil, fmt.Sprintf("%s: %v", w.Queries[qi].Name, err))
					if conn.IsClosed() {
						if nc, cerr := connect(ctx, c); cerr == nil {
							conn, conns[i] = nc, nc
							reconnects.Add(1)
						} else {
							time.Sleep(100 * time.Millisecond) // the server is gone; do not spin
						}
					}
					continue
				}
				us := lat.Microseconds()
				if us < 1 {
					us = 1
				}
				_ = hists[i].RecordValue(us)
				_ = qHists[i][qi].RecordValue(us)
				sec := int((time.Now().UnixNano() - measureAt.Load()) / int64(time.Second))
				if sec >= 0 && sec < seconds {
					perSecond[sec].Add(1)
				}
				if done.Add(1) >= c.maxQueries {
					stop.Store(true)
				}
			}
		}(i)
	}

	warm := Warmup{Mode: "fixed", MinS: c.warmup.Seconds(), MaxS: c.warmup.Seconds()}
	var steadyP *bool
	warmTaken := c.warmup
	if c.warmupMax > 0 {
		took, ok, rates := warmUp(warmDone.Load, c.warmup, c.warmupMax, c.warmupWin, c.warmupK, c.warmupTol)
		warmTaken, steadyP = took, &ok
		warm = Warmup{Mode: "steady", WindowS: c.warmupWin.Seconds(), Windows: c.warmupK, Tolerance: c.warmupTol,
			MinS: c.warmup.Seconds(), MaxS: c.warmupMax.Seconds()}
		for _, r := range rates {
			warm.WindowRates = append(warm.WindowRates, math.Round(r*100)/100)
		}
	} else {
		time.Sleep(c.warmup)
	}
	start := time.Now()
	measureAt.Store(start.UnixNano())
	measuring.Store(true)
	stoppedBy := "duration"
	deadline := time.NewTimer(c.duration)
	tick := time.NewTicker(10 * time.Millisecond)
loop:
	for {
		select {
		case <-deadline.C:
			break loop
		case <-tick.C:
			if stop.Load() {
				stoppedBy = "max-queries"
				break loop
			}
		}
	}
	elapsed := time.Since(start)
	stop.Store(true)
	measuring.Store(false)
	tick.Stop()
	wg.Wait()
	for _, cn := range conns {
		cn.Close(ctx)
	}

	total := newHist()
	res := &Result{Tool: "pgwire-tp", Version: 1, Workload: w.Name, Connections: c.connections, Mode: c.mode,
		WarmupS: math.Round(warmTaken.Seconds()*1000) / 1000, Steady: steadyP, Warmup: warm, DurationS: elapsed.Seconds(), StoppedBy: stoppedBy}
	for i := range hists {
		total.Merge(hists[i])
	}
	res.Queries = total.TotalCount()
	res.Errors = errCount.Load()
	res.Reconnects = reconnects.Load()
	res.QPS = float64(res.Queries) / elapsed.Seconds()
	ms := func(us int64) float64 { return float64(us) / 1000 }
	if res.Queries > 0 {
		res.LatencyMs = Latency{P50: ms(total.ValueAtQuantile(50)), P90: ms(total.ValueAtQuantile(90)),
			P99: ms(total.ValueAtQuantile(99)), Max: ms(total.Max()), Mean: total.Mean() / 1000}
	}
	full := int(elapsed / time.Second)
	for s := 0; s < full && s < seconds; s++ {
		res.PerSecond = append(res.PerSecond, perSecond[s].Load())
	}
	if v := firstErr.Load(); v != nil {
		res.FirstError = v.(string)
	}
	for j, q := range w.Queries {
		h := newHist()
		var e int64
		for i := range qHists {
			h.Merge(qHists[i][j])
			e += qErrs[i][j]
		}
		name := q.Name
		if name == "" {
			name = fmt.Sprintf("q%d", j+1)
		}
		res.PerQuery = append(res.PerQuery, QStat{Name: name, Queries: h.TotalCount(), Errors: e, P50Ms: ms(h.ValueAtQuantile(50))})
	}
	return res, nil
}

func main() {
	c, err := parseFlags(os.Args[1:])
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "pgwire-tp:", err)
		os.Exit(2)
	}
	res, err := run(c)
	if err != nil {
		fmt.Fprintln(os.Stderr, "pgwire-tp:", err)
		os.Exit(1)
	}
	out, _ := json.MarshalIndent(res, "", "  ")
	fmt.Println(string(out))
	if c.out != "" {
		if err := os.WriteFile(c.out, append(out, '\n'), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "pgwire-tp: write -out:", err)
			os.Exit(1)
		}
	}
}
