// Command mcpdb-direct runs the mcp-db study's queries through the database's own Go driver,
// with no MCP server in between, so a cell's MCP latency can be split into database time and
// MCP/server overhead. It reads the same args file mcp-load gets (an array of {"sql": ...}),
// runs closed-loop at the same concurrency for the same warm-up and duration, and prints one
// JSON report shaped like mcp-load's (tool, calls, errors, throughput_per_s, latency_ms{...}).
// With --answers N it instead runs the first N queries once and prints their rows (the
// reference answers the MCP servers' results are checked against).
package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"samebox/bench-scripts/studies/mcp-db/tools/internal/rows"
)

const version = "0.1.0"

type latency struct {
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P95  float64 `json:"p95"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p999"`
	Max  float64 `json:"max"`
	Mean float64 `json:"mean"`
	Min  float64 `json:"min"`
}

type report struct {
	Tool           string         `json:"tool"`
	Version        string         `json:"version"`
	System         string         `json:"system"`
	Driver         string         `json:"driver"`
	Mode           string         `json:"mode"`
	Concurrency    int            `json:"concurrency"`
	DurationS      float64        `json:"duration_s"`
	WarmupS        float64        `json:"warmup_s"`
	Queries        int            `json:"queries"`
	Calls          int64          `json:"calls"`
	OK             int64          `json:"ok"`
	Errors         map[string]any `json:"errors"`
	ThroughputPerS float64        `json:"throughput_per_s"`
	LatencyMs      *latency       `json:"latency_ms"`
	RowsRead       int64          `json:"rows_read"`
	StartedAt      string         `json:"started_at"`
}

func main() { os.Exit(run()) }

func run() int {
	driver := flag.String("driver", "", "the database/sql driver (a system's drivers.go): "+strings.Join(rows.Drivers, ", "))
	label := flag.String("label", "", "the system's name, for messages and the report (default: the driver)")
	dsn := flag.String("dsn", "", "driver DSN (pgx URL, go-sql-driver DSN, or a SQLite file path/URI)")
	argsFile := flag.String("args-file", "", "JSON array of {\"sql\": ...} (the workload's args file)")
	conc := flag.Int("concurrency", 1, "workers, one connection each")
	duration := flag.Float64("duration", 10, "measured seconds after the warm-up")
	warmup := flag.Float64("warmup", 0, "warm-up seconds, excluded from every figure")
	maxCalls := flag.Int64("max-calls", 10_000_000, "upper bound on calls (warm-up included)")
	answers := flag.Int("answers", 0, "print the rows of the first N queries instead of timing")
	flag.Parse()
	fail := func(f string, a ...any) int { fmt.Fprintf(os.Stderr, "mcpdb-direct: "+f+"\n", a...); return 2 }
	if *driver == "" || *dsn == "" || *argsFile == "" {
		return fail("--driver, --dsn and --args-file are required")
	}
	system := *label
	if system == "" {
		system = *driver
	}
	if *conc < 1 || *conc > 1000 {
		return fail("--concurrency %d: valid 1..1000", *conc)
	}
	if *duration <= 0 || *duration > 86400 || *warmup < 0 || *warmup > 86400 {
		return fail("--duration must be in (0, 86400] and --warmup in [0, 86400]")
	}
	_, qs, err := rows.ReadArgs(*argsFile)
	if err != nil {
		return fail("%v", err)
	}
	db, err := rows.Open(*driver, *dsn, *conc)
	if err != nil {
		return fail("%v", err)
	}
	defer db.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	err = db.PingContext(pctx)
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "mcpdb-direct: cannot connect to %s: %v\n", system, err)
		return 1
	}
	if *answers > 0 {
		n := min(*answers, len(qs))
		out := make([]rows.Answer, n)
		for i := 0; i < n; i++ {
			out[i].SQL = qs[i].SQL
			r, err := rows.Run(db, qs[i].SQL)
			if err != nil {
				out[i].Error = err.Error()
			}
			out[i].Rows = r
		}
		b, _ := json.MarshalIndent(out, "", " ")
		fmt.Println(string(b))
		return 0
	}
	rep := timeQueries(ctx, db, system, *driver, qs, *conc, *warmup, *duration, *maxCalls)
	b, _ := json.MarshalIndent(rep, "", "  ")
	fmt.Println(string(b))
	return 0
}

