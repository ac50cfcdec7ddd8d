package main

// The closed loop: a fixed number of transfers in flight (upstream: errgroup.SetLimit(64), one
// goroutine per transfer; here one long-lived worker per slot, the same number in flight).
// Warm-up first, then the measured window; the per-second series covers both (warm-up marked by
// its length). Every error is classified and counted; none stops the run.

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
)

type LoopConfig struct {
	Concurrency int
	Warmup      time.Duration // fixed warm-up; with WarmupMax > 0 the minimum warm-up
	Duration    time.Duration
	// Steady-state warm-up (WarmupMax > 0): windows of one second (the series' slots); the warm-up
	// ends at the first whole second when the last WarmupWindows seconds' transfer counts are all
	// within ±WarmupTol of their mean (and at least Warmup has passed), or at WarmupMax (steady=false).
	WarmupMax     time.Duration
	WarmupWindows int
	WarmupTol     float64
	Deletes       bool
	Seed          uint64
	QueryTimeout  time.Duration
	MarkDir       string // touch .measure-start / .measure-end here (the runner's resource window)
	ServerPIDs    []int
	Progress      io.Writer
	Label         string
}

type CPU struct {
	LoadgenS                float64 `json:"loadgen_s"`
	ServerS                 float64 `json:"server_s"`
	ServerMsPer1kTransfers  float64 `json:"server_ms_per_1k_transfers"`
	LoadgenMsPer1kTransfers float64 `json:"loadgen_ms_per_1k_transfers"`
	LoadgenShare            float64 `json:"loadgen_share"` // loadgen CPU / (loadgen + server) CPU
	ServerSampled           bool    `json:"server_sampled"`
}

type LoopResult struct {
	Transfers     int64                `json:"transfers"`       // measured window
	Deletes       int64                `json:"deletes"`         // measured window
	TransfersPerS float64              `json:"transfers_per_s"` // measured window
	ActionsPerS   float64              `json:"actions_per_s"`   // transfers + deletes, upstream's figure
	Errors        map[string]int64     `json:"errors"`          // measured window, database/driver classes
	Rejects       map[string]int64     `json:"rejects"`         // measured window, application rejects
	Committed     int64                `json:"committed_total"` // whole cell, warm-up included
	DeletedTotal  int64                `json:"deleted_total"`
	LatencyMs     map[string]LatencyMs `json:"latency_ms"`
	Series        SeriesOut            `json:"series"`
	FirstError    string               `json:"first_error,omitempty"`
	CPU           CPU                  `json:"cpu"`
	MeasuredS     float64              `json:"measured_s"`
	Steady        *bool                `json:"steady"` // steady-state warm-up only: false = WarmupMax reached first
	WarmupRule    *WarmupRule          `json:"warmup,omitempty"`
	warmupS       int
	hists         *workerHists
}

type SeriesOut struct {
	WarmupS   int                `json:"warmup_s"` // the first WarmupS entries are the warm-up
	Transfers []int64            `json:"transfers"`
	Deletes   []int64            `json:"deletes"`
	Errors    map[string][]int64 `json:"errors"` // classes with at least one event
}

// WarmupRule is the steady-state warm-up's rule (the window rates are the warm-up part of series.transfers).
type WarmupRule struct {
	Mode      string  `json:"mode"` // "steady"
	WindowS   float64 `json:"window_s"`
	Windows   int     `json:"windows"`
	Tolerance float64 `json:"tolerance"`
	MinS      float64 `json:"min_s"`
	MaxS      float64 `json:"max_s"`
}

// Steady reports whether the last k rates are all within ±tol of their mean, and the mean is
// positive. Barrett et al., "Virtual Machine Warmup Blows Hot and Cold" (OOPSLA 2017); JMH's
// iteration-based warm-up.
func Steady(rates []int64, k int, tol float64) bool {
	if k < 1 || len(rates) < k {
		return false
	}
	last := rates[len(rates)-k:]
	mean := 0.0
	for _, v := range last {
		mean += float64(v)
	}
	mean /= float64(k)
	if mean <= 0 {
		return false
	}
	for _, v := range last {
		if math.Abs(float64(v)-mean) > tol*mean {
			return false
		}
	}
	return true
}

func touch(dir, name string) {
	if dir == "" {
		return
	}
	if f, err := os.Create(filepath.Join(dir, name)); err == nil {
		f.Close()
	}
}

