package main

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"samebox/bench-scripts/loadgen/mcp-load/internal/trivial"
)

// The suite's tools_call server lists add_numbers {a: number, b: number} (both required).
func TestSchemaArgs(t *testing.T) {
	var tool listedTool
	if err := json.Unmarshal([]byte(`{"name":"add_numbers","inputSchema":{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"},"note":{"type":"string"}},"required":["a","b"]}}`), &tool); err != nil {
		t.Fatal(err)
	}
	if got := string(schemaArgs(tool)); got != `{"a":1,"b":2}` {
		t.Fatalf("schemaArgs = %s, want {\"a\":1,\"b\":2} (required numbers only)", got)
	}
}

func TestConformanceClientBadArgs(t *testing.T) {
	cases := []struct {
		argv []string
		want string
	}{
		{[]string{"--conformance-client"}, "takes the server URL as its one argument"},
		{[]string{"--conformance-client", "http://10.0.0.1:1/mcp"}, "only loopback targets"},
		{[]string{"--conformance-client", "--protocol", "2024-11-05", "http://127.0.0.1:1/mcp"}, "valid: 2025-03-26, 2025-06-18, 2026-07-28"},
	}
	for _, tc := range cases {
		var stdout, stderr bytes.Buffer
		if code := run(tc.argv, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 containing %q", tc.argv, code, stderr.String(), tc.want)
		}
	}
}

// Against a real MCP server (the official Go SDK's, internal/trivial, whose "fail" tool answers isError):
// initialize, tools/list and the echo call ok, the fail call FAIL, exit 1; against a server that is not
// there: exit 1 with initialize named.
func TestConformanceClientRuns(t *testing.T) {
	srv := httptest.NewServer(trivial.Handler(trivial.Options{}))
	defer srv.Close()
	var stdout, stderr bytes.Buffer
	if code := run([]string{"--conformance-client", srv.URL}, &stdout, &stderr); code != 1 {
		t.Fatalf("exit %d, want 1 (the fail tool); stdout %s stderr %s", code, stdout.String(), stderr.String())
	}
	for _, want := range []string{"ok   initialize (negotiated 2025-06-18)", "ok   tools/list (3 tools)", "ok   tools/call echo", "FAIL tools/call fail {}: tool_is_error"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
		}
	}
	srv.Close()
	stdout.Reset()
	if code := run([]string{"--conformance-client", "--timeout", "2s", srv.URL}, &stdout, &stderr); code != 1 || !strings.Contains(stdout.String(), "FAIL initialize") {
		t.Fatalf("closed server: exit %d, stdout %s; want exit 1 and FAIL initialize", code, stdout.String())
	}
}
