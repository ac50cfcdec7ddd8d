// Command mcp-trivial is the calibration MCP server: Streamable HTTP on a
// loopback address, tools echo / noop / fail that do no work. Load against it
// measures the load generator's own ceiling.
//
// It prints one line "listening http://HOST:PORT/mcp" on stdout once the
// socket is bound, then serves until SIGINT/SIGTERM or --max-lifetime.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"samebox/bench-scripts/loadgen/mcp-load/internal/trivial"
)

func main() {
	fs := flag.NewFlagSet("mcp-trivial", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:0", "listen address, loopback only (port 0 = pick a free port)")
	jsonResp := fs.Bool("json-response", false, "answer with application/json instead of text/event-stream")
	stateless := fs.Bool("stateless", false, "serve without sessions (every request self-contained)")
	lifetime := fs.Duration("max-lifetime", time.Hour, "exit after this long even if nobody stops the server (0 = no limit)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: mcp-trivial [flags]\n\nMinimal MCP server (official Go SDK) for calibrating mcp-load. Tools: echo {text}, noop, fail.\nEndpoint path: /mcp. Protocol revisions: the SDK's (2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28, ...).\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(os.Args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		os.Exit(2)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "mcp-trivial: unexpected argument %q (flags only, see --help)\n", fs.Arg(0))
		os.Exit(2)
	}
	if err := trivial.CheckLoopback(*addr); err != nil {
		fmt.Fprintln(os.Stderr, "mcp-trivial:", err)
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcp-trivial: listen:", err)
		os.Exit(1)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", trivial.Handler(trivial.Options{JSONResponse: *jsonResp, Stateless: *stateless}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Printf("listening http://%s/mcp\n", ln.Addr())

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *lifetime > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *lifetime)
		defer cancel()
	}
	go func() {
		<-ctx.Done()
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		srv.Shutdown(shutdownCtx)
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintln(os.Stderr, "mcp-trivial:", err)
		os.Exit(1)
	}
}
