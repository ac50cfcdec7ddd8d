// Package loadgen drives MCP sessions in a closed loop (N workers, each
// sending its next call as soon as the previous one returned) or an open loop
// (calls scheduled at a constant arrival rate; latency measured from each
// call's intended start so queueing inside the client is not hidden), and
// reports HdrHistogram latency percentiles, throughput, errors by kind and the
// client's own CPU time.
package loadgen

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"samebox/bench-scripts/loadgen/mcp-load/internal/argtpl"
	"samebox/bench-scripts/loadgen/mcp-load/internal/mcpclient"
	"samebox/bench-scripts/loadgen/mcp-load/internal/toolmix"
)

// Workloads.
const (
	WorkloadDiscovery = "discovery" // new session + tools/list per iteration
	WorkloadCall      = "call"      // tools/call over one persistent session per worker
)

// Workloads lists the valid workload names.
var Workloads = []string{WorkloadDiscovery, WorkloadCall}

// Options configure one run. Durations are bounded by the caller.
type Options struct {
	Endpoint       string
	Protocol       string
	Workload       string
	Tool           string
	Args           argtpl.Source
	Mix            *toolmix.Mix // call workload: a weighted mix of tools with result checks (instead of Tool/Args)
	Concurrency    int
	Rate           float64 // calls/s; 0 = closed loop
	MaxOutstanding int     // open loop: queued + in-flight bound
	Duration       time.Duration
	Warmup         time.Duration // fixed warm-up; with WarmupMax > 0 the minimum warm-up
	// Steady-state warm-up (WarmupMax > 0): the warm-up runs in windows of
	// WarmupWindow and ends when the throughputs of the last WarmupWindows
	// windows are all within ±WarmupTol of their mean (and at least Warmup
	// has passed), or at WarmupMax (then the report says steady=false).
	WarmupMax     time.Duration
	WarmupWindow  time.Duration
	WarmupWindows int
	WarmupTol     float64
	// WarmupDrift > 0 also requires no drift: the mean of the last
	// WarmupWindows windows within ±WarmupDrift of the mean of the
	// WarmupWindows before them. A JIT server still compiling rises slowly
	// enough that any 3 short windows agree within ±10 % (measured: Quarkus
	// 492, 666, 840, 766, 790 calls/s was judged steady at 3.5 s).
	WarmupDrift   float64
	MaxCalls      int64
	Timeout       time.Duration
	Seed          uint64
	LateThreshold time.Duration
	CloseSessions bool
	MarkDir       string // touch .measure-start / .measure-end here at the measured window's edges (the runner's resource window)
	ExtraHeaders  map[string]string
	ClientInfo    mcpclient.Implementation

	Progress         io.Writer // nil = silent
	ProgressInterval time.Duration
}

// Report is the JSON document mcp-load prints. Field meanings are documented
// in the module README.
type Report struct {
	Tool               string          `json:"tool"`
	Version            string          `json:"version"`
	Endpoint           string          `json:"endpoint"`
	Protocol           string          `json:"protocol"`
	ProtocolNegotiated string          `json:"protocol_negotiated"`
	Workload           string          `json:"workload"`
	ToolName           string          `json:"tool_name,omitempty"`
	Mode               string          `json:"mode"`
	Concurrency        int             `json:"concurrency"`
	Rate               *float64        `json:"rate"`
	DurationS          float64         `json:"duration_s"`
	WarmupS            float64         `json:"warmup_s"`
	Steady             *bool           `json:"steady"` // steady-state warm-up only: false = WarmupMax reached first
	WarmupInfo         *WarmupInfo     `json:"warmup,omitempty"`
	Dropped            int64           `json:"dropped"` // open loop: measured arrivals dropped at the in-flight bound, also in errors
	Seed               uint64          `json:"seed"`
	Calls              int64           `json:"calls"`
	OK                 int64           `json:"ok"`
	Errors             ErrorSummary    `json:"errors"`
	ThroughputPerS     float64         `json:"throughput_per_s"`
	LatencyMs          *LatencyMs      `json:"latency_ms"`
	CPU                CPU             `json:"cpu"`
	Server             Server          `json:"server"`
	SessionReinits     int64           `json:"session_reinits"`
	OpenLoop           *OpenLoopReport `json:"open_loop,omitempty"`
	Tools              []ToolReport    `json:"tools,omitempty"`
	WholeRun           WholeRun        `json:"whole_run"`
	StopReason         string          `json:"stop_reason"`
	StartedAt          string          `json:"started_at"`
	MeasureStart       string          `json:"measure_start"` // RFC 3339 UTC: the measured window, for samplers outside
	MeasureEnd         string          `json:"measure_end"`
	GoVersion          string          `json:"go_version,omitempty"`
}

