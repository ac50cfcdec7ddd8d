package loadgen

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"samebox/bench-scripts/loadgen/mcp-load/internal/argtpl"
	"samebox/bench-scripts/loadgen/mcp-load/internal/mcpclient"
	"samebox/bench-scripts/loadgen/mcp-load/internal/toolmix"
	"samebox/bench-scripts/loadgen/mcp-load/internal/trivial"
)

// countingHandler counts tools/call requests and can delay them.
type countingHandler struct {
	next  http.Handler
	calls atomic.Int64
	delay time.Duration
	seen  chan string // arguments of tools/call, when non-nil
}

func (h *countingHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	if bytes.Contains(body, []byte(`"tools/call"`)) {
		h.calls.Add(1)
		if h.seen != nil {
			var m struct {
				Params struct {
					Arguments json.RawMessage `json:"arguments"`
				} `json:"params"`
			}
			json.Unmarshal(body, &m)
			select {
			case h.seen <- string(m.Params.Arguments):
			default:
			}
		}
		if h.delay > 0 {
			time.Sleep(h.delay)
		}
	}
	h.next.ServeHTTP(w, r)
}

func baseOptions(url string) Options {
	return Options{
		Endpoint: url, Protocol: mcpclient.Protocol20250618, Workload: WorkloadCall, Tool: "echo",
		Concurrency: 2, Duration: 400 * time.Millisecond, MaxCalls: 1_000_000, Timeout: 5 * time.Second,
		Seed: 42, LateThreshold: time.Millisecond, MaxOutstanding: 20, CloseSessions: true,
		ClientInfo: mcpclient.Implementation{Name: "test", Version: "0"},
	}
}

func runOK(t *testing.T, o Options) *Report {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rep, err := Run(ctx, o)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return rep
}

func TestClosedLoopBoundedRun(t *testing.T) {
	h := &countingHandler{next: trivial.Handler(trivial.Options{})}
	srv := httptest.NewServer(h)
	defer srv.Close()
	o := baseOptions(srv.URL)
	o.Warmup = 200 * time.Millisecond
	start := time.Now()
	rep := runOK(t, o)
	if el := time.Since(start); el > 3*time.Second {
		t.Errorf("run took %v for 0.2 s warm-up + 0.4 s", el)
	}
	if rep.Mode != "closed" || rep.Rate != nil || rep.OpenLoop != nil {
		t.Errorf("mode %q rate %v open_loop %v", rep.Mode, rep.Rate, rep.OpenLoop)
	}
	if rep.OK == 0 || rep.Errors.Total != 0 || rep.Calls != rep.OK {
		t.Fatalf("ok %d errors %+v calls %d", rep.OK, rep.Errors, rep.Calls)
	}
	// Warm-up calls reach the server but no figure.
	if served := h.calls.Load(); rep.Calls >= served {
		t.Errorf("report counts %d calls, server saw %d: warm-up not excluded", rep.Calls, served)
	}
	if rep.DurationS < 0.35 || rep.DurationS > 0.5 {
		t.Errorf("duration_s %v, want ~0.4", rep.DurationS)
	}
	want := float64(rep.OK) / rep.DurationS
	if d := rep.ThroughputPerS - want; d > 1 || d < -1 {
		t.Errorf("throughput %v, want ok/duration = %v", rep.ThroughputPerS, want)
	}
	l := rep.LatencyMs
	if l == nil || !(l.Min <= l.P50 && l.P50 <= l.P90 && l.P90 <= l.P99 && l.P99 <= l.P999 && l.P999 <= l.Max) || l.Mean <= 0 {
		t.Errorf("latency %+v not ordered", l)
	}
	if rep.CPU.UserS+rep.CPU.SysS <= 0 || rep.CPU.PerCallUs <= 0 {
		t.Errorf("cpu %+v", rep.CPU)
	}
	if rep.Server.Name != trivial.Name || rep.ProtocolNegotiated != mcpclient.Protocol20250618 || rep.StopReason != "duration" {
		t.Errorf("server %+v negotiated %q stop %q", rep.Server, rep.ProtocolNegotiated, rep.StopReason)
	}
}

