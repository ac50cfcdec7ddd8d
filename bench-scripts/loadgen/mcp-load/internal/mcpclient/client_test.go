package mcpclient_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"samebox/bench-scripts/loadgen/mcp-load/internal/mcpclient"
	"samebox/bench-scripts/loadgen/mcp-load/internal/trivial"
)

func newConfig(url, protocol string) *mcpclient.Config {
	return &mcpclient.Config{
		Endpoint:   url,
		Protocol:   protocol,
		HTTPClient: mcpclient.NewHTTPClient(4),
		ClientInfo: mcpclient.Implementation{Name: "mcp-load-test", Version: "0"},
		Timeout:    5 * time.Second,
	}
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}

// echoText extracts content[0].text of a tools/call result.
func echoText(t *testing.T, result json.RawMessage) string {
	t.Helper()
	var r struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(result, &r); err != nil || len(r.Content) == 0 {
		t.Fatalf("result %s: no text content (%v)", result, err)
	}
	return r.Content[0].Text
}

// TestAgainstSDKServer runs the whole client surface against the official Go
// SDK server in every transport variant it offers.
func TestAgainstSDKServer(t *testing.T) {
	cases := []struct {
		protocol            string
		jsonResp, stateless bool
		wantSession         bool
	}{
		{mcpclient.Protocol20250326, false, false, true},
		{mcpclient.Protocol20250326, true, false, true},
		{mcpclient.Protocol20250618, false, false, true},
		{mcpclient.Protocol20250618, true, false, true},
		{mcpclient.Protocol20250618, true, true, false},
		{mcpclient.Protocol20260728, false, true, false},
		{mcpclient.Protocol20260728, true, true, false},
	}
	for _, tc := range cases {
		name := fmt.Sprintf("%s/json=%v/stateless=%v", tc.protocol, tc.jsonResp, tc.stateless)
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(trivial.Handler(trivial.Options{JSONResponse: tc.jsonResp, Stateless: tc.stateless}))
			defer srv.Close()
			s := mcpclient.NewSession(newConfig(srv.URL, tc.protocol))
			c := ctx(t)
			if err := s.Initialize(c); err != nil {
				t.Fatalf("initialize: %v", err)
			}
			if got := s.SessionID() != ""; got != tc.wantSession {
				t.Errorf("session id %q, want present=%v", s.SessionID(), tc.wantSession)
			}
			if s.NegotiatedProtocol() != tc.protocol {
				t.Errorf("negotiated %q, want %q", s.NegotiatedProtocol(), tc.protocol)
			}
			tools, err := s.ListTools(c)
			if err != nil {
				t.Fatalf("tools/list: %v", err)
			}
			if strings.Join(tools, ",") != "echo,fail,noop" {
				t.Errorf("tools %v, want echo, fail, noop", tools)
			}
			for i := 0; i < 3; i++ {
				resp, err := s.CallTool(c, "echo", json.RawMessage(fmt.Sprintf(`{"text":"hello %d"}`, i)))
				if err != nil {
					t.Fatalf("echo: %v", err)
				}
				if got := echoText(t, resp.Result); got != fmt.Sprintf("hello %d", i) {
					t.Errorf("echo returned %q", got)
				}
			}
			if _, err := s.CallTool(c, "noop", json.RawMessage(`{}`)); err != nil {
				t.Errorf("noop: %v", err)
			}
			_, err = s.CallTool(c, "fail", json.RawMessage(`{}`))
			if mcpclient.KindOf(err) != mcpclient.KindToolError {
				t.Errorf("fail tool: got %v, want kind %s", err, mcpclient.KindToolError)
			}
			_, err = s.CallTool(c, "no_such_tool", json.RawMessage(`{}`))
			if k := mcpclient.KindOf(err); !strings.HasPrefix(k, mcpclient.KindJSONRPCPrefix) {
				t.Errorf("unknown tool: got %v (kind %s), want a JSON-RPC error", err, k)
			}
			if s.ServerInfo.Name != trivial.Name || s.ServerInfo.Version != trivial.Version {
				t.Errorf("server info %+v, want %s %s", s.ServerInfo, trivial.Name, trivial.Version)
			}
			s.Close(c)
		})
	}
}