// RunLoop drives the engine until the warm-up and the measured window are over and every
// in-flight transfer has returned (each bounded by QueryTimeout per round trip set).
func RunLoop(ctx context.Context, e Engine, entries []Entry, cfg LoopConfig) *LoopResult {
	start := time.Now()
	maxWarm := cfg.Warmup
	steadyMode := cfg.WarmupMax > 0
	if steadyMode {
		maxWarm = cfg.WarmupMax
	}
	// The measured window in ns since start: unknown (MaxInt64) until a steady warm-up decides it.
	var msNs, meNs atomic.Int64
	setWindow := func(warm time.Duration) {
		meNs.Store(int64(warm + cfg.Duration))
		msNs.Store(int64(warm))
	}
	if steadyMode {
		msNs.Store(math.MaxInt64)
		meNs.Store(math.MaxInt64)
	} else {
		setWindow(cfg.Warmup)
	}
	inWindow := func(t time.Time) bool { d := int64(t.Sub(start)); return d >= msNs.Load() && d < meNs.Load() }
	running := func() bool { return int64(time.Since(start)) < meNs.Load() }
	totalS := int((maxWarm+cfg.Duration)/time.Second) + 1
	series := newSeries(totalS + 1)
	warmS := int(cfg.Warmup / time.Second)
	var steady *bool

	var (
		counter, committed, deleted atomic.Int64
		firstErr                    atomic.Value
		pool                        idPool
		wg                          sync.WaitGroup
	)
	hists := make([]*workerHists, cfg.Concurrency)

	// CPU at the edges of the measured window.
	var cpuStartSelf, cpuStartServer, cpuEndSelf, cpuEndServer float64
	var serverOK = len(cfg.ServerPIDs) > 0
	var edges sync.WaitGroup
	edges.Add(1)
	go func() {
		defer edges.Done()
		if steadyMode {
			// At every whole second s the slots 0..s-1 are complete windows; when they are steady (or
			// the bound is next) the measured window starts at the next whole second, s+1, so that
			// the series' slots and the latency window agree exactly.
			for s := 1; ; s++ {
				time.Sleep(time.Until(start.Add(time.Duration(s) * time.Second)))
				rates := load(series.transfers, s)
				ok := s+1 >= warmS && Steady(rates, cfg.WarmupWindows, cfg.WarmupTol)
				if ok || time.Duration(s+1)*time.Second >= cfg.WarmupMax || ctx.Err() != nil {
					warmS, steady = s+1, &ok
					setWindow(time.Duration(s+1) * time.Second)
					break
				}
			}
		}
		measureStart := start.Add(time.Duration(msNs.Load()))
		measureEnd := start.Add(time.Duration(meNs.Load()))
		time.Sleep(time.Until(measureStart))
		touch(cfg.MarkDir, ".measure-start")
		cpuStartSelf = SelfCPUSeconds()
		if serverOK {
			v, err := TreeCPUSeconds(cfg.ServerPIDs)
			serverOK = err == nil
			cpuStartServer = v
		}
		time.Sleep(time.Until(measureEnd))
		cpuEndSelf = SelfCPUSeconds()
		if serverOK {
			v, err := TreeCPUSeconds(cfg.ServerPIDs)
			serverOK = err == nil
			cpuEndServer = v
		}
		touch(cfg.MarkDir, ".measure-end")
	}()

	// Progress every 3 s, as upstream ("completing N actions per second"), to stderr.
	stopProgress := make(chan struct{})
	go func() {
		if cfg.Progress == nil {
			return
		}
		t := time.NewTicker(3 * time.Second)
		defer t.Stop()
		last, lastAt := int64(0), start
		for {
			select {
			case <-stopProgress:
				return
			case now := <-t.C:
				n := committed.Load() + deleted.Load()
				fmt.Fprintf(cfg.Progress, "%s completing %.0f actions per second\n", cfg.Label, float64(n-last)/now.Sub(lastAt).Seconds())
				last, lastAt = n, now
			}
		}
	}()

	for w := 0; w < cfg.Concurrency; w++ {
		hists[w] = newWorkerHists()
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(cfg.Seed, uint64(w)+1000))
			h := hists[w]
			fail := func(err error, at time.Time) {
				c := Classify(err)
				series.errors[c][series.slot(start, at)].Add(1)
				if c.IsDatabaseError() {
					firstErr.CompareAndSwap(nil, err.Error())
				}
			}
			for running() && ctx.Err() == nil {
				acq := entries[r.IntN(len(entries))]
				iss := entries[r.IntN(len(entries))]
				amount := r.Int64N(1000)
				qctx, cancel := context.WithTimeout(ctx, cfg.QueryTimeout)
				t0 := time.Now()
				id, tm, err := DoTransfer(qctx, e, acq, iss, amount, t0.UTC())
				t1 := time.Now()
				cancel()
				if err != nil {
					fail(err, t1)
					continue
				}
				committed.Add(1)
				pool.add(id)
				series.transfers[series.slot(start, t1)].Add(1)
				if inWindow(t1) {
					recordUs(h.transfer, t1.Sub(t0))
					for i, d := range tm {
						recordUs(h.rt[i], d)
					}
				}
				// Every 20th committed transfer is followed by a delete (upstream: transferCounter%20,
				// read without synchronization; here an atomic counter).
				if cfg.Deletes && counter.Add(1)%20 == 0 {
					victim, ok := pool.take(r.IntN)
					if !ok {
						continue
					}
					dctx, dcancel := context.WithTimeout(ctx, cfg.QueryTimeout)
					d0 := time.Now()
					err := e.DeleteTransfer(dctx, victim)
					d1 := time.Now()
					dcancel()
					if err != nil {
						fail(err, d1)
						continue
					}
					deleted.Add(1)
					series.deletes[series.slot(start, d1)].Add(1)
					if inWindow(d1) {
						recordUs(h.del, d1.Sub(d0))
					}
				}
			}
		}(w)
	}
	wg.Wait()
	close(stopProgress)
	edges.Wait()

	res := &LoopResult{Committed: committed.Load(), DeletedTotal: deleted.Load(), Errors: map[string]int64{}, Rejects: map[string]int64{}}
	merged := newWorkerHists()
	for _, h := range hists {
		merged.merge(h)
	}
	res.hists = merged
	res.LatencyMs = map[string]LatencyMs{"transfer": summarize(merged.transfer), "delete": summarize(merged.del)}
	for i, name := range roundTripNames {
		res.LatencyMs[name] = summarize(merged.rt[i])
	}
	n := warmS + int(cfg.Duration/time.Second) + 1 // warm-up, measured seconds, the tail
	if n > totalS {
		n = totalS
	}
	res.warmupS = warmS
	res.Steady = steady
	if steadyMode {
		res.WarmupRule = &WarmupRule{Mode: "steady", WindowS: 1, Windows: cfg.WarmupWindows, Tolerance: cfg.WarmupTol,
			MinS: cfg.Warmup.Seconds(), MaxS: cfg.WarmupMax.Seconds()}
	}
	res.Series = SeriesOut{WarmupS: warmS, Transfers: load(series.transfers, n), Deletes: load(series.deletes, n), Errors: map[string][]int64{}}
	measured := func(xs []int64) (s int64) {
		for i := warmS; i < n && i < warmS+int(cfg.Duration/time.Second); i++ {
			s += xs[i]
		}
		return s
	}
	res.Transfers = measured(res.Series.Transfers)
	res.Deletes = measured(res.Series.Deletes)
	for c := ErrorClass(0); c < numErrorClasses; c++ {
		xs := load(series.errors[c], n)
		total := int64(0)
		for _, x := range xs {
			total += x
		}
		if total == 0 {
			continue
		}
		res.Series.Errors[errorClassNames[c]] = xs
		if m := measured(xs); m > 0 {
			if c.IsDatabaseError() {
				res.Errors[errorClassNames[c]] = m
			} else {
				res.Rejects[errorClassNames[c]] = m
			}
		}
	}
	res.MeasuredS = cfg.Duration.Seconds()
	res.TransfersPerS = float64(res.Transfers) / res.MeasuredS
	res.ActionsPerS = float64(res.Transfers+res.Deletes) / res.MeasuredS
	if v, ok := firstErr.Load().(string); ok {
		res.FirstError = v
	}
	res.CPU.LoadgenS = cpuEndSelf - cpuStartSelf
	res.CPU.ServerSampled = serverOK
	if serverOK {
		res.CPU.ServerS = cpuEndServer - cpuStartServer
		if res.CPU.LoadgenS+res.CPU.ServerS > 0 {
			res.CPU.LoadgenShare = res.CPU.LoadgenS / (res.CPU.LoadgenS + res.CPU.ServerS)
		}
	}
	if res.Transfers > 0 {
		res.CPU.ServerMsPer1kTransfers = res.CPU.ServerS * 1000 / float64(res.Transfers) * 1000
		res.CPU.LoadgenMsPer1kTransfers = res.CPU.LoadgenS * 1000 / float64(res.Transfers) * 1000
	}
	return res
}