func TestMaxCallsBound(t *testing.T) {
	h := &countingHandler{next: trivial.Handler(trivial.Options{JSONResponse: true})}
	srv := httptest.NewServer(h)
	defer srv.Close()
	o := baseOptions(srv.URL)
	o.Duration = 20 * time.Second
	o.MaxCalls = 37
	start := time.Now()
	rep := runOK(t, o)
	if time.Since(start) > 5*time.Second {
		t.Error("max-calls did not end the run early")
	}
	if rep.StopReason != "max_calls" || rep.Calls != 37 || h.calls.Load() != 37 {
		t.Errorf("stop %q, report calls %d, server calls %d; want max_calls, 37, 37", rep.StopReason, rep.Calls, h.calls.Load())
	}
}

func TestErrorsCountedByKind(t *testing.T) {
	srv := httptest.NewServer(trivial.Handler(trivial.Options{}))
	defer srv.Close()
	o := baseOptions(srv.URL)
	o.Tool = "fail"
	rep := runOK(t, o)
	if rep.OK != 0 || rep.Errors.Total == 0 || rep.Errors.ByKind[mcpclient.KindToolError] != rep.Errors.Total || rep.LatencyMs != nil {
		t.Errorf("ok %d errors %+v latency %v; want every call a %s", rep.OK, rep.Errors, rep.LatencyMs, mcpclient.KindToolError)
	}
	if rep.Errors.Sample == "" {
		t.Error("no error sample")
	}
}

func TestOpenLoopKeepsScheduleAndCountsDrops(t *testing.T) {
	// Fast server, modest rate, deep queue: every arrival is sent, none
	// dropped (kept modest so a loaded 2-core CI box under -race copes).
	srv := httptest.NewServer(trivial.Handler(trivial.Options{}))
	defer srv.Close()
	o := baseOptions(srv.URL)
	o.Rate = 50
	o.Duration = time.Second
	o.MaxOutstanding = 200
	rep := runOK(t, o)
	ol := rep.OpenLoop
	if rep.Mode != "open" || ol == nil || rep.Rate == nil || *rep.Rate != 50 {
		t.Fatalf("mode %q open_loop %+v", rep.Mode, ol)
	}
	if ol.Intended < 49 || ol.Intended > 51 {
		t.Errorf("intended %d arrivals in 1 s at 50/s", ol.Intended)
	}
	if ol.Sent+ol.Dropped != ol.Intended || ol.Dropped != 0 || rep.Calls != ol.Sent {
		t.Errorf("open loop %+v, calls %d", ol, rep.Calls)
	}

	// Slow server (20 ms per call), 1 worker, 100/s offered: the queue
	// fills, arrivals beyond the bound are dropped, and latency measured
	// from the intended start exceeds the service time.
	slow := &countingHandler{next: trivial.Handler(trivial.Options{}), delay: 20 * time.Millisecond}
	srv2 := httptest.NewServer(slow)
	defer srv2.Close()
	o = baseOptions(srv2.URL)
	o.Concurrency, o.Rate, o.MaxOutstanding, o.Duration = 1, 100, 3, time.Second
	rep = runOK(t, o)
	ol = rep.OpenLoop
	if ol.Dropped == 0 || ol.Late == 0 {
		t.Errorf("overloaded open loop reported no drops/late: %+v", ol)
	}
	// Dropped arrivals are failed calls: in errors (kind and class
	// "dropped"), in calls, in the report's own dropped field.
	if rep.Dropped != ol.Dropped || rep.Errors.ByKind[KindDropped] != ol.Dropped || rep.Errors.ByClass["dropped"] != ol.Dropped {
		t.Errorf("dropped %d not counted as errors: report dropped %d, errors %+v", ol.Dropped, rep.Dropped, rep.Errors)
	}
	if rep.Calls != ol.Sent+ol.Dropped || rep.Calls != rep.OK+rep.Errors.Total {
		t.Errorf("calls %d, want sent %d + dropped %d = ok %d + errors %d", rep.Calls, ol.Sent, ol.Dropped, rep.OK, rep.Errors.Total)
	}
	if rep.LatencyMs.P50 <= ol.ServiceTimeMs.P50 {
		t.Errorf("latency p50 %v not above service p50 %v: queueing hidden", rep.LatencyMs.P50, ol.ServiceTimeMs.P50)
	}
	if rep.ThroughputPerS > 60 {
		t.Errorf("throughput %v/s exceeds what a 20 ms server allows one worker", rep.ThroughputPerS)
	}
}