// WarmupInfo describes a steady-state warm-up: its rule and the throughput
// of every warm-up window (calls completed per second, errors included).
type WarmupInfo struct {
	Mode        string    `json:"mode"` // "steady"
	WindowS     float64   `json:"window_s"`
	Windows     int       `json:"windows"`
	Tolerance   float64   `json:"tolerance"`
	Drift       float64   `json:"drift,omitempty"` // 0: not checked
	MinS        float64   `json:"min_s"`
	MaxS        float64   `json:"max_s"`
	WindowRates []float64 `json:"window_rates"`
}

// Steady reports whether the last k rates are all within ±tol of their
// mean, and the mean is positive (a stalled target is not steady).
// Barrett et al., "Virtual Machine Warmup Blows Hot and Cold" (OOPSLA 2017)
// and JMH's iteration-based warm-up: a fixed warm-up is not a steady state.
func Steady(rates []float64, k int, tol float64) bool {
	if k < 1 || len(rates) < k {
		return false
	}
	last := rates[len(rates)-k:]
	mean := 0.0
	for _, v := range last {
		mean += v
	}
	mean /= float64(k)
	if mean <= 0 {
		return false
	}
	for _, v := range last {
		if math.Abs(v-mean) > tol*mean {
			return false
		}
	}
	return true
}

// NoDrift reports whether the mean of the last k rates is within ±drift of
// the mean of the k rates before them (2k rates needed): the level has
// stopped moving, which Steady alone cannot see in a slow rise. Kalibera &
// Jones, "Rigorous Benchmarking in Reasonable Time" (ISMM 2013), judge
// warm-up by the run-sequence's level, not by its last few points.
func NoDrift(rates []float64, k int, drift float64) bool {
	if k < 1 || len(rates) < 2*k {
		return false
	}
	mean := func(xs []float64) float64 {
		s := 0.0
		for _, v := range xs {
			s += v
		}
		return s / float64(len(xs))
	}
	n := len(rates)
	prev, last := mean(rates[n-2*k:n-k]), mean(rates[n-k:])
	return prev > 0 && math.Abs(last-prev) <= drift*prev
}

// KindDropped is the error kind of an open-loop arrival dropped at the
// in-flight bound (never sent): it counts as a failed call.
const KindDropped = "dropped"

// ErrorSummary counts failed calls.
type ErrorSummary struct {
	Total  int64            `json:"total"`
	ByKind map[string]int64 `json:"by_kind"`
	// ByClass groups the kinds: http, jsonrpc, is_error, failed_check, timeout,
	// transport, protocol (protocol, session_lost, input_required, anything else).
	ByClass map[string]int64 `json:"by_class"`
	// Sample is the message of the first measured error, to make a failing
	// cell diagnosable from its output alone.
	Sample string `json:"sample,omitempty"`
}

// LatencyMs holds percentiles in milliseconds (HdrHistogram, 3 significant digits).
type LatencyMs struct {
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P95  float64 `json:"p95"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p999"`
	Max  float64 `json:"max"`
	Mean float64 `json:"mean"`
	Min  float64 `json:"min"`
}

// CPU is the client's own CPU time over the measured window.
type CPU struct {
	UserS     float64 `json:"user_s"`
	SysS      float64 `json:"sys_s"`
	PerCallUs float64 `json:"per_call_us"`
}

// Server identifies the target, from initialize (or _meta serverInfo).
type Server struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// OpenLoopReport describes how well the arrival schedule was kept.
type OpenLoopReport struct {
	Intended        int64      `json:"intended"`
	Sent            int64      `json:"sent"`
	Dropped         int64      `json:"dropped"`
	Late            int64      `json:"late"`
	LateThresholdMs float64    `json:"late_threshold_ms"`
	MaxOutstanding  int        `json:"max_outstanding"`
	StartDelayMs    *LatencyMs `json:"start_delay_ms"`
	ServiceTimeMs   *LatencyMs `json:"service_time_ms"`
}

// ToolReport is one tool's share of a mix run (measured window only).
type ToolReport struct {
	Name           string       `json:"name"`
	Calls          int64        `json:"calls"`
	OK             int64        `json:"ok"`
	Errors         ErrorSummary `json:"errors"`
	ThroughputPerS float64      `json:"throughput_per_s"`
	LatencyMs      *LatencyMs   `json:"latency_ms"`
}

// WholeRun counts the way seed 003's k6 script did: every call completed from
// the first one to the last, warm-up and the end included, over that wall time.
// Reported beside the measured figures so the difference is visible.
type WholeRun struct {
	Calls    int64   `json:"calls"`
	OK       int64   `json:"ok"`
	WallS    float64 `json:"wall_s"`
	RatePerS float64 `json:"rate_per_s"`
}

