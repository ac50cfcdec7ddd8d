// Package trivial builds the calibration MCP server: tools that do no work,
// so a load run against it measures the client (and the SDK's transport),
// not a backend. It is built on the official Go SDK.
package trivial

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Name and Version identify the server in initialize / _meta serverInfo.
const (
	Name    = "mcp-trivial"
	Version = "0.1.0"
)

// Options select the transport variant.
type Options struct {
	// JSONResponse answers requests with application/json instead of an SSE stream.
	JSONResponse bool
	// Stateless serves every request without a session (no Mcp-Session-Id).
	Stateless bool
	Logger    *slog.Logger
}

// EchoArgs is the input of the echo tool.
type EchoArgs struct {
	Text string `json:"text,omitempty" jsonschema:"text to return unchanged"`
}

// NewServer returns the SDK server with the echo, noop and fail tools.
func NewServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: Name, Version: Version}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Returns its text argument unchanged."},
		func(ctx context.Context, req *mcp.CallToolRequest, in EchoArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "noop", Description: "Does nothing and returns an empty result."},
		func(ctx context.Context, req *mcp.CallToolRequest, in map[string]any) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{}}, nil, nil
		})
	// fail exists so error accounting can be checked against a real server.
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "Always returns a tool error (isError: true)."},
		func(ctx context.Context, req *mcp.CallToolRequest, in map[string]any) (*mcp.CallToolResult, any, error) {
			return nil, nil, fmt.Errorf("fail tool called")
		})
	return s
}

// Handler returns the Streamable HTTP handler serving NewServer.
func Handler(o Options) http.Handler {
	srv := NewServer()
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		JSONResponse: o.JSONResponse,
		Stateless:    o.Stateless,
		Logger:       o.Logger,
	})
}

// CheckLoopback refuses any listen address that is not on the loopback
// interface: the calibration target must never be reachable from outside.
func CheckLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--addr %q: want host:port, e.g. 127.0.0.1:8765", addr)
	}
	if host == "localhost" {
		return nil
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("--addr %q: only loopback addresses are allowed (127.0.0.0/8, ::1, localhost)", addr)
	}
	return nil
}