func TestDiscoveryWorkload(t *testing.T) {
	for _, tc := range []struct {
		protocol  string
		stateless bool
	}{{mcpclient.Protocol20250618, false}, {mcpclient.Protocol20260728, true}} {
		t.Run(tc.protocol, func(t *testing.T) {
			srv := httptest.NewServer(trivial.Handler(trivial.Options{Stateless: tc.stateless}))
			defer srv.Close()
			o := baseOptions(srv.URL)
			o.Workload, o.Tool, o.Protocol = WorkloadDiscovery, "", tc.protocol
			rep := runOK(t, o)
			if rep.OK == 0 || rep.Errors.Total != 0 || rep.ToolName != "" || rep.Server.Name != trivial.Name {
				t.Errorf("ok %d errors %+v tool %q server %+v", rep.OK, rep.Errors, rep.ToolName, rep.Server)
			}
		})
	}
}

func TestStatelessCallWorkload(t *testing.T) {
	srv := httptest.NewServer(trivial.Handler(trivial.Options{Stateless: true, JSONResponse: true}))
	defer srv.Close()
	o := baseOptions(srv.URL)
	o.Protocol = mcpclient.Protocol20260728
	rep := runOK(t, o)
	if rep.OK == 0 || rep.Errors.Total != 0 || rep.Server.Name != trivial.Name || rep.ProtocolNegotiated != mcpclient.Protocol20260728 {
		t.Errorf("ok %d errors %+v server %+v negotiated %q", rep.OK, rep.Errors, rep.Server, rep.ProtocolNegotiated)
	}
}