// ErrorClass maps an error kind to its class.
func ErrorClass(kind string) string {
	switch {
	case strings.HasPrefix(kind, mcpclient.KindHTTPPrefix):
		return "http"
	case strings.HasPrefix(kind, mcpclient.KindJSONRPCPrefix):
		return "jsonrpc"
	case kind == mcpclient.KindToolError:
		return "is_error"
	case kind == toolmix.KindFailedCheck:
		return "failed_check"
	case kind == mcpclient.KindTimeout:
		return "timeout"
	case kind == mcpclient.KindTransport:
		return "transport"
	case kind == KindDropped:
		return "dropped"
	default:
		return "protocol"
	}
}

// Latencies up to 10 minutes are tracked at 3 significant digits in ns.
const histMaxNs = int64(10 * time.Minute)

func newHist() *hdrhistogram.Histogram { return hdrhistogram.New(1, histMaxNs, 3) }

func record(h *hdrhistogram.Histogram, d time.Duration) {
	v := int64(d)
	if v < 1 {
		v = 1
	}
	if v > histMaxNs {
		v = histMaxNs
	}
	h.RecordValue(v)
}

// workerStats are merged after the run so the hot path takes no lock.
type workerStats struct {
	perTool    []*toolStats // mix runs: one per tool
	latency    *hdrhistogram.Histogram
	service    *hdrhistogram.Histogram
	startDelay *hdrhistogram.Histogram
	ok         int64
	errs       map[string]int64
	errSample  string
	late       int64
}

type toolStats struct {
	latency   *hdrhistogram.Histogram
	ok        int64
	errs      map[string]int64
	errSample string
}

func newWorkerStats(tools int) *workerStats {
	st := &workerStats{latency: newHist(), service: newHist(), startDelay: newHist(), errs: map[string]int64{}}
	for range tools {
		st.perTool = append(st.perTool, &toolStats{latency: newHist(), errs: map[string]int64{}})
	}
	return st
}

// operation performs one measured unit of work (one call, or one discovery
// iteration); tool is the mix index of the tool it called (0 without a mix).
type operation func(ctx context.Context) (received time.Time, tool int, err error)

// Validate checks options and names what is valid when something is not.
func (o *Options) Validate() error {
	if !slices.Contains(mcpclient.Protocols, o.Protocol) {
		return fmt.Errorf("--protocol %q: unknown protocol revision; valid: %s", o.Protocol, strings.Join(mcpclient.Protocols, ", "))
	}
	if !slices.Contains(Workloads, o.Workload) {
		return fmt.Errorf("--workload %q: unknown workload; valid: %s", o.Workload, strings.Join(Workloads, ", "))
	}
	if o.Workload == WorkloadCall && o.Tool == "" && o.Mix == nil {
		return fmt.Errorf("--tool is required for workload %q (or --mix FILE)", WorkloadCall)
	}
	if o.Mix != nil && (o.Tool != "" || o.Workload != WorkloadCall) {
		return fmt.Errorf("--mix replaces --tool and works with --workload call only")
	}
	if o.Concurrency < 1 || o.Concurrency > 10000 {
		return fmt.Errorf("--concurrency %d: must be between 1 and 10000", o.Concurrency)
	}
	if o.Rate < 0 || math.IsNaN(o.Rate) || math.IsInf(o.Rate, 0) || o.Rate > 1e6 {
		return fmt.Errorf("--rate %v: must be 0 (closed loop) or a positive rate up to 1000000 calls/s", o.Rate)
	}
	if o.Duration <= 0 || o.Duration > 24*time.Hour {
		return fmt.Errorf("--duration %v: must be > 0 and at most 86400 s", o.Duration.Seconds())
	}
	if o.Warmup < 0 || o.Warmup > 24*time.Hour {
		return fmt.Errorf("--warmup %v: must be between 0 and 86400 s", o.Warmup.Seconds())
	}
	if o.WarmupMax < 0 || o.WarmupMax > 24*time.Hour {
		return fmt.Errorf("--warmup-max %v: must be between 0 (fixed warm-up) and 86400 s", o.WarmupMax.Seconds())
	}
	if o.WarmupMax > 0 {
		if o.WarmupWindow <= 0 {
			return fmt.Errorf("--warmup-window %v: must be > 0 s", o.WarmupWindow.Seconds())
		}
		if o.WarmupWindows < 2 {
			return fmt.Errorf("--warmup-windows %d: must be at least 2", o.WarmupWindows)
		}
		if !(o.WarmupTol > 0 && o.WarmupTol < 1) {
			return fmt.Errorf("--warmup-tol %v: must be between 0 and 1 (e.g. 0.05 = ±5 %%)", o.WarmupTol)
		}
		if !(o.WarmupDrift >= 0 && o.WarmupDrift < 1) {
			return fmt.Errorf("--warmup-drift %v: must be 0 (not checked) or a fraction below 1 (e.g. 0.05 = ±5 %%)", o.WarmupDrift)
		}
		if o.WarmupMax < o.Warmup {
			return fmt.Errorf("--warmup-max %v: must be at least --warmup %v (the minimum)", o.WarmupMax.Seconds(), o.Warmup.Seconds())
		}
	}
	if o.MaxCalls < 1 {
		return fmt.Errorf("--max-calls %d: must be at least 1", o.MaxCalls)
	}
	if o.Timeout <= 0 {
		return fmt.Errorf("--timeout %v: must be > 0", o.Timeout)
	}
	if o.Rate > 0 && o.MaxOutstanding < o.Concurrency {
		return fmt.Errorf("--max-outstanding %d: must be at least --concurrency (%d)", o.MaxOutstanding, o.Concurrency)
	}
	return nil
}

