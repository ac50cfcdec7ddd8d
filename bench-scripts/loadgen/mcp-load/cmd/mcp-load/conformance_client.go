package main

// The conformance-client mode: the official MCP conformance suite
// checks clients by starting its own test server and running
//
//	conformance client --command 'mcp-load --conformance-client' --scenario initialize|tools_call
//
// which appends the server's URL as the last argument and names the scenario
// in MCP_CONFORMANCE_SCENARIO. This mode does what mcp-load does before and
// during a load run, once and with the same client code (mcpclient): initialize
// with --protocol, notifications/initialized, tools/list, then one tools/call
// of every listed tool with arguments built from its input schema (the suite's
// tools_call server lists add_numbers {a: number, b: number}; its initialize
// server lists none). Exit 0 when every step succeeded, 1 otherwise; each step
// is one line on stdout.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"samebox/bench-scripts/loadgen/mcp-load/internal/loadgen"
	"samebox/bench-scripts/loadgen/mcp-load/internal/mcpclient"
)

type listedTool struct {
	Name        string `json:"name"`
	InputSchema struct {
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
		Required []string `json:"required"`
	} `json:"inputSchema"`
}

// schemaArgs builds arguments for a tool's required properties, a value of the
// declared type each (numbers 1, 2, ... in the order required lists them).
func schemaArgs(t listedTool) json.RawMessage {
	args := map[string]any{}
	n := 0
	for _, name := range t.InputSchema.Required {
		typ, _ := t.InputSchema.Properties[name].Type.(string)
		switch typ {
		case "number", "integer":
			n++
			args[name] = n
		case "boolean":
			args[name] = true
		case "array":
			args[name] = []any{}
		case "object":
			args[name] = map[string]any{}
		default:
			args[name] = "samebox"
		}
	}
	raw, _ := json.Marshal(args)
	return raw
}

// runConformanceClient is the mode's body: URL is the suite's test server.
func runConformanceClient(url, protocol string, timeout time.Duration, stdout, stderr io.Writer) int {
	if err := checkEndpoint(url); err != nil {
		fmt.Fprintf(stderr, "mcp-load: %v\n", err)
		return 2
	}
	if !slices.Contains(mcpclient.Protocols, protocol) {
		fmt.Fprintf(stderr, "mcp-load: --protocol %q: valid: %s\n", protocol, strings.Join(mcpclient.Protocols, ", "))
		return 2
	}
	cfg := &mcpclient.Config{
		Endpoint: url, Protocol: protocol, HTTPClient: mcpclient.NewHTTPClient(1), Timeout: timeout,
		ClientInfo: mcpclient.Implementation{Name: "mcp-load", Version: loadgen.Version},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*timeout)
	defer cancel()
	s := mcpclient.NewSession(cfg)
	defer s.Close(ctx)
	step := func(name string, err error) bool {
		if err != nil {
			fmt.Fprintf(stdout, "FAIL %s: %v\n", name, err)
			return false
		}
		fmt.Fprintf(stdout, "ok   %s\n", name)
		return true
	}
	fmt.Fprintf(stdout, "mcp-load %s conformance client, scenario %q, protocol %s, server %s\n", loadgen.Version, os.Getenv("MCP_CONFORMANCE_SCENARIO"), protocol, url)
	ierr := s.Initialize(ctx)
	if !step("initialize (negotiated "+s.NegotiatedProtocol()+")", ierr) {
		return 1
	}
	resp, err := s.Call(ctx, "tools/list", "", json.RawMessage(`{}`))
	var list struct {
		Tools []listedTool `json:"tools"`
	}
	if err == nil {
		err = json.Unmarshal(resp.Result, &list)
	}
	if !step(fmt.Sprintf("tools/list (%d tools)", len(list.Tools)), err) {
		return 1
	}
	sort.SliceStable(list.Tools, func(i, j int) bool { return list.Tools[i].Name < list.Tools[j].Name })
	code := 0
	for _, t := range list.Tools {
		args := schemaArgs(t)
		r, err := s.CallTool(ctx, t.Name, args)
		if step(fmt.Sprintf("tools/call %s %s", t.Name, args), err) {
			fmt.Fprintf(stdout, "     result %s\n", r.Result)
		} else {
			code = 1
		}
	}
	return code
}