// A 2026-07-28 request to a session-only server must surface the server's
// UnsupportedProtocolVersion error (-32022), not succeed silently.
func TestStatelessAgainstStatefulServerIsJSONRPCError(t *testing.T) {
	srv := httptest.NewServer(trivial.Handler(trivial.Options{}))
	defer srv.Close()
	s := mcpclient.NewSession(newConfig(srv.URL, mcpclient.Protocol20260728))
	_, err := s.CallTool(ctx(t), "echo", json.RawMessage(`{}`))
	if k := mcpclient.KindOf(err); k != "jsonrpc_-32022" {
		t.Fatalf("got %v (kind %s), want jsonrpc_-32022", err, k)
	}
}

// Interop cross-check: the SDK's own client and ours get the same answer
// from the same server.
func TestInteropWithSDKClient(t *testing.T) {
	srv := httptest.NewServer(trivial.Handler(trivial.Options{}))
	defer srv.Close()
	c := ctx(t)
	sdk := mcp.NewClient(&mcp.Implementation{Name: "sdk-client", Version: "0"}, nil)
	cs, err := sdk.Connect(c, &mcp.StreamableClientTransport{Endpoint: srv.URL, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatalf("SDK client connect: %v", err)
	}
	defer cs.Close()
	sdkRes, err := cs.CallTool(c, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "same"}})
	if err != nil {
		t.Fatalf("SDK client call: %v", err)
	}
	sdkText := sdkRes.Content[0].(*mcp.TextContent).Text

	ours := mcpclient.NewSession(newConfig(srv.URL, mcpclient.Protocol20250618))
	if err := ours.Initialize(c); err != nil {
		t.Fatal(err)
	}
	resp, err := ours.CallTool(c, "echo", json.RawMessage(`{"text":"same"}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := echoText(t, resp.Result); got != sdkText || got != "same" {
		t.Errorf("ours %q, SDK %q", got, sdkText)
	}
	sdkFail, err := cs.CallTool(c, &mcp.CallToolParams{Name: "fail", Arguments: map[string]any{}})
	if err != nil || !sdkFail.IsError {
		t.Fatalf("SDK client sees fail as %+v, %v; want isError", sdkFail, err)
	}
	if _, err := ours.CallTool(c, "fail", json.RawMessage(`{}`)); mcpclient.KindOf(err) != mcpclient.KindToolError {
		t.Errorf("ours: %v, want %s like the SDK client", err, mcpclient.KindToolError)
	}
}

// fakeServer is a scripted Streamable HTTP server for the cases the SDK
// server does not produce on demand.
type fakeServer struct {
	t       *testing.T
	mu      sync.Mutex
	reqs    []recorded
	handler func(w http.ResponseWriter, r *http.Request, msg map[string]any) // per-test behaviour
}

type recorded struct {
	header http.Header
	body   map[string]any
}

func (f *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	var msg map[string]any
	json.Unmarshal(b, &msg)
	f.mu.Lock()
	f.reqs = append(f.reqs, recorded{r.Header.Clone(), msg})
	f.mu.Unlock()
	if r.Method == http.MethodDelete {
		w.WriteHeader(http.StatusOK)
		return
	}
	if _, isCall := msg["id"]; !isCall {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	f.handler(w, r, msg)
}

func (f *fakeServer) requests(method string) []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []recorded
	for _, r := range f.reqs {
		if r.body["method"] == method {
			out = append(out, r)
		}
	}
	return out
}

func idOf(msg map[string]any) string {
	b, _ := json.Marshal(msg["id"])
	return string(b)
}

func writeJSON(w http.ResponseWriter, id, result string) {
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, id, result)
}

const initResult = `{"protocolVersion":"%s","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"9.9"}}`

func TestSSEResponseWithNotificationsAndOtherIDs(t *testing.T) {
	f := &fakeServer{t: t}
	f.handler = func(w http.ResponseWriter, r *http.Request, msg map[string]any) {
		id := idOf(msg)
		if msg["method"] == "initialize" {
			w.Header().Set("Mcp-Session-Id", "sess-1")
			writeJSON(w, id, fmt.Sprintf(initResult, mcpclient.Protocol20250618))
			return
		}
		w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
		// A priming event with no data, a comment, a progress notification,
		// a response for another id, a multi-line data field, then ours.
		fmt.Fprint(w, "id: 0\ndata:\n\n")
		fmt.Fprint(w, ": keep-alive\n\n")
		fmt.Fprint(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progress\":1}}\n\n")
		fmt.Fprint(w, "data: {\"jsonrpc\":\"2.0\",\"id\":999,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"wrong\"}]}}\n\n")
		fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\r\ndata: \"result\":{\"content\":[{\"type\":\"text\",\"text\":\"right\"}]}}\r\n\r\n", id)
	}
	srv := httptest.NewServer(f)
	defer srv.Close()
	s := mcpclient.NewSession(newConfig(srv.URL, mcpclient.Protocol20250618))
	c := ctx(t)
	if err := s.Initialize(c); err != nil {
		t.Fatal(err)
	}
	resp, err := s.CallTool(c, "echo", json.RawMessage(`{"text":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := echoText(t, resp.Result); got != "right" {
		t.Errorf("picked %q, want the response with the matching id", got)
	}
	if s.ServerInfo.Name != "fake" || s.ServerInfo.Version != "9.9" {
		t.Errorf("server info %+v", s.ServerInfo)
	}
	// Header discipline of 2025-06-18.
	if inits := f.requests("initialize"); inits[0].header.Get("Mcp-Session-Id") != "" || inits[0].header.Get("MCP-Protocol-Version") != "" {
		t.Errorf("initialize must carry neither session nor protocol header: %v", inits[0].header)
	}
	if n := f.requests("notifications/initialized"); len(n) != 1 || n[0].header.Get("Mcp-Session-Id") != "sess-1" {
		t.Errorf("notifications/initialized sent %d times / without session: %v", len(n), n)
	}
	call := f.requests("tools/call")[0]
	if call.header.Get("Mcp-Session-Id") != "sess-1" || call.header.Get("MCP-Protocol-Version") != mcpclient.Protocol20250618 {
		t.Errorf("tools/call headers %v", call.header)
	}
	if acc := call.header.Get("Accept"); !strings.Contains(acc, "application/json") || !strings.Contains(acc, "text/event-stream") {
		t.Errorf("Accept %q must list both types", acc)
	}
}

func TestProtocol20250326HasNoVersionHeader(t *testing.T) {
	f := &fakeServer{t: t}
	f.handler = func(w http.ResponseWriter, r *http.Request, msg map[string]any) {
		if msg["method"] == "initialize" {
			w.Header().Set("Mcp-Session-Id", "s")
			writeJSON(w, idOf(msg), fmt.Sprintf(initResult, mcpclient.Protocol20250326))
			return
		}
		writeJSON(w, idOf(msg), `{"content":[]}`)
	}
	srv := httptest.NewServer(f)
	defer srv.Close()
	s := mcpclient.NewSession(newConfig(srv.URL, mcpclient.Protocol20250326))
	c := ctx(t)
	if err := s.Initialize(c); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CallTool(c, "noop", json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}
	if h := f.requests("tools/call")[0].header.Get("MCP-Protocol-Version"); h != "" {
		t.Errorf("2025-03-26 sent MCP-Protocol-Version %q; that revision does not define it", h)
	}
}

func TestReinitializeOn404(t *testing.T) {
	f := &fakeServer{t: t}
	var mu sync.Mutex
	sessions := 0
	live := ""
	f.handler = func(w http.ResponseWriter, r *http.Request, msg map[string]any) {
		mu.Lock()
		defer mu.Unlock()
		if msg["method"] == "initialize" {
			sessions++
			live = fmt.Sprintf("sess-%d", sessions)
			w.Header().Set("Mcp-Session-Id", live)
			writeJSON(w, idOf(msg), fmt.Sprintf(initResult, mcpclient.Protocol20250618))
			return
		}
		// The first session "expires" after one call.
		if r.Header.Get("Mcp-Session-Id") != live || (live == "sess-1" && len(f.requests("tools/call")) > 1) {
			live = ""
			http.Error(w, "session not found", http.StatusNotFound)
			return
		}
		writeJSON(w, idOf(msg), `{"content":[{"type":"text","text":"`+live+`"}]}`)
	}
	srv := httptest.NewServer(f)
	defer srv.Close()
	s := mcpclient.NewSession(newConfig(srv.URL, mcpclient.Protocol20250618))
	c := ctx(t)
	if err := s.Initialize(c); err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"sess-1", "sess-2", "sess-2"} {
		resp, err := s.CallTool(c, "echo", json.RawMessage(`{}`))
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if got := echoText(t, resp.Result); got != want {
			t.Errorf("call %d served by %s, want %s", i, got, want)
		}
	}
	if s.Reinits != 1 || s.SessionID() != "sess-2" {
		t.Errorf("reinits %d, session %q; want 1, sess-2", s.Reinits, s.SessionID())
	}
}

func TestSessionLostWhen404Persists(t *testing.T) {
	f := &fakeServer{t: t}
	f.handler = func(w http.ResponseWriter, r *http.Request, msg map[string]any) {
		if msg["method"] == "initialize" {
			w.Header().Set("Mcp-Session-Id", "s")
			writeJSON(w, idOf(msg), fmt.Sprintf(initResult, mcpclient.Protocol20250618))
			return
		}
		http.Error(w, "gone", http.StatusNotFound)
	}
	srv := httptest.NewServer(f)
	defer srv.Close()
	s := mcpclient.NewSession(newConfig(srv.URL, mcpclient.Protocol20250618))
	c := ctx(t)
	if err := s.Initialize(c); err != nil {
		t.Fatal(err)
	}
	_, err := s.CallTool(c, "echo", json.RawMessage(`{}`))
	if mcpclient.KindOf(err) != mcpclient.KindSessionLost {
		t.Fatalf("got %v, want %s", err, mcpclient.KindSessionLost)
	}
	if got := len(f.requests("initialize")); got != 2 {
		t.Errorf("initialize sent %d times, want 2 (original + one re-init)", got)
	}
}

func TestErrorKinds(t *testing.T) {
	cases := []struct {
		name     string
		respond  func(w http.ResponseWriter, id string)
		wantKind string
	}{
		{"isError JSON", func(w http.ResponseWriter, id string) {
			writeJSON(w, id, `{"content":[{"type":"text","text":"boom"}],"isError":true}`)
		}, mcpclient.KindToolError},
		{"isError SSE", func(w http.ResponseWriter, id string) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[],\"isError\":true}}\n\n", id)
		}, mcpclient.KindToolError},
		{"JSON-RPC error JSON", func(w http.ResponseWriter, id string) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"internal"}}`, id)
		}, "jsonrpc_-32603"},
		{"JSON-RPC error SSE", func(w http.ResponseWriter, id string) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"error\":{\"code\":-32602,\"message\":\"bad params\"}}\n\n", id)
		}, "jsonrpc_-32602"},
		{"HTTP 500", func(w http.ResponseWriter, id string) {
			http.Error(w, "oops", http.StatusInternalServerError)
		}, "http_500"},
		{"HTTP 400 with JSON-RPC body", func(w http.ResponseWriter, id string) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32020,"message":"Header mismatch"}}`, id)
		}, "jsonrpc_-32020"},
		{"SSE ends without response", func(w http.ResponseWriter, id string) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n")
		}, mcpclient.KindProtocol},
		{"wrong id in JSON", func(w http.ResponseWriter, id string) {
			writeJSON(w, "12345", `{"content":[]}`)
		}, mcpclient.KindProtocol},
		{"unexpected content type", func(w http.ResponseWriter, id string) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<html></html>")
		}, mcpclient.KindProtocol},
		{"MRTR input required", func(w http.ResponseWriter, id string) {
			writeJSON(w, id, `{"resultType":"input_required","inputRequests":{}}`)
		}, mcpclient.KindInputRequired},
		{"timeout", func(w http.ResponseWriter, id string) {
			time.Sleep(700 * time.Millisecond)
			writeJSON(w, id, `{"content":[]}`)
		}, mcpclient.KindTimeout},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeServer{t: t}
			f.handler = func(w http.ResponseWriter, r *http.Request, msg map[string]any) {
				if msg["method"] == "initialize" {
					w.Header().Set("Mcp-Session-Id", "s")
					writeJSON(w, idOf(msg), fmt.Sprintf(initResult, mcpclient.Protocol20250618))
					return
				}
				tc.respond(w, idOf(msg))
			}
			srv := httptest.NewServer(f)
			defer srv.Close()
			cfg := newConfig(srv.URL, mcpclient.Protocol20250618)
			cfg.Timeout = 300 * time.Millisecond
			s := mcpclient.NewSession(cfg)
			c := ctx(t)
			if err := s.Initialize(c); err != nil {
				t.Fatal(err)
			}
			_, err := s.CallTool(c, "echo", json.RawMessage(`{}`))
			if err == nil {
				t.Fatalf("no error, want kind %s", tc.wantKind)
			}
			if k := mcpclient.KindOf(err); k != tc.wantKind {
				t.Errorf("kind %s (%v), want %s", k, err, tc.wantKind)
			}
		})
	}
}

func TestTransportErrorWhenNothingListens(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	s := mcpclient.NewSession(newConfig(url, mcpclient.Protocol20250618))
	err := s.Initialize(ctx(t))
	if mcpclient.KindOf(err) != mcpclient.KindTransport {
		t.Fatalf("got %v, want %s", err, mcpclient.KindTransport)
	}
}

// The stateless revision sends no initialize and puts version, method, name
// and x-mcp-header values on every request.
func TestStatelessRequestShape(t *testing.T) {
	f := &fakeServer{t: t}
	f.handler = func(w http.ResponseWriter, r *http.Request, msg map[string]any) {
		switch msg["method"] {
		case "tools/list":
			writeJSON(w, idOf(msg), `{"tools":[{"name":"get row","inputSchema":{"type":"object","properties":{
				"region":{"type":"string","x-mcp-header":"Region"},
				"key":{"type":"object","properties":{"id":{"type":"integer","x-mcp-header":"Key-Id"}}},
				"query":{"type":"string"}}}}],
				"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"fake-modern","version":"2"}}}`)
		default:
			writeJSON(w, idOf(msg), `{"content":[],"resultType":"complete"}`)
		}
	}
	srv := httptest.NewServer(f)
	defer srv.Close()
	s := mcpclient.NewSession(newConfig(srv.URL, mcpclient.Protocol20260728))
	c := ctx(t)
	if err := s.Initialize(c); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ListTools(c); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CallTool(c, "get row", json.RawMessage(`{"region":"héllo","key":{"id":42},"query":"x"}`)); err != nil {
		t.Fatal(err)
	}
	if len(f.requests("initialize")) != 0 || len(f.requests("notifications/initialized")) != 0 {
		t.Error("stateless revision must not initialize")
	}
	if s.ServerInfo.Name != "fake-modern" {
		t.Errorf("server info from _meta: %+v", s.ServerInfo)
	}
	call := f.requests("tools/call")[0]
	h := call.header
	want := map[string]string{
		"MCP-Protocol-Version": mcpclient.Protocol20260728,
		"Mcp-Method":           "tools/call",
		"Mcp-Name":             "get row",
		"Mcp-Param-Region":     "=?base64?aMOpbGxv?=",
		"Mcp-Param-Key-Id":     "42",
		"Mcp-Session-Id":       "",
	}
	for k, v := range want {
		if h.Get(k) != v {
			t.Errorf("header %s = %q, want %q", k, h.Get(k), v)
		}
	}
	if h.Get("Mcp-Param-Query") != "" {
		t.Error("unannotated argument mirrored into a header")
	}
	params := call.body["params"].(map[string]any)
	meta, _ := params["_meta"].(map[string]any)
	if meta["io.modelcontextprotocol/protocolVersion"] != mcpclient.Protocol20260728 || meta["io.modelcontextprotocol/clientCapabilities"] == nil || meta["io.modelcontextprotocol/clientInfo"] == nil {
		t.Errorf("params._meta = %v", meta)
	}
	if params["name"] != "get row" {
		t.Errorf("params = %v", params)
	}
	list := f.requests("tools/list")[0]
	if list.header.Get("Mcp-Method") != "tools/list" || list.header.Get("Mcp-Name") != "" {
		t.Errorf("tools/list headers %v", list.header)
	}
}

func TestEncodeHeaderValue(t *testing.T) {
	for in, want := range map[string]string{
		"us-west1":           "us-west1",
		"Hello, 世界":          "=?base64?SGVsbG8sIOS4lueVjA==?=",
		" padded ":           "=?base64?IHBhZGRlZCA=?=",
		"line1\nline2":       "=?base64?bGluZTEKbGluZTI=?=",
		"=?base64?literal?=": "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=",
	} {
		if got := mcpclient.EncodeHeaderValue(in); got != want {
			t.Errorf("EncodeHeaderValue(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestHeaderBindingsRejectsInvalid(t *testing.T) {
	for _, schema := range []string{
		`{"properties":{"a":{"type":"string","x-mcp-header":"bad header"}}}`,
		`{"properties":{"a":{"type":"number","x-mcp-header":"A"}}}`,
		`{"properties":{"a":{"type":"string","x-mcp-header":"X"},"b":{"type":"string","x-mcp-header":"x"}}}`,
	} {
		if _, err := mcpclient.HeaderBindings(json.RawMessage(schema)); err == nil {
			t.Errorf("schema %s accepted, want rejection", schema)
		}
	}
}