// Run executes the load and returns the report. ctx cancellation (SIGINT)
// stops the run early; the report then says stop_reason "interrupted".
func Run(ctx context.Context, o Options) (*Report, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if o.Args == nil {
		o.Args, _ = argtpl.Fixed([]byte(`{}`))
	}
	startedAt := time.Now().UTC()
	httpClient := mcpclient.NewHTTPClient(o.Concurrency)
	cfg := &mcpclient.Config{
		Endpoint:     o.Endpoint,
		Protocol:     o.Protocol,
		HTTPClient:   httpClient,
		ClientInfo:   o.ClientInfo,
		Timeout:      o.Timeout,
		ExtraHeaders: o.ExtraHeaders,
	}
	defer httpClient.CloseIdleConnections()

	// Setup (not measured): one probe session learns the server and checks
	// the tool exists; the call workload then opens one session per worker.
	setupCtx, cancelSetup := context.WithTimeout(ctx, o.Timeout+10*time.Second)
	defer cancelSetup()
	probe := mcpclient.NewSession(cfg)
	if err := probe.Initialize(setupCtx); err != nil {
		return nil, fmt.Errorf("initialize against %s failed: %w", o.Endpoint, err)
	}
	tools, err := probe.ListTools(setupCtx)
	if err != nil {
		return nil, fmt.Errorf("tools/list against %s failed: %w", o.Endpoint, err)
	}
	if o.Workload == WorkloadCall && o.Mix == nil && !slices.Contains(tools, o.Tool) {
		return nil, fmt.Errorf("--tool %q: the server does not offer it; it offers: %s", o.Tool, strings.Join(tools, ", "))
	}
	if o.Mix != nil {
		for _, name := range o.Mix.Names() {
			if !slices.Contains(tools, name) {
				return nil, fmt.Errorf("--mix tool %q: the server does not offer it; it offers: %s", name, strings.Join(tools, ", "))
			}
		}
	}
	rep := &Report{
		Tool: "mcp-load", Version: Version, Endpoint: o.Endpoint, Protocol: o.Protocol,
		ProtocolNegotiated: probe.NegotiatedProtocol(), Workload: o.Workload, Concurrency: o.Concurrency,
		Seed: o.Seed, StartedAt: startedAt.Format(time.RFC3339Nano),
		Server: Server{Name: probe.ServerInfo.Name, Version: probe.ServerInfo.Version},
	}
	if o.Workload == WorkloadCall && o.Mix == nil {
		rep.ToolName = o.Tool
	} else if o.Mix != nil {
		rep.ToolName = "mix:" + strings.Join(o.Mix.Names(), ",")
	}
	if rep.Server.Name == "" && mcpclient.IsStateless(o.Protocol) {
		if r, err := probe.Discover(setupCtx); err == nil {
			_ = r
			rep.Server = Server{Name: probe.ServerInfo.Name, Version: probe.ServerInfo.Version}
		}
	}
	probe.Close(setupCtx)

	ops := make([]operation, o.Concurrency)
	var sessions []*mcpclient.Session
	for w := 0; w < o.Concurrency; w++ {
		rng := rand.New(rand.NewPCG(o.Seed, uint64(w)))
		switch o.Workload {
		case WorkloadCall:
			s := mcpclient.NewSession(cfg)
			if err := s.Initialize(setupCtx); err != nil {
				return nil, fmt.Errorf("initialize of worker %d's session failed: %w", w, err)
			}
			if mcpclient.IsStateless(o.Protocol) {
				// Learn x-mcp-header bindings for this session.
				if _, err := s.ListTools(setupCtx); err != nil {
					return nil, fmt.Errorf("tools/list for worker %d failed: %w", w, err)
				}
			}
			sessions = append(sessions, s)
			if mix := o.Mix; mix != nil {
				ops[w] = func(ctx context.Context) (time.Time, int, error) {
					i := mix.Pick(rng)
					r, err := s.CallTool(ctx, mix.Tools[i].Name, mix.Tools[i].Args.Next(rng))
					if err != nil {
						return time.Time{}, i, err
					}
					// The check runs after the clock stopped (ReceivedAt): it is client work, not latency.
					return r.ReceivedAt, i, mix.VerifyValue(i, r.Value)
				}
				break
			}
			args := o.Args
			tool := o.Tool
			ops[w] = func(ctx context.Context) (time.Time, int, error) {
				r, err := s.CallTool(ctx, tool, args.Next(rng))
				if err != nil {
					return time.Time{}, 0, err
				}
				return r.ReceivedAt, 0, nil
			}
		case WorkloadDiscovery:
			closeSessions := o.CloseSessions
			ops[w] = func(ctx context.Context) (time.Time, int, error) {
				s := mcpclient.NewSession(cfg)
				if mcpclient.IsStateless(o.Protocol) {
					if _, err := s.Discover(ctx); err != nil {
						return time.Time{}, 0, err
					}
				} else if err := s.Initialize(ctx); err != nil {
					return time.Time{}, 0, err
				}
				if _, err := s.ListTools(ctx); err != nil {
					return time.Time{}, 0, err
				}
				received := time.Now()
				if closeSessions {
					s.Close(ctx) // after the clock stopped: not part of the latency
				}
				return received, 0, nil
			}
		}
	}
	cancelSetup()

	mixTools := 0
	if o.Mix != nil {
		mixTools = len(o.Mix.Tools)
	}
	r := newRunner(o, ops, mixTools)
	r.run(ctx)

	for _, s := range sessions {
		closeCtx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		s.Close(closeCtx)
		cancel()
	}
	cfg.CloseIdle()
	r.fill(rep)
	for _, s := range sessions {
		rep.SessionReinits += s.Reinits
	}
	return rep, nil
}