func TestTemplatedArgsReachServer(t *testing.T) {
	h := &countingHandler{next: trivial.Handler(trivial.Options{}), seen: make(chan string, 10000)}
	srv := httptest.NewServer(h)
	defer srv.Close()
	o := baseOptions(srv.URL)
	o.Concurrency = 1
	o.MaxCalls = 30
	o.Duration = 20 * time.Second // max-calls ends the run
	var err error
	o.Args, err = argtpl.Parse([]byte(`{"template":{"text":"key-{{k}}"},"vars":{"k":{"int_range":[1,5]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	runOK(t, o)
	close(h.seen)
	var first []string
	for a := range h.seen {
		first = append(first, a)
	}
	// Same seed, same worker: the same sequence again.
	h2 := &countingHandler{next: trivial.Handler(trivial.Options{}), seen: make(chan string, 10000)}
	srv2 := httptest.NewServer(h2)
	defer srv2.Close()
	o.Endpoint = srv2.URL
	runOK(t, o)
	close(h2.seen)
	var second []string
	for a := range h2.seen {
		second = append(second, a)
	}
	if len(first) != 30 || strings.Join(first, "|") != strings.Join(second, "|") {
		t.Errorf("runs sent %d/%d args, sequences equal=%v", len(first), len(second), strings.Join(first, "|") == strings.Join(second, "|"))
	}
	distinct := map[string]bool{}
	for _, a := range first {
		distinct[a] = true
	}
	if len(distinct) < 3 {
		t.Errorf("templated args hit only %v", distinct)
	}
}

func TestSetupFailuresAreClear(t *testing.T) {
	srv := httptest.NewServer(trivial.Handler(trivial.Options{}))
	defer srv.Close()
	o := baseOptions(srv.URL)
	o.Tool = "nope"
	_, err := Run(context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), "it offers: echo, fail, noop") {
		t.Errorf("unknown tool error %v", err)
	}
	o = baseOptions(srv.URL)
	o.Workload = "bogus"
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "valid: discovery, call") {
		t.Errorf("bad workload error %v", err)
	}
	o = baseOptions(srv.URL)
	o.Protocol = "2024-11-05"
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "valid: 2025-03-26, 2025-06-18, 2026-07-28") {
		t.Errorf("bad protocol error %v", err)
	}
}

// A mix of three tools against the real SDK server: echo passes its check, echo with a
// failing check is failed_check, fail is tool_is_error; per-tool figures add up to the totals,
// and the whole-run count (the seed's way, warm-up included) is larger than the measured one.
func TestMixPerToolChecksAndClasses(t *testing.T) {
	h := &countingHandler{next: trivial.Handler(trivial.Options{})}
	srv := httptest.NewServer(h)
	defer srv.Close()
	mix, err := toolmix.Parse([]byte(`{"tools": [
		{"name": "echo", "weight": 2, "args": {"text": "{\"total_found\": 2251, \"items\": [1, 2]}"},
		 "checks": [{"path": "total_found", "eq": 2251}, {"path": "items", "len": 2}]},
		{"name": "noop", "weight": 1, "checks": [{"path": "status", "eq": "confirmed"}]},
		{"name": "fail", "weight": 1}]}`))
	if err != nil {
		t.Fatal(err)
	}
	o := baseOptions(srv.URL)
	o.Tool, o.Mix = "", mix
	o.Warmup = 200 * time.Millisecond
	rep := runOK(t, o)
	if len(rep.Tools) != 3 || rep.ToolName != "mix:echo,noop,fail" {
		t.Fatalf("tools %+v name %q", rep.Tools, rep.ToolName)
	}
	echo, noop, fail := rep.Tools[0], rep.Tools[1], rep.Tools[2]
	if echo.OK == 0 || echo.Errors.Total != 0 || echo.LatencyMs == nil {
		t.Errorf("echo %+v", echo)
	}
	if noop.OK != 0 || noop.Errors.ByKind[toolmix.KindFailedCheck] != noop.Calls || noop.Calls == 0 || noop.LatencyMs != nil {
		t.Errorf("noop %+v: want every call failed_check", noop)
	}
	if fail.OK != 0 || fail.Errors.ByClass["is_error"] != fail.Calls || fail.Calls == 0 {
		t.Errorf("fail %+v: want every call is_error", fail)
	}
	if echo.Calls+noop.Calls+fail.Calls != rep.Calls || rep.Errors.ByClass["failed_check"]+rep.Errors.ByClass["is_error"] != rep.Errors.Total {
		t.Errorf("per-tool calls do not add up: %+v", rep)
	}
	// weights 2:1:1
	if r := float64(echo.Calls) / float64(rep.Calls); r < 0.4 || r > 0.6 {
		t.Errorf("echo share %.2f, want ~0.5", r)
	}
	if rep.WholeRun.Calls <= rep.Calls || rep.WholeRun.WallS < 0.55 || rep.WholeRun.RatePerS <= 0 {
		t.Errorf("whole run %+v vs measured %d calls", rep.WholeRun, rep.Calls)
	}
}

func TestSteadyRule(t *testing.T) {
	cases := []struct {
		rates []float64
		want  bool
	}{
		{[]float64{10, 100, 100, 102, 98}, true},
		{[]float64{100, 102, 120}, false}, // 120 is 6 % above the mean of 107
		{[]float64{100, 100}, false},      // fewer than k windows
		{[]float64{0, 0, 0}, false},       // a stalled target is not steady
		{[]float64{66, 102, 538, 540, 545, 538}, true},
	}
	for _, c := range cases {
		if got := Steady(c.rates, 3, 0.05); got != c.want {
			t.Errorf("Steady(%v) = %v, want %v", c.rates, got, c.want)
		}
	}
}

func TestNoDriftRule(t *testing.T) {
	cases := []struct {
		rates []float64
		want  bool
	}{
		// Quarkus's warm-up in run 20261124T192731Z: the last 3 agree within ±10 % (Steady),
		// but their mean (799) is 20 % above the 3 before (666): still rising.
		{[]float64{208, 368, 492, 666, 840, 766, 790}, false},
		{[]float64{492, 666, 840, 900, 910, 905, 895, 900, 910}, true},
		{[]float64{100, 100, 100, 100, 100}, false}, // fewer than 2k windows
		{[]float64{0, 0, 0, 0, 0, 0}, false},        // a stalled target
		{[]float64{100, 104, 96, 103, 99, 101}, true},
		{[]float64{100, 100, 100, 90, 90, 90}, false}, // a fall is drift too
	}
	for _, c := range cases {
		if got := NoDrift(c.rates, 3, 0.05); got != c.want {
			t.Errorf("NoDrift(%v) = %v, want %v", c.rates, got, c.want)
		}
	}
	if !Steady([]float64{208, 368, 492, 666, 840, 766, 790}, 3, 0.1) {
		t.Errorf("the Quarkus windows pass Steady at ±10 %%: the case NoDrift exists for")
	}
}

func TestWarmupDriftIsValidated(t *testing.T) {
	o := baseOptions("http://127.0.0.1:1/mcp")
	o.WarmupMax, o.WarmupWindow, o.WarmupWindows, o.WarmupTol, o.WarmupDrift = 5*time.Second, 100*time.Millisecond, 3, 0.1, 1.5
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "--warmup-drift") {
		t.Errorf("Validate with drift 1.5 = %v, want an error naming --warmup-drift", err)
	}
}

func TestSteadyWarmupEndsWhenWindowsAgree(t *testing.T) {
	srv := httptest.NewServer(trivial.Handler(trivial.Options{}))
	defer srv.Close()
	o := baseOptions(srv.URL)
	o.WarmupMax, o.WarmupWindow, o.WarmupWindows, o.WarmupTol = 5*time.Second, 100*time.Millisecond, 3, 0.5
	o.MarkDir = t.TempDir()
	rep := runOK(t, o)
	// The measured window's markers, for the runner's server CPU/memory window.
	st, err1 := os.Stat(filepath.Join(o.MarkDir, ".measure-start"))
	en, err2 := os.Stat(filepath.Join(o.MarkDir, ".measure-end"))
	if err1 != nil || err2 != nil || en.ModTime().Sub(st.ModTime()) < 300*time.Millisecond {
		t.Errorf("markers: %v %v; the window between them must be ~0.4 s", err1, err2)
	}
	if rep.Steady == nil || !*rep.Steady || rep.WarmupInfo == nil {
		t.Fatalf("steady %v warmup %+v: a constant server is steady", rep.Steady, rep.WarmupInfo)
	}
	if rep.WarmupS < 0.3 || rep.WarmupS >= 5 || len(rep.WarmupInfo.WindowRates) < 3 {
		t.Errorf("warmup_s %v with %d windows: want at least 3 windows of 0.1 s, below the 5 s bound", rep.WarmupS, len(rep.WarmupInfo.WindowRates))
	}
	if rep.DurationS < 0.35 || rep.DurationS > 0.5 || rep.OK == 0 {
		t.Errorf("measured %v s, %d ok after the warm-up; want ~0.4 s", rep.DurationS, rep.OK)
	}
}

// A server that gets faster every window never agrees within 1 %: the warm-up
// stops at its bound, the run still measures, and the report says steady=false.
func TestSteadyWarmupBounded(t *testing.T) {
	var n atomic.Int64
	next := trivial.Handler(trivial.Options{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if bytes.Contains(body, []byte(`"tools/call"`)) {
			// 4 ms, shrinking by 1 % every call: never steady within 1 %
			time.Sleep(time.Duration(4e6 * math.Pow(0.99, float64(n.Add(1)))))
		}
		next.ServeHTTP(w, r)
	})
	srv := httptest.NewServer(h)
	defer srv.Close()
	o := baseOptions(srv.URL)
	o.Concurrency = 1
	o.WarmupMax, o.WarmupWindow, o.WarmupWindows, o.WarmupTol = 600*time.Millisecond, 100*time.Millisecond, 3, 0.01
	o.Warmup = 500 * time.Millisecond
	rep := runOK(t, o)
	if rep.Steady == nil || *rep.Steady {
		t.Errorf("steady %v: the bound was hit, want false (rates %v)", rep.Steady, rep.WarmupInfo)
	}
	if rep.WarmupS < 0.5 || rep.WarmupS > 0.75 {
		t.Errorf("warmup_s %v, want the 0.6 s bound", rep.WarmupS)
	}
	if rep.OK == 0 || rep.DurationS < 0.35 {
		t.Errorf("the cell still measures after the bound: ok %d duration %v", rep.OK, rep.DurationS)
	}
}

func TestSteadyWarmupOptionsValidated(t *testing.T) {
	o := baseOptions("http://127.0.0.1:1/mcp")
	o.WarmupMax, o.WarmupWindow, o.WarmupWindows, o.WarmupTol = time.Second, time.Second, 1, 0.05
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "--warmup-windows") {
		t.Errorf("k=1 accepted: %v", err)
	}
	o.WarmupWindows, o.WarmupTol = 3, 0
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "--warmup-tol") {
		t.Errorf("tol 0 accepted: %v", err)
	}
}

func TestSteadyWarmupWithDriftWaitsForTwoBlocks(t *testing.T) {
	srv := httptest.NewServer(trivial.Handler(trivial.Options{}))
	defer srv.Close()
	o := baseOptions(srv.URL)
	o.WarmupMax, o.WarmupWindow, o.WarmupWindows, o.WarmupTol, o.WarmupDrift = 5*time.Second, 100*time.Millisecond, 3, 0.5, 0.5
	rep := runOK(t, o)
	if rep.Steady == nil || !*rep.Steady || rep.WarmupInfo == nil {
		t.Fatalf("steady %v warmup %+v: a constant server is steady", rep.Steady, rep.WarmupInfo)
	}
	// The drift rule compares two blocks of 3 windows: never judged before 6 windows.
	if n := len(rep.WarmupInfo.WindowRates); n < 6 || rep.WarmupInfo.Drift != 0.5 {
		t.Errorf("%d windows, drift %v recorded: want at least 6 windows and drift 0.5", n, rep.WarmupInfo.Drift)
	}
}
