package main

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"samebox/bench-scripts/loadgen/mcp-load/internal/trivial"
)

func TestBadFlags(t *testing.T) {
	argsFile := filepath.Join(t.TempDir(), "args.json")
	os.WriteFile(argsFile, []byte(`{"template":{"id":"{{id}}"}}`), 0o644)
	cases := []struct {
		argv []string
		want string
	}{
		{[]string{}, "--url is required"},
		{[]string{"--url", "http://10.1.2.3/mcp", "--tool", "echo"}, "only loopback targets"},
		{[]string{"--url", "ftp://127.0.0.1/mcp"}, "want an http:// or https:// URL"},
		{[]string{"--url", "http://127.0.0.1:1/mcp", "--workload", "soak"}, `--workload "soak": unknown workload; valid: discovery, call`},
		{[]string{"--url", "http://127.0.0.1:1/mcp", "--tool", "echo", "--protocol", "2024-11-05"}, "valid: 2025-03-26, 2025-06-18, 2026-07-28"},
		{[]string{"--url", "http://127.0.0.1:1/mcp"}, "--tool is required"},
		{[]string{"--url", "http://127.0.0.1:1/mcp", "--tool", "echo", "--concurrency", "0"}, "--concurrency 0"},
		{[]string{"--url", "http://127.0.0.1:1/mcp", "--tool", "echo", "--duration", "0"}, "--duration 0"},
		{[]string{"--url", "http://127.0.0.1:1/mcp", "--tool", "echo", "--rate", "-5"}, "--rate -5"},
		{[]string{"--url", "http://127.0.0.1:1/mcp", "--tool", "echo", "--max-calls", "0"}, "--max-calls 0"},
		{[]string{"--url", "http://127.0.0.1:1/mcp", "--tool", "echo", "--args", "[1]"}, "--args: arguments must be a JSON object"},
		{[]string{"--url", "http://127.0.0.1:1/mcp", "--tool", "echo", "--args-file", argsFile}, "template uses {{id}}"},
		{[]string{"--url", "http://127.0.0.1:1/mcp", "--tool", "echo", "--rate", "10", "--concurrency", "4", "--max-outstanding", "2"}, "--max-outstanding 2"},
		{[]string{"--url", "http://127.0.0.1:1/mcp", "--tool", "echo", "--header", "novalue"}, "want 'Name: value'"},
		{[]string{"--bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"--url", "http://127.0.0.1:1/mcp", "extra"}, `unexpected argument "extra"`},
	}
	for _, tc := range cases {
		var stdout, stderr bytes.Buffer
		code := run(tc.argv, &stdout, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), tc.want) || stdout.Len() != 0 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", tc.argv, code, stderr.String(), tc.want)
		}
	}
}

func TestHelpAndVersion(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"--help"}, &stdout, &stderr); code != 0 || !strings.Contains(stderr.String(), "-concurrency") {
		t.Errorf("--help: exit %d, output %q", code, stderr.String())
	}
	stdout.Reset()
	if code := run([]string{"--version"}, &stdout, &stderr); code != 0 || !strings.HasPrefix(stdout.String(), "mcp-load ") {
		t.Errorf("--version: exit %d, %q", code, stdout.String())
	}
}

func TestUnreachableServerExits1(t *testing.T) {
	srv := httptest.NewServer(nil)
	url := srv.URL + "/mcp"
	srv.Close()
	var stdout, stderr bytes.Buffer
	code := run([]string{"--url", url, "--tool", "echo", "--duration", "0.2", "--progress-interval", "0"}, &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "initialize against") || stdout.Len() != 0 {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
}

// The report carries every documented top-level field.
func TestReportDocument(t *testing.T) {
	srv := httptest.NewServer(trivial.Handler(trivial.Options{}))
	defer srv.Close()
	var stdout, stderr bytes.Buffer
	code := run([]string{"--url", srv.URL, "--tool", "echo", "--args", `{"text":"x"}`, "--concurrency", "2",
		"--duration", "0.5", "--warmup", "0.2", "--progress-interval", "0.2"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var doc map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		t.Fatalf("stdout is not one JSON document: %v\n%s", err, stdout.String())
	}
	for _, k := range []string{"tool", "version", "protocol", "mode", "concurrency", "rate", "duration_s", "warmup_s", "calls",
		"errors", "throughput_per_s", "latency_ms", "cpu", "server", "started_at"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("report lacks %q", k)
		}
	}
	for _, k := range []string{"p50", "p90", "p95", "p99", "p999", "max", "mean"} {
		if _, ok := doc["latency_ms"].(map[string]any)[k]; !ok {
			t.Errorf("latency_ms lacks %q", k)
		}
	}
	for _, k := range []string{"user_s", "sys_s", "per_call_us"} {
		if _, ok := doc["cpu"].(map[string]any)[k]; !ok {
			t.Errorf("cpu lacks %q", k)
		}
	}
	if !strings.Contains(stderr.String(), "mcp-load: t=") {
		t.Errorf("no progress lines on stderr: %q", stderr.String())
	}
}