type runner struct {
	o   Options
	ops []operation

	t0 time.Time
	// Measured window as ns since t0; math.MaxInt64 until the warm-up ended
	// (a steady-state warm-up decides it while the load runs).
	measureStartNs atomic.Int64
	deadlineNs     atomic.Int64
	warmupRates    []float64 // steady warm-up: calls/s of every window
	steady         *bool
	issued         atomic.Int64 // every call started or queued, warm-up included
	completed      atomic.Int64 // progress only
	failed         atomic.Int64 // progress only
	stopping       atomic.Bool
	interrupted    atomic.Bool
	stopOnce       sync.Once
	stopMu         sync.Mutex // guards stopReason and stopAt
	stopReason     string
	stopAt         time.Time

	// open loop
	outstanding atomic.Int64
	intended    atomic.Int64 // measured intended arrivals
	dropped     atomic.Int64 // measured arrivals dropped at the outstanding bound
	sent        atomic.Int64 // measured arrivals handed to a worker

	stats []*workerStats
	// whole run, the seed's way (all completions incl. warm-up)
	allOK         atomic.Int64
	lastDoneNs    atomic.Int64 // since t0
	rusageStart   syscall.Rusage
	rusageEnd     syscall.Rusage
	rusageStarted atomic.Bool
}

func newRunner(o Options, ops []operation, tools int) *runner {
	r := &runner{o: o, ops: ops}
	for range ops {
		r.stats = append(r.stats, newWorkerStats(tools))
	}
	return r
}

func (r *runner) stop(reason string) {
	r.stopOnce.Do(func() {
		r.stopMu.Lock()
		r.stopReason = reason
		r.stopAt = time.Now()
		r.stopMu.Unlock()
		r.stopping.Store(true)
		if r.rusageStarted.Load() {
			r.touch(".measure-end")
		}
	})
}

// measured reports whether a call that (was meant to) start at t counts.
func (r *runner) measured(t time.Time) bool { return int64(t.Sub(r.t0)) >= r.measureStartNs.Load() }

func (r *runner) measureStart() time.Time { return r.t0.Add(time.Duration(r.measureStartNs.Load())) }
func (r *runner) deadline() time.Time     { return r.t0.Add(time.Duration(r.deadlineNs.Load())) }

// touch creates DIR/name (the pipeline's measured-window markers); no-op without --mark-dir.
func (r *runner) touch(name string) {
	if r.o.MarkDir == "" {
		return
	}
	if f, err := os.Create(filepath.Join(r.o.MarkDir, name)); err == nil {
		f.Close()
	}
}

// markStart: the measured window begins now (client CPU baseline, marker).
func (r *runner) markStart() {
	syscall.Getrusage(syscall.RUSAGE_SELF, &r.rusageStart)
	r.rusageStarted.Store(true)
	r.touch(".measure-start")
}

// beginMeasure ends the warm-up at t: the measured window is [t, t+Duration).
func (r *runner) beginMeasure(t time.Time) {
	r.markStart()
	d := int64(t.Sub(r.t0))
	r.deadlineNs.Store(d + int64(r.o.Duration))
	r.measureStartNs.Store(d)
}

