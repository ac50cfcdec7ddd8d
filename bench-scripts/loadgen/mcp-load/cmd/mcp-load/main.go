// Command mcp-load is samebox's MCP load generator: it drives tools/call or
// session discovery over MCP Streamable HTTP at a fixed concurrency (closed
// loop) or a fixed arrival rate (open loop) and prints one JSON report on
// stdout. Progress goes to stderr. See the module README for the fields.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"samebox/bench-scripts/loadgen/mcp-load/internal/argtpl"
	"samebox/bench-scripts/loadgen/mcp-load/internal/loadgen"
	"samebox/bench-scripts/loadgen/mcp-load/internal/mcpclient"
	"samebox/bench-scripts/loadgen/mcp-load/internal/toolmix"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run returns the exit code: 0 report printed, 1 the run could not be done
// (server unreachable, initialize failed), 2 bad command line.
func run(argv []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mcp-load", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		endpoint      = fs.String("url", "", "MCP endpoint, e.g. http://127.0.0.1:8765/mcp (loopback only; required)")
		protocol      = fs.String("protocol", mcpclient.Protocol20250618, "protocol revision: "+strings.Join(mcpclient.Protocols, ", "))
		workload      = fs.String("workload", loadgen.WorkloadCall, "workload: "+strings.Join(loadgen.Workloads, ", "))
		tool          = fs.String("tool", "", "tool name for --workload call")
		argsJSON      = fs.String("args", "{}", "tool arguments as a JSON object (fixed for every call)")
		mixFile       = fs.String("mix", "", "JSON mix file {\"tools\":[{name, weight, args, checks}]}: each call picks a tool by weight and checks its result (failed_check); replaces --tool/--args")
		argsFile      = fs.String("args-file", "", "JSON file of per-call arguments: an array of objects, or {\"template\":{...},\"vars\":{...}} (overrides --args)")
		concurrency   = fs.Int("concurrency", 1, "workers, each with its own persistent session (open loop: max calls in flight)")
		rate          = fs.Float64("rate", 0, "open loop: arrivals per second on a constant schedule (0 = closed loop)")
		maxOut        = fs.Int("max-outstanding", 0, "open loop: max calls queued + in flight before arrivals are dropped (default 10 x concurrency)")
		duration      = fs.Float64("duration", 10, "measured seconds, after the warm-up")
		warmup        = fs.Float64("warmup", 0, "warm-up seconds, excluded from every figure (with --warmup-max: the minimum warm-up)")
		warmupMax     = fs.Float64("warmup-max", 0, "steady-state warm-up: warm up until the last --warmup-windows windows' throughputs agree within --warmup-tol, at most this many seconds (0 = fixed --warmup)")
		warmupWindow  = fs.Float64("warmup-window", 1, "steady-state warm-up: window length in seconds")
		warmupWindows = fs.Int("warmup-windows", 3, "steady-state warm-up: how many successive windows must agree")
		warmupTol     = fs.Float64("warmup-tol", 0.05, "steady-state warm-up: tolerance, fraction of the windows' mean (0.05 = ±5 %)")
		warmupDrift   = fs.Float64("warmup-drift", 0, "steady-state warm-up: also require the mean of the last --warmup-windows windows within this fraction of the mean of the windows before them (0 = not checked)")
		maxCalls      = fs.Int64("max-calls", 10_000_000, "upper bound on calls started (warm-up included)")
		timeout       = fs.Duration("timeout", 30*time.Second, "per-request timeout")
		seed          = fs.Uint64("seed", 42, "seed for argument templates (worker w uses stream (seed, w))")
		lateMs        = fs.Float64("late-threshold-ms", 1, "open loop: a call starting this much after its intended time counts as late")
		progressS     = fs.Float64("progress-interval", 1, "seconds between progress lines on stderr (0 = none)")
		closeSessions = fs.Bool("close-sessions", true, "discovery: DELETE each session after its iteration (outside the timed part)")
		markDir       = fs.String("mark-dir", "", "touch DIR/.measure-start and DIR/.measure-end at the measured window's edges (the samebox runner's resource window)")
		showVersion   = fs.Bool("version", false, "print the version and exit")
		cpuProfile    = fs.String("cpuprofile", "", "write a Go CPU profile of the whole run to this file (to see where the client's own time goes)")
		confClient    = fs.Bool("conformance-client", false, "run once as a client of the official MCP conformance suite: mcp-load --conformance-client [--protocol P] URL (the suite appends URL); initialize, tools/list, one tools/call per listed tool; exit 0 when all succeeded")
	)
	headers := map[string]string{}
	fs.Func("header", "extra request header 'Name: value' (repeatable)", func(v string) error {
		k, val, ok := strings.Cut(v, ":")
		if !ok || strings.TrimSpace(k) == "" {
			return fmt.Errorf("want 'Name: value'")
		}
		headers[strings.TrimSpace(k)] = strings.TrimSpace(val)
		return nil
	})
	fs.Usage = func() {
		out := fs.Output()
		fmt.Fprintf(out, "usage: mcp-load --url URL [--workload call --tool NAME [--args JSON | --args-file F]] [flags]\n\n")
		fmt.Fprintf(out, "MCP load generator (Streamable HTTP). Prints one JSON report on stdout; progress on stderr.\n")
		fmt.Fprintf(out, "Closed loop by default (--concurrency N); open loop with --rate R (latency from intended start).\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(argv); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2 // flag already printed the error and usage
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "mcp-load: "+format+"\n", a...)
		return 2
	}
	if *showVersion {
		fmt.Fprintln(stdout, "mcp-load", loadgen.Version)
		return 0
	}
	if *confClient {
		if fs.NArg() != 1 {
			return fail("--conformance-client takes the server URL as its one argument (the suite appends it), got %d arguments", fs.NArg())
		}
		return runConformanceClient(fs.Arg(0), *protocol, *timeout, stdout, stderr)
	}
	if fs.NArg() > 0 {
		return fail("unexpected argument %q (flags only, see --help)", fs.Arg(0))
	}
	if *endpoint == "" {
		return fail("--url is required, e.g. --url http://127.0.0.1:8765/mcp")
	}
	if err := checkEndpoint(*endpoint); err != nil {
		return fail("%v", err)
	}
	var args argtpl.Source
	var err error
	if *argsFile != "" {
		data, rerr := os.ReadFile(*argsFile)
		if rerr != nil {
			return fail("--args-file: %v", rerr)
		}
		if args, err = argtpl.Parse(data); err != nil {
			return fail("--args-file %s: %v", *argsFile, err)
		}
	} else if args, err = argtpl.Fixed([]byte(*argsJSON)); err != nil {
		return fail("--args: %v", err)
	}
	var mix *toolmix.Mix
	if *mixFile != "" {
		if *tool != "" || *argsFile != "" {
			return fail("--mix replaces --tool, --args and --args-file: give one or the other")
		}
		data, rerr := os.ReadFile(*mixFile)
		if rerr != nil {
			return fail("--mix: %v", rerr)
		}
		if mix, err = toolmix.Parse(data); err != nil {
			return fail("--mix %s: %v", *mixFile, err)
		}
	}
	if *duration <= 0 || *duration > 86400 {
		return fail("--duration %v: must be > 0 and at most 86400 seconds", *duration)
	}
	if *warmup < 0 || *warmup > 86400 {
		return fail("--warmup %v: must be between 0 and 86400 seconds", *warmup)
	}
	if *lateMs < 0 {
		return fail("--late-threshold-ms %v: must be >= 0", *lateMs)
	}
	if *progressS < 0 {
		return fail("--progress-interval %v: must be >= 0", *progressS)
	}
	mo := *maxOut
	if mo == 0 {
		mo = 10 * *concurrency
	}
	opts := loadgen.Options{
		Endpoint: *endpoint, Protocol: *protocol, Workload: *workload, Tool: *tool, Args: args, Mix: mix,
		Concurrency: *concurrency, Rate: *rate, MaxOutstanding: mo,
		Duration: secs(*duration), Warmup: secs(*warmup),
		WarmupMax: secs(*warmupMax), WarmupWindow: secs(*warmupWindow), WarmupWindows: *warmupWindows, WarmupTol: *warmupTol, WarmupDrift: *warmupDrift,
		MaxCalls: *maxCalls, Timeout: *timeout,
		Seed: *seed, LateThreshold: time.Duration(*lateMs * float64(time.Millisecond)),
		CloseSessions: *closeSessions, ExtraHeaders: headers, MarkDir: *markDir,
		ClientInfo:       mcpclient.Implementation{Name: "mcp-load", Version: loadgen.Version},
		Progress:         stderr,
		ProgressInterval: secs(*progressS),
	}
	if err := opts.Validate(); err != nil {
		return fail("%v", err)
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return fail("--cpuprofile: %v", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fail("--cpuprofile: %v", err)
		}
		defer pprof.StopCPUProfile()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := loadgen.Run(ctx, opts)
	if err != nil {
		fmt.Fprintf(stderr, "mcp-load: %v\n", err)
		return 1
	}
	rep.GoVersion = runtime.Version()
	out, err := loadgen.MarshalReport(rep)
	if err != nil {
		fmt.Fprintf(stderr, "mcp-load: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, string(out))
	return 0
}

func secs(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// checkEndpoint accepts only http(s) URLs on loopback: samebox load tests
// never leave the machine.
func checkEndpoint(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("--url %q: want an http:// or https:// URL such as http://127.0.0.1:8765/mcp", raw)
	}
	host := u.Hostname()
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("--url %q: only loopback targets are allowed (127.0.0.0/8, [::1], localhost)", raw)
}