func kindOf(err error) string {
	msg := strings.ToLower(err.Error())
	switch {
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled):
		return "timeout"
	case strings.Contains(msg, "connection refused") || strings.Contains(msg, "broken pipe") ||
		strings.Contains(msg, "connection reset") || strings.Contains(msg, "bad connection") || strings.Contains(msg, "eof"):
		return "connection"
	default:
		return "query"
	}
}

func timeQueries(ctx context.Context, db *sql.DB, system, driver string, qs []rows.Query, conc int, warmupS, durS float64, maxCalls int64) *report {
	start := time.Now()
	measureFrom := start.Add(time.Duration(warmupS * float64(time.Second)))
	end := measureFrom.Add(time.Duration(durS * float64(time.Second)))
	type worker struct {
		h      *hdrhistogram.Histogram
		calls  int64
		ok     int64
		rows   int64
		errs   map[string]int64
		sample string
	}
	ws := make([]*worker, conc)
	var started sync.Mutex
	var total int64
	var wg sync.WaitGroup
	for w := 0; w < conc; w++ {
		ws[w] = &worker{h: hdrhistogram.New(1, int64(120*time.Second/time.Microsecond), 3), errs: map[string]int64{}}
		wg.Add(1)
		go func(w int, st *worker) {
			defer wg.Done()
			// Worker w starts at its own offset in the list, so workers do not walk in lockstep.
			i := (w * len(qs)) / conc
			for {
				now := time.Now()
				if now.After(end) || ctx.Err() != nil {
					return
				}
				started.Lock()
				if total >= maxCalls {
					started.Unlock()
					return
				}
				total++
				started.Unlock()
				q := qs[i%len(qs)].SQL
				i++
				t0 := time.Now()
				n, err := rows.Drain(db, q)
				t1 := time.Now()
				if t0.Before(measureFrom) || t1.After(end) {
					continue // warm-up, or finishing after the window: not measured
				}
				st.calls++
				if err != nil {
					k := kindOf(err)
					st.errs[k]++
					if st.sample == "" {
						st.sample = err.Error()
					}
					continue
				}
				st.ok++
				st.rows += int64(n)
				us := t1.Sub(t0).Microseconds()
				if us < 1 {
					us = 1
				}
				_ = st.h.RecordValue(us)
			}
		}(w, ws[w])
	}
	wg.Wait()
	h := hdrhistogram.New(1, int64(120*time.Second/time.Microsecond), 3)
	rep := &report{Tool: "mcpdb-direct", Version: version, System: system, Driver: driver, Mode: "closed",
		Concurrency: conc, DurationS: durS, WarmupS: warmupS, Queries: len(qs), StartedAt: start.UTC().Format(time.RFC3339)}
	byKind := map[string]int64{}
	var errTotal int64
	sample := ""
	for _, st := range ws {
		h.Merge(st.h)
		rep.Calls += st.calls
		rep.OK += st.ok
		rep.RowsRead += st.rows
		for k, v := range st.errs {
			byKind[k] += v
			errTotal += v
		}
		if sample == "" {
			sample = st.sample
		}
	}
	rep.Errors = map[string]any{"total": errTotal, "by_kind": byKind}
	if sample != "" {
		rep.Errors["sample"] = sample
	}
	measured := durS
	if ctx.Err() != nil {
		measured = time.Since(measureFrom).Seconds()
	}
	rep.ThroughputPerS = round(float64(rep.OK)/measured, 2)
	if h.TotalCount() > 0 {
		ms := func(us int64) float64 { return round(float64(us)/1000, 4) }
		rep.LatencyMs = &latency{P50: ms(h.ValueAtQuantile(50)), P90: ms(h.ValueAtQuantile(90)), P95: ms(h.ValueAtQuantile(95)),
			P99: ms(h.ValueAtQuantile(99)), P999: ms(h.ValueAtQuantile(99.9)), Max: ms(h.Max()), Mean: round(h.Mean()/1000, 4), Min: ms(h.Min())}
	}
	return rep
}

func round(x float64, digits int) float64 {
	p := 1.0
	for i := 0; i < digits; i++ {
		p *= 10
	}
	return float64(int64(x*p+0.5)) / p
}