// steadyWarmup watches the completions per window and ends the warm-up when
// the last WarmupWindows windows agree within WarmupTol (after at least
// Warmup), or at WarmupMax. It returns when the warm-up ended or the run stops.
func (r *runner) steadyWarmup(done <-chan struct{}) {
	t := time.NewTicker(r.o.WarmupWindow)
	defer t.Stop()
	last, lastT := r.completed.Load(), r.t0
	for {
		select {
		case <-done:
			return
		case now := <-t.C:
			if r.stopping.Load() {
				return
			}
			c := r.completed.Load()
			r.warmupRates = append(r.warmupRates, float64(c-last)/now.Sub(lastT).Seconds())
			last, lastT = c, now
			elapsed := now.Sub(r.t0)
			steady := elapsed >= r.o.Warmup && Steady(r.warmupRates, r.o.WarmupWindows, r.o.WarmupTol) &&
				(r.o.WarmupDrift == 0 || NoDrift(r.warmupRates, r.o.WarmupWindows, r.o.WarmupDrift))
			if steady || elapsed+r.o.WarmupWindow > r.o.WarmupMax {
				r.steady = &steady
				r.beginMeasure(now)
				time.AfterFunc(r.o.Duration, func() { r.stop("duration") })
				return
			}
		}
	}
}

func (r *runner) run(parent context.Context) {
	r.t0 = time.Now()
	maxWarm := r.o.Warmup
	warmDone := make(chan struct{})
	var warmWG sync.WaitGroup
	if r.o.WarmupMax > 0 {
		maxWarm = r.o.WarmupMax
		r.measureStartNs.Store(math.MaxInt64)
		r.deadlineNs.Store(math.MaxInt64)
		warmWG.Add(1)
		go func() {
			defer warmWG.Done()
			r.steadyWarmup(warmDone)
		}()
	} else {
		r.measureStartNs.Store(int64(r.o.Warmup))
		r.deadlineNs.Store(int64(r.o.Warmup + r.o.Duration))
		if r.o.Warmup <= 0 {
			r.beginMeasure(r.t0)
		} else {
			t := time.AfterFunc(r.o.Warmup, r.markStart)
			defer t.Stop()
		}
		endTimer := time.AfterFunc(r.o.Warmup+r.o.Duration, func() { r.stop("duration") })
		defer endTimer.Stop()
	}
	// Calls in flight when the run stops may finish (bounded by the request
	// timeout); ctx is cancelled only on interrupt or after that grace.
	ctx, cancel := context.WithDeadline(parent, r.t0.Add(maxWarm+r.o.Duration+r.o.Timeout+time.Second))
	defer cancel()
	go func() {
		select {
		case <-parent.Done():
			r.interrupted.Store(true)
			r.stop("interrupted")
		case <-ctx.Done():
		}
	}()
	progressDone := make(chan struct{})
	var progressWG sync.WaitGroup
	if r.o.Progress != nil && r.o.ProgressInterval > 0 {
		progressWG.Add(1)
		go func() {
			defer progressWG.Done()
			r.progress(progressDone)
		}()
	}

	if r.o.Rate > 0 {
		r.openLoop(ctx)
	} else {
		r.closedLoop(ctx)
	}
	close(progressDone)
	progressWG.Wait() // no progress line may follow the report
	close(warmDone)
	warmWG.Wait()
	r.stop("duration") // no-op unless workers all ended early
	syscall.Getrusage(syscall.RUSAGE_SELF, &r.rusageEnd)
	if !r.rusageStarted.Load() { // stopped during warm-up
		r.rusageStart = r.rusageEnd
	}
}

func (r *runner) closedLoop(ctx context.Context) {
	var wg sync.WaitGroup
	for w := range r.ops {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			op, st := r.ops[w], r.stats[w]
			for !r.stopping.Load() {
				if r.issued.Add(1) > r.o.MaxCalls {
					r.stop("max_calls")
					return
				}
				start := time.Now()
				received, tool, err := op(ctx)
				end := received
				if end.IsZero() {
					end = time.Now()
				}
				r.account(st, tool, start, start, end, err)
			}
		}(w)
	}
	wg.Wait()
}

