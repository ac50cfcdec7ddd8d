// Command mcp-null is the cheapest MCP server we can write: the client ceiling's target. It speaks
// just enough of MCP over Streamable HTTP (protocol 2025-06-18) for a load client to open a
// session and call a tool: initialize (answers with an Mcp-Session-Id), notifications (202),
// ping, tools/list and tools/call of "echo" (returns its "text" argument) and "noop" — every
// answer a single application/json body, no SSE, no session bookkeeping beyond a counter, no
// schema validation. Whatever a client reaches against it is what that client can drive on this
// machine at that concurrency: its own ceiling. Real servers (Faucet, DBHub, Toolbox, the
// official Go SDK's mcp-trivial) do strictly more work per call.
//
// It prints one line "listening http://HOST:PORT/mcp" on stdout once the socket is bound, then
// serves until SIGINT/SIGTERM or --max-lifetime. Loopback addresses only.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"
)

type request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

var sessions atomic.Int64

func handle(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodPost:
	case http.MethodDelete:
		w.WriteHeader(http.StatusOK)
		return
	default: // no server-to-client stream (GET): allowed by the transport
		w.Header().Set("Allow", "POST, DELETE")
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	var req request
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "bad JSON-RPC body: "+err.Error(), http.StatusBadRequest)
		return
	}
	if len(req.ID) == 0 { // a notification (initialized, cancelled, ...)
		w.WriteHeader(http.StatusAccepted)
		return
	}
	res := response{JSONRPC: "2.0", ID: req.ID}
	switch req.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(req.Params, &p)
		if p.ProtocolVersion == "" {
			p.ProtocolVersion = "2025-06-18"
		}
		w.Header().Set("Mcp-Session-Id", "null-"+strconv.FormatInt(sessions.Add(1), 10))
		res.Result = map[string]any{
			"protocolVersion": p.ProtocolVersion,
			"capabilities":    map[string]any{"tools": map[string]any{}},
			"serverInfo":      map[string]any{"name": "mcp-null", "version": "0.1.0"},
		}
	case "ping":
		res.Result = map[string]any{}
	case "tools/list":
		schema := map[string]any{"type": "object"}
		res.Result = map[string]any{"tools": []any{
			map[string]any{"name": "echo", "description": "returns its text argument", "inputSchema": schema},
			map[string]any{"name": "noop", "description": "does nothing", "inputSchema": schema},
		}}
	case "tools/call":
		var p struct {
			Name      string `json:"name"`
			Arguments struct {
				Text string `json:"text"`
			} `json:"arguments"`
		}
		_ = json.Unmarshal(req.Params, &p)
		switch p.Name {
		case "echo":
			res.Result = map[string]any{"content": []any{map[string]any{"type": "text", "text": p.Arguments.Text}}}
		case "noop":
			res.Result = map[string]any{"content": []any{}}
		default:
			res.Error = &rpcError{Code: -32602, Message: "unknown tool " + strconv.Quote(p.Name) + "; valid: echo, noop"}
		}
	default:
		res.Error = &rpcError{Code: -32601, Message: "method not found: " + req.Method}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(res)
}

func main() {
	fs := flag.NewFlagSet("mcp-null", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:0", "listen address, loopback only (port 0 = pick a free port)")
	lifetime := fs.Duration("max-lifetime", time.Hour, "exit after this long even if nobody stops the server (0 = no limit)")
	_ = fs.Parse(os.Args[1:])
	host, _, err := net.SplitHostPort(*addr)
	if err != nil || !(host == "127.0.0.1" || host == "::1" || host == "localhost") {
		fmt.Fprintf(os.Stderr, "mcp-null: --addr %q is not a loopback address (valid: 127.0.0.1:<port>, [::1]:<port>)\n", *addr)
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "mcp-null: %v\n", err)
		os.Exit(1)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", handle)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Printf("listening http://%s/mcp\n", ln.Addr())
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if *lifetime > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *lifetime)
		defer cancel()
	}
	go func() { <-ctx.Done(); _ = srv.Shutdown(context.Background()) }()
	if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
		fmt.Fprintf(os.Stderr, "mcp-null: %v\n", err)
		os.Exit(1)
	}
}