func (r *runner) openLoop(ctx context.Context) {
	interval := float64(time.Second) / r.o.Rate
	jobs := make(chan time.Time, r.o.MaxOutstanding)
	var wg sync.WaitGroup
	for w := range r.ops {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			op, st := r.ops[w], r.stats[w]
			for intended := range jobs {
				start := time.Now()
				if r.measured(intended) {
					delay := start.Sub(intended)
					record(st.startDelay, delay)
					if delay > r.o.LateThreshold {
						st.late++
					}
				}
				received, tool, err := op(ctx)
				end := received
				if end.IsZero() {
					end = time.Now()
				}
				r.outstanding.Add(-1)
				r.account(st, tool, intended, start, end, err)
			}
		}(w)
	}
	// The dispatcher keeps the schedule t0 + i*interval exactly: when it
	// wakes up late it issues every arrival that is due, with its own
	// intended time, so lateness shows up in latency instead of vanishing.
	for i := int64(0); ; i++ {
		intended := r.t0.Add(time.Duration(float64(i) * interval))
		if int64(intended.Sub(r.t0)) >= r.deadlineNs.Load() {
			r.stop("duration")
			break
		}
		if d := time.Until(intended); d > 0 {
			if d > time.Millisecond {
				time.Sleep(d - 200*time.Microsecond)
			}
			for time.Now().Before(intended) && !r.stopping.Load() {
				time.Sleep(50 * time.Microsecond)
			}
		}
		if r.stopping.Load() {
			break
		}
		if r.issued.Add(1) > r.o.MaxCalls {
			r.stop("max_calls")
			break
		}
		m := r.measured(intended)
		if m {
			r.intended.Add(1)
		}
		if r.outstanding.Load() >= int64(r.o.MaxOutstanding) {
			if m {
				r.dropped.Add(1)
			}
			continue
		}
		r.outstanding.Add(1)
		if m {
			r.sent.Add(1)
		}
		jobs <- intended
	}
	close(jobs)
	wg.Wait()
}

// account records one finished call. latencyFrom is the intended start
// (open loop) or actual start (closed loop).
func (r *runner) account(st *workerStats, tool int, latencyFrom, start, end time.Time, err error) {
	r.completed.Add(1)
	if err != nil {
		r.failed.Add(1)
	} else {
		r.allOK.Add(1)
	}
	for done := int64(end.Sub(r.t0)); ; {
		last := r.lastDoneNs.Load()
		if done <= last || r.lastDoneNs.CompareAndSwap(last, done) {
			break
		}
	}
	if !r.measured(latencyFrom) {
		return
	}
	var ts *toolStats
	if tool < len(st.perTool) {
		ts = st.perTool[tool]
	}
	if err != nil {
		// Calls cut short by Ctrl-C are not server errors.
		if r.interrupted.Load() {
			return
		}
		kind := mcpclient.KindOf(err)
		st.errs[kind]++
		if st.errSample == "" {
			st.errSample = err.Error()
		}
		if ts != nil {
			ts.errs[kind]++
			if ts.errSample == "" {
				ts.errSample = err.Error()
			}
		}
		return
	}
	st.ok++
	record(st.latency, end.Sub(latencyFrom))
	record(st.service, end.Sub(start))
	if ts != nil {
		ts.ok++
		record(ts.latency, end.Sub(latencyFrom))
	}
}

func (r *runner) progress(done chan struct{}) {
	t := time.NewTicker(r.o.ProgressInterval)
	defer t.Stop()
	var last int64
	lastT := time.Now()
	for {
		select {
		case <-done:
			return
		case now := <-t.C:
			c := r.completed.Load()
			phase := "measure"
			if !r.measured(now) {
				phase = "warmup"
			}
			rate := float64(c-last) / now.Sub(lastT).Seconds()
			fmt.Fprintf(r.o.Progress, "mcp-load: t=%.1fs phase=%s completed=%d errors=%d rate=%.0f/s\n",
				now.Sub(r.t0).Seconds(), phase, c, r.failed.Load(), rate)
			last, lastT = c, now
		}
	}
}

func (r *runner) fill(rep *Report) {
	lat, svc, delay := newHist(), newHist(), newHist()
	rep.Errors.ByKind = map[string]int64{}
	var late int64
	for _, st := range r.stats {
		lat.Merge(st.latency)
		svc.Merge(st.service)
		delay.Merge(st.startDelay)
		rep.OK += st.ok
		for k, v := range st.errs {
			rep.Errors.ByKind[k] += v
			rep.Errors.Total += v
		}
		if rep.Errors.Sample == "" {
			rep.Errors.Sample = st.errSample
		}
		late += st.late
	}
	rep.Calls = rep.OK + rep.Errors.Total
	rep.Errors.ByClass = classes(rep.Errors.ByKind)
	sentCalls := rep.Calls
	end := r.stopAt
	if r.measureStartNs.Load() == math.MaxInt64 { // stopped during a steady warm-up
		r.measureStartNs.Store(int64(end.Sub(r.t0)))
		r.deadlineNs.Store(int64(end.Sub(r.t0)))
	}
	measureStart, deadline := r.measureStart(), r.deadline()
	if end.After(deadline) {
		end = deadline
	}
	window := end.Sub(measureStart).Seconds()
	if window < 0 {
		window = 0
	}
	rep.DurationS = round(window, 3)
	rep.WarmupS = round(measureStart.Sub(r.t0).Seconds(), 3)
	if r.o.WarmupMax > 0 {
		steady := r.steady != nil && *r.steady
		rep.Steady = &steady
		rates := make([]float64, len(r.warmupRates))
		for i, v := range r.warmupRates {
			rates[i] = round(v, 2)
		}
		rep.WarmupInfo = &WarmupInfo{
			Mode: "steady", WindowS: r.o.WarmupWindow.Seconds(), Windows: r.o.WarmupWindows, Tolerance: r.o.WarmupTol, Drift: r.o.WarmupDrift,
			MinS: r.o.Warmup.Seconds(), MaxS: r.o.WarmupMax.Seconds(), WindowRates: rates,
		}
	}
	rep.MeasureStart = measureStart.UTC().Format(time.RFC3339Nano)
	rep.MeasureEnd = measureStart.Add(time.Duration(window * float64(time.Second))).UTC().Format(time.RFC3339Nano)
	if window > 0 {
		rep.ThroughputPerS = round(float64(rep.OK)/window, 2)
	}
	rep.LatencyMs = latencyMs(lat)
	rep.StopReason = r.stopReason
	if n := len(r.stats[0].perTool); n > 0 {
		for i := range n {
			tr := ToolReport{Name: r.o.Mix.Tools[i].Name, Errors: ErrorSummary{ByKind: map[string]int64{}}}
			h := newHist()
			for _, st := range r.stats {
				ts := st.perTool[i]
				h.Merge(ts.latency)
				tr.OK += ts.ok
				for k, v := range ts.errs {
					tr.Errors.ByKind[k] += v
					tr.Errors.Total += v
				}
				if tr.Errors.Sample == "" {
					tr.Errors.Sample = ts.errSample
				}
			}
			tr.Errors.ByClass = classes(tr.Errors.ByKind)
			tr.Calls = tr.OK + tr.Errors.Total
			if window > 0 {
				tr.ThroughputPerS = round(float64(tr.OK)/window, 2)
			}
			tr.LatencyMs = latencyMs(h)
			rep.Tools = append(rep.Tools, tr)
		}
	}
	wall := time.Duration(r.lastDoneNs.Load()).Seconds()
	rep.WholeRun = WholeRun{Calls: r.completed.Load(), OK: r.allOK.Load(), WallS: round(wall, 3)}
	if wall > 0 {
		rep.WholeRun.RatePerS = round(float64(rep.WholeRun.Calls)/wall, 2)
	}
	if r.o.Rate > 0 {
		rate := r.o.Rate
		rep.Rate = &rate
		rep.Mode = "open"
		// An arrival dropped at the in-flight bound is a failed call: it is
		// in errors (kind "dropped"), calls and the error rate, not only here.
		if d := r.dropped.Load(); d > 0 {
			rep.Dropped = d
			rep.Errors.ByKind[KindDropped] += d
			rep.Errors.Total += d
			rep.Calls += d
			rep.Errors.ByClass = classes(rep.Errors.ByKind)
			if rep.Errors.Sample == "" {
				rep.Errors.Sample = fmt.Sprintf("%d arrivals dropped: %d calls already queued or in flight (--max-outstanding)", d, r.o.MaxOutstanding)
			}
		}
		rep.OpenLoop = &OpenLoopReport{
			Intended: r.intended.Load(), Sent: r.sent.Load(), Dropped: r.dropped.Load(), Late: late,
			LateThresholdMs: float64(r.o.LateThreshold) / 1e6, MaxOutstanding: r.o.MaxOutstanding,
			StartDelayMs: latencyMs(delay), ServiceTimeMs: latencyMs(svc),
		}
	} else {
		rep.Mode = "closed"
	}
	user := tv(r.rusageEnd.Utime) - tv(r.rusageStart.Utime)
	sys := tv(r.rusageEnd.Stime) - tv(r.rusageStart.Stime)
	rep.CPU = CPU{UserS: round(user, 4), SysS: round(sys, 4)}
	if sentCalls > 0 {
		rep.CPU.PerCallUs = round((user+sys)/float64(sentCalls)*1e6, 2)
	}
}

func classes(byKind map[string]int64) map[string]int64 {
	out := map[string]int64{}
	for k, v := range byKind {
		out[ErrorClass(k)] += v
	}
	return out
}

func tv(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }

func latencyMs(h *hdrhistogram.Histogram) *LatencyMs {
	if h.TotalCount() == 0 {
		return nil
	}
	ms := func(ns int64) float64 { return round(float64(ns)/1e6, 4) }
	return &LatencyMs{
		P50: ms(h.ValueAtQuantile(50)), P90: ms(h.ValueAtQuantile(90)), P95: ms(h.ValueAtQuantile(95)),
		P99: ms(h.ValueAtQuantile(99)), P999: ms(h.ValueAtQuantile(99.9)), Max: ms(h.Max()),
		Mean: round(h.Mean()/1e6, 4), Min: ms(h.Min()),
	}
}

func round(v float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}

// Version of mcp-load, reported in every document.
const Version = "0.3.0"

// MarshalReport renders the report as indented JSON.
func MarshalReport(r *Report) ([]byte, error) { return json.MarshalIndent(r, "", "  ") }
