// Package mcpclient is a minimal MCP client for the Streamable HTTP transport,
// written for load generation: every request is one HTTP POST whose timing the
// caller controls, no background goroutines, no standalone GET stream.
//
// Supported protocol revisions:
//
//   - 2025-03-26 and 2025-06-18 (session era): initialize, then the
//     notifications/initialized notification; the Mcp-Session-Id the server
//     assigns is sent on every later request; from 2025-06-18 on the negotiated
//     version also goes into the MCP-Protocol-Version header. A 404 on a request
//     that carried a session id means the session is gone: the client
//     initializes a new session and retries the request once.
//   - 2026-07-28 (stateless): no initialize and no session. Every request
//     carries the protocol version, client info and client capabilities in
//     params._meta, plus the MCP-Protocol-Version, Mcp-Method and (for
//     tools/call) Mcp-Name headers, as the 2026-07-28 Streamable HTTP page of the
//     specification requires.
//
// Responses may be application/json or text/event-stream; for SSE the client
// reads events until the JSON-RPC response whose id matches the request.
package mcpclient

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/valyala/fastjson"
)

// Protocol revisions this client speaks.
const (
	Protocol20250326 = "2025-03-26"
	Protocol20250618 = "2025-06-18"
	Protocol20260728 = "2026-07-28"
)

// Protocols lists the supported revisions, oldest first (used in error messages).
var Protocols = []string{Protocol20250326, Protocol20250618, Protocol20260728}

// IsStateless reports whether a revision has no initialize handshake and no sessions.
func IsStateless(protocol string) bool { return protocol >= Protocol20260728 }

// Keys of params._meta defined by the 2026-07-28 revision.
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientInfo         = "io.modelcontextprotocol/clientInfo"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaServerInfo         = "io.modelcontextprotocol/serverInfo"
)

// Error kinds, the keys of the load report's errors.by_kind map. HTTP status
// and JSON-RPC error codes are appended to their prefix (http_503, jsonrpc_-32601).
const (
	KindTransport     = "transport"      // connection refused/reset, read failure
	KindTimeout       = "timeout"        // the per-request timeout expired
	KindHTTPPrefix    = "http_"          // non-2xx HTTP status
	KindJSONRPCPrefix = "jsonrpc_"       // JSON-RPC error object
	KindToolError     = "tool_is_error"  // tools/call result with isError: true
	KindProtocol      = "protocol"       // malformed or unexpected response
	KindInputRequired = "input_required" // 2026-07-28 MRTR result; not supported by this client
	KindSessionLost   = "session_lost"   // 404 again right after re-initializing
)

// CallError is a failed request, classified by Kind for the report.
type CallError struct {
	Kind   string
	Detail string
}

func (e *CallError) Error() string { return e.Kind + ": " + e.Detail }

// KindOf returns the error kind of err (KindTransport when err is not a *CallError).
func KindOf(err error) string {
	var ce *CallError
	if errors.As(err, &ce) {
		return ce.Kind
	}
	return KindTransport
}

// Implementation is the name/version pair of a client or server.
type Implementation struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Config is shared by all sessions of one load run.
type Config struct {
	Endpoint   string
	Protocol   string
	HTTPClient *http.Client
	ClientInfo Implementation
	// Timeout bounds each HTTP exchange (request, response and SSE stream).
	Timeout time.Duration
	// ExtraHeaders are added to every request (e.g. Authorization).
	ExtraHeaders map[string]string

	epOnce sync.Once
	ep     *endpoint
	pool   *connPool // idle connections of the raw HTTP client (transport.go)
}

// NewHTTPClient returns an HTTP/1.1 client whose idle pool keeps one
// connection per worker, so steady-state calls never pay a TCP handshake.
func NewHTTPClient(maxConns int) *http.Client {
	tr := &http.Transport{
		Proxy:               nil, // loopback targets: never route through a proxy
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        maxConns + 16,
		MaxIdleConnsPerHost: maxConns + 16,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
		ForceAttemptHTTP2:   false,
	}
	return &http.Client{Transport: tr}
}

// Session is one MCP client session. It is not safe for concurrent use: the
// load generator gives every worker its own Session.
type Session struct {
	cfg        *Config
	sessionID  string
	negotiated string // protocol version the server answered to initialize
	nextID     int64
	ServerInfo Implementation
	// Reinits counts sessions re-created after a 404.
	Reinits int64
	// headerBindings maps tool name -> x-mcp-header bindings (2026-07-28).
	headerBindings map[string][]HeaderBinding

	// Reused by every request of the session (transport.go): the request
	// bytes, the response body, its content type, its parsed JSON.
	wbuf     []byte
	rbuf     []byte
	ctypeBuf []byte
	idBuf    []byte
	bbuf     []byte
	resBuf   []byte
	scratch  []byte
	sc       *sseScanner
	lr       io.LimitedReader
	resp     rawResponse
	parser   fastjson.Parser
}

// NewSession returns an uninitialized session.
func NewSession(cfg *Config) *Session { return &Session{cfg: cfg} }

// SessionID is the server-assigned session id ("" for stateless revisions).
func (s *Session) SessionID() string { return s.sessionID }

// NegotiatedProtocol is the version the server chose at initialize, or the
// configured version for stateless revisions.
func (s *Session) NegotiatedProtocol() string {
	if s.negotiated != "" {
		return s.negotiated
	}
	return s.cfg.Protocol
}

// Response is the JSON-RPC result of one successful request. Result and
// Value belong to the session: they are valid until its next request (copy
// Result to keep it longer).
type Response struct {
	Result json.RawMessage
	// ReceivedAt is when the matching response was decoded, before the rest
	// of an SSE stream is drained: latency ends here.
	ReceivedAt time.Time
	// Value is the parsed result.
	Value *fastjson.Value
}

type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

type rpcMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// Initialize runs the session-era handshake: initialize, then
// notifications/initialized. For stateless revisions it is a no-op.
func (s *Session) Initialize(ctx context.Context) error {
	if IsStateless(s.cfg.Protocol) {
		return nil
	}
	s.sessionID = ""
	s.negotiated = ""
	params := map[string]any{
		"protocolVersion": s.cfg.Protocol,
		"capabilities":    map[string]any{},
		"clientInfo":      s.cfg.ClientInfo,
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	resp, sid, err := s.exchange(ctx, "initialize", "", raw, true)
	if err != nil {
		return err
	}
	var init struct {
		ProtocolVersion string         `json:"protocolVersion"`
		ServerInfo      Implementation `json:"serverInfo"`
	}
	if err := json.Unmarshal(resp.Result, &init); err != nil {
		return &CallError{KindProtocol, "initialize result: " + err.Error()}
	}
	if init.ProtocolVersion == "" {
		return &CallError{KindProtocol, "initialize result has no protocolVersion"}
	}
	s.negotiated = init.ProtocolVersion
	s.ServerInfo = init.ServerInfo
	s.sessionID = sid
	return s.notify(ctx, "notifications/initialized")
}

// Close ends the session with HTTP DELETE (session era only; errors are
// ignored because servers may answer 405 when they do not support it).
func (s *Session) Close(ctx context.Context) {
	if s.sessionID == "" {
		return
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, s.cfg.Endpoint, nil)
	if err != nil {
		return
	}
	s.setCommonHeaders(req, "", "")
	if resp, err := s.cfg.HTTPClient.Do(req); err == nil {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
	}
	s.sessionID = ""
}

// Call sends one JSON-RPC request with the given (already encoded) params and
// returns its result. JSON-RPC errors, HTTP errors and transport errors are
// returned as *CallError. In the session era a 404 triggers one
// re-initialization and one retry.
func (s *Session) Call(ctx context.Context, method, name string, params json.RawMessage) (*Response, error) {
	if IsStateless(s.cfg.Protocol) {
		var err error
		params, err = withStatelessMeta(params, s.cfg.Protocol, s.cfg.ClientInfo)
		if err != nil {
			return nil, &CallError{KindProtocol, "params: " + err.Error()}
		}
	}
	resp, _, err := s.exchange(ctx, method, name, params, false)
	var ce *CallError
	if err != nil && s.sessionID != "" && errors.As(err, &ce) && ce.Kind == KindHTTPPrefix+"404" {
		// The server forgot our session (restart, timeout): the spec says to
		// start a new one with initialize and resend.
		s.Reinits++
		if ierr := s.Initialize(ctx); ierr != nil {
			return nil, ierr
		}
		resp, _, err = s.exchange(ctx, method, name, params, false)
		if errors.As(err, &ce) && ce.Kind == KindHTTPPrefix+"404" {
			return nil, &CallError{KindSessionLost, ce.Detail}
		}
	}
	if err != nil {
		return nil, err
	}
	if IsStateless(s.cfg.Protocol) && s.ServerInfo.Name == "" {
		s.ServerInfo = serverInfoFromMeta(resp.Result)
	}
	return resp, nil
}

// CallToolResult is the part of a tools/call result the load generator checks.
type CallToolResult struct {
	IsError    bool   `json:"isError"`
	ResultType string `json:"resultType"`
}

// CallTool sends tools/call with pre-encoded arguments. A result with
// isError: true is returned as a KindToolError error.
func (s *Session) CallTool(ctx context.Context, tool string, args json.RawMessage) (*Response, error) {
	params := make([]byte, 0, len(tool)+len(args)+32)
	params = append(params, `{"name":`...)
	params = strconv.AppendQuote(params, tool)
	params = append(params, `,"arguments":`...)
	params = append(params, args...)
	params = append(params, '}')
	if bindings := s.headerBindings[tool]; len(bindings) > 0 {
		ctx = withParamHeaders(ctx, bindings, args)
	}
	resp, err := s.Call(ctx, "tools/call", tool, params)
	if err != nil {
		return nil, err
	}
	var r CallToolResult
	if v := resp.Value; v != nil {
		if v.Type() != fastjson.TypeObject {
			return nil, &CallError{KindProtocol, "tools/call result: not an object: " + truncate(string(resp.Result), 120)}
		}
		if f := v.Get("isError"); f != nil {
			if f.Type() != fastjson.TypeTrue && f.Type() != fastjson.TypeFalse && f.Type() != fastjson.TypeNull {
				return nil, &CallError{KindProtocol, "tools/call result: isError is not a boolean"}
			}
			r.IsError = f.Type() == fastjson.TypeTrue
		}
		if f := v.Get("resultType"); f != nil && f.Type() == fastjson.TypeString {
			r.ResultType = string(f.GetStringBytes())
		}
	} else if err := json.Unmarshal(resp.Result, &r); err != nil {
		return nil, &CallError{KindProtocol, "tools/call result: " + err.Error()}
	}
	if r.ResultType == "input_required" {
		return nil, &CallError{KindInputRequired, "server asked for client input (MRTR), which mcp-load does not provide"}
	}
	if r.IsError {
		return nil, &CallError{KindToolError, truncate(string(resp.Result), 200)}
	}
	return resp, nil
}

// ListTools sends tools/list and returns the tool names. For 2026-07-28 it
// also records x-mcp-header bindings so later tools/call requests mirror the
// annotated arguments into Mcp-Param-* headers.
func (s *Session) ListTools(ctx context.Context) ([]string, error) {
	resp, err := s.Call(ctx, "tools/list", "", json.RawMessage(`{}`))
	if err != nil {
		return nil, err
	}
	var list struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(resp.Result, &list); err != nil {
		return nil, &CallError{KindProtocol, "tools/list result: " + err.Error()}
	}
	names := make([]string, 0, len(list.Tools))
	for _, t := range list.Tools {
		names = append(names, t.Name)
		if IsStateless(s.cfg.Protocol) {
			if b, err := HeaderBindings(t.InputSchema); err == nil && len(b) > 0 {
				if s.headerBindings == nil {
					s.headerBindings = map[string][]HeaderBinding{}
				}
				s.headerBindings[t.Name] = b
			}
		}
	}
	return names, nil
}

// Discover sends the 2026-07-28 server/discover request.
func (s *Session) Discover(ctx context.Context) (*Response, error) {
	return s.Call(ctx, "server/discover", "", json.RawMessage(`{}`))
}

func (s *Session) notify(ctx context.Context, method string) error {
	body := []byte(`{"jsonrpc":"2.0","method":"` + method + `"}`)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.cfg.Endpoint, bytes.NewReader(body))
	if err != nil {
		return &CallError{KindTransport, err.Error()}
	}
	s.setCommonHeaders(req, method, "")
	resp, err := s.cfg.HTTPClient.Do(req)
	if err != nil {
		return classifyTransport(err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return &CallError{KindHTTPPrefix + strconv.Itoa(resp.StatusCode), method + ": HTTP " + resp.Status}
	}
	return nil
}

type paramHeadersKey struct{}

func withParamHeaders(ctx context.Context, b []HeaderBinding, args json.RawMessage) context.Context {
	h := ParamHeaders(b, args)
	if len(h) == 0 {
		return ctx
	}
	return context.WithValue(ctx, paramHeadersKey{}, h)
}

func (s *Session) setCommonHeaders(req *http.Request, method, name string) {
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	for k, v := range s.cfg.ExtraHeaders {
		h.Set(k, v)
	}
	if s.sessionID != "" {
		h.Set("Mcp-Session-Id", s.sessionID)
	}
	switch {
	case IsStateless(s.cfg.Protocol):
		h.Set("MCP-Protocol-Version", s.cfg.Protocol)
		if method != "" {
			h.Set("Mcp-Method", method)
		}
		if name != "" {
			h.Set("Mcp-Name", EncodeHeaderValue(name))
		}
		if ph, ok := req.Context().Value(paramHeadersKey{}).(map[string]string); ok {
			for k, v := range ph {
				h.Set(k, v)
			}
		}
	case s.negotiated != "" && s.negotiated >= Protocol20250618:
		// 2025-06-18 requires the negotiated version on every request after
		// initialize; 2025-03-26 did not define the header.
		h.Set("MCP-Protocol-Version", s.negotiated)
	}
}

// exchange POSTs one request and waits for its response. It returns the
// Mcp-Session-Id the server sent when isInit.
func (s *Session) exchange(ctx context.Context, method, name string, params json.RawMessage, isInit bool) (*Response, string, error) {
	s.nextID++
	id := s.nextID
	body := s.bbuf[:0]
	body = append(body, `{"jsonrpc":"2.0","id":`...)
	body = strconv.AppendInt(body, id, 10)
	body = append(body, `,"method":`...)
	body = strconv.AppendQuote(body, method)
	if len(params) > 0 {
		body = append(body, `,"params":`...)
		body = append(body, params...)
	}
	body = append(body, '}')
	s.bbuf = body
	s.idBuf = strconv.AppendInt(s.idBuf[:0], id, 10)

	ep := s.cfg.endpoint()
	if !ep.raw {
		return s.exchangeHTTP(ctx, method, name, body, isInit)
	}
	r, err := s.rawPost(ctx, ep, method, name, body, isInit, isInit)
	if err != nil {
		return nil, "", err
	}
	defer s.release(r)
	if r.status < 200 || r.status > 299 {
		return nil, "", httpError(method, r.status, r.statusTxt, asciiEqualFold(r.ctype, "application/json"), r.body)
	}
	resp, err := s.decode(method, r.ctype, s.ctypeBuf, r.status, r.body, r.sse)
	if r.sse != nil {
		s.drainSSE(r)
	}
	if err != nil {
		return nil, "", err
	}
	return resp, r.sessionID, nil
}

// exchangeHTTP is exchange over net/http (endpoints that are not plain http).
func (s *Session) exchangeHTTP(ctx context.Context, method, name string, body []byte, isInit bool) (*Response, string, error) {
	if s.cfg.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.cfg.Timeout)
		defer cancel()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.cfg.Endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, "", &CallError{KindTransport, err.Error()}
	}
	if isInit {
		// No session id, no protocol header yet.
		saved := s.negotiated
		s.negotiated = ""
		s.setCommonHeaders(req, method, name)
		s.negotiated = saved
	} else {
		s.setCommonHeaders(req, method, name)
	}
	resp, err := s.cfg.HTTPClient.Do(req)
	if err != nil {
		return nil, "", classifyTransport(err)
	}
	defer resp.Body.Close()
	ctype, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		return nil, "", httpError(method, resp.StatusCode, resp.Status, ctype == "application/json", b)
	}
	var b []byte
	var sse io.Reader
	if ctype == "text/event-stream" {
		sse = resp.Body
	} else if ctype == "application/json" {
		if b, err = io.ReadAll(io.LimitReader(resp.Body, 64<<20)); err != nil {
			return nil, "", classifyTransport(err)
		}
	}
	out, err := s.decode(method, []byte(ctype), []byte(resp.Header.Get("Content-Type")), resp.StatusCode, b, sse)
	if sse != nil {
		drainBounded(resp.Body)
	}
	if err != nil {
		return nil, "", err
	}
	return out, resp.Header.Get("Mcp-Session-Id"), nil
}

func httpError(method string, status int, statusTxt string, isJSON bool, b []byte) error {
	// A JSON-RPC error body (e.g. 400 HeaderMismatch, 404 method not
	// found in 2026-07-28) is more specific than the status.
	if isJSON && status != http.StatusNotFound {
		var m rpcMessage
		if json.Unmarshal(b, &m) == nil && m.Error != nil {
			return rpcErr(m.Error)
		}
	}
	return &CallError{KindHTTPPrefix + strconv.Itoa(status), method + ": HTTP " + statusTxt + ": " + truncate(string(b), 200)}
}

// decode finds the JSON-RPC response to s.idBuf in a JSON body or an event
// stream, and returns its result or its error. The whole message is parsed
// (and so checked to be JSON) once, with the session's parser.
func (s *Session) decode(method string, ctype, ctypeRaw []byte, status int, body []byte, sse io.Reader) (*Response, error) {
	var v *fastjson.Value
	switch {
	case asciiEqualFold(ctype, "application/json"):
		pv, err := s.parser.ParseBytes(body)
		if err != nil || pv.Type() != fastjson.TypeObject {
			return nil, &CallError{KindProtocol, method + ": response is not a JSON-RPC object: " + truncate(string(body), 120)}
		}
		if !s.isResponse(pv, false) {
			return nil, &CallError{KindProtocol, fmt.Sprintf("%s: response id %s, want %s", method, rawOf(pv.Get("id")), s.idBuf)}
		}
		v = pv
	case asciiEqualFold(ctype, "text/event-stream"):
		pv, err := s.readSSE(sse)
		if err != nil {
			return nil, err
		}
		v = pv
	default:
		return nil, &CallError{KindProtocol, fmt.Sprintf("%s: unexpected Content-Type %q (status %d)", method, ctypeRaw, status)}
	}
	received := time.Now()
	if e := v.Get("error"); e != nil && e.Type() != fastjson.TypeNull {
		if e.Type() != fastjson.TypeObject {
			return nil, &CallError{KindProtocol, method + ": response's error is not an object"}
		}
		return nil, rpcErr(&rpcError{Code: e.GetInt("code"), Message: string(e.GetStringBytes("message"))})
	}
	res := v.Get("result")
	if res == nil {
		return nil, &CallError{KindProtocol, method + ": response has neither result nor error"}
	}
	s.resBuf = res.MarshalTo(s.resBuf[:0])
	return &Response{Result: s.resBuf, Value: res, ReceivedAt: received}, nil
}

// isResponse reports whether v is the response to the request s.idBuf (not a
// request or notification of the server's when skipRequests).
func (s *Session) isResponse(v *fastjson.Value, skipRequests bool) bool {
	if skipRequests {
		if m := v.Get("method"); m != nil && !(m.Type() == fastjson.TypeString && len(m.GetStringBytes()) == 0) {
			return false
		}
	}
	idv := v.Get("id")
	if idv == nil || idv.Type() != fastjson.TypeNumber {
		return false
	}
	return bytes.Equal(idv.MarshalTo(s.scratch[:0]), s.idBuf)
}

func rawOf(v *fastjson.Value) string {
	if v == nil {
		return ""
	}
	return string(v.MarshalTo(nil))
}

// readSSE reads server-sent events until the JSON-RPC response with id
// s.idBuf. Notifications and other messages on the stream are skipped;
// events with empty data (priming events) are ignored.
func (s *Session) readSSE(body io.Reader) (*fastjson.Value, error) {
	if s.sc == nil {
		s.sc = &sseScanner{}
	}
	sc := bufio.NewScanner(body)
	sc.Buffer(s.sc.buf[:0], 64<<20)
	data := &s.sc.data
	data.Reset()
	dispatch := func() (*fastjson.Value, error) {
		defer data.Reset()
		if data.Len() == 0 {
			return nil, nil
		}
		v, err := s.parser.ParseBytes(data.Bytes())
		if err != nil || v.Type() != fastjson.TypeObject {
			return nil, &CallError{KindProtocol, "SSE event data is not JSON-RPC: " + truncate(data.String(), 120)}
		}
		if s.isResponse(v, true) {
			return v, nil
		}
		return nil, nil
	}
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 {
			if m, err := dispatch(); m != nil || err != nil {
				return m, err
			}
			continue
		}
		if line[0] == ':' {
			continue // comment / keep-alive
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
		if string(field) == "data" {
			if data.Len() > 0 {
				data.WriteByte('\n')
			}
			data.Write(value)
		}
		// event, id and retry fields do not matter for a single response.
	}
	if err := sc.Err(); err != nil {
		return nil, classifyTransport(err)
	}
	// A stream may end without a trailing blank line.
	if m, err := dispatch(); m != nil || err != nil {
		return m, err
	}
	return nil, &CallError{KindProtocol, "SSE stream ended without the response for id " + string(s.idBuf)}
}

// sseScanner holds the buffers of readSSE between requests.
type sseScanner struct {
	buf  [16 << 10]byte
	data bytes.Buffer
}

// drainBounded reads what is left of an SSE stream so the connection can be
// reused, but gives up after a short time: a server that keeps the stream
// open after the final response must not stall the worker.
func drainBounded(body io.ReadCloser) {
	t := time.AfterFunc(200*time.Millisecond, func() { body.Close() })
	io.Copy(io.Discard, io.LimitReader(body, 1<<20))
	t.Stop()
}

func rpcErr(e *rpcError) *CallError {
	return &CallError{KindJSONRPCPrefix + strconv.Itoa(e.Code), truncate(e.Message, 200)}
}

func classifyTransport(err error) *CallError {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) {
		return &CallError{KindTimeout, err.Error()}
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return &CallError{KindTimeout, err.Error()}
	}
	return &CallError{KindTransport, err.Error()}
}

// withStatelessMeta adds the 2026-07-28 per-request _meta (protocol version,
// client info, client capabilities) to encoded params. The common case (an
// object without _meta, as built by this package) is a byte splice, so the
// per-call cost stays small; anything else goes through a decode/encode.
func withStatelessMeta(params json.RawMessage, protocol string, client Implementation) (json.RawMessage, error) {
	p := bytes.TrimSpace(params)
	if len(p) >= 2 && p[0] == '{' && !bytes.Contains(p, []byte(`"_meta"`)) {
		pv, _ := json.Marshal(protocol)
		ci, _ := json.Marshal(client)
		out := make([]byte, 0, len(p)+len(ci)+160)
		out = append(out, `{"_meta":{"`+metaProtocolVersion+`":`...)
		out = append(out, pv...)
		out = append(out, `,"`+metaClientInfo+`":`...)
		out = append(out, ci...)
		out = append(out, `,"`+metaClientCapabilities+`":{}}`...)
		rest := bytes.TrimSpace(p[1:])
		if len(rest) > 0 && rest[0] != '}' {
			out = append(out, ',')
		}
		out = append(out, rest...)
		return out, nil
	}
	var m map[string]json.RawMessage
	if len(params) == 0 {
		m = map[string]json.RawMessage{}
	} else if err := json.Unmarshal(params, &m); err != nil {
		return nil, err
	}
	meta := map[string]json.RawMessage{}
	if raw, ok := m["_meta"]; ok {
		if err := json.Unmarshal(raw, &meta); err != nil {
			return nil, err
		}
	}
	pv, _ := json.Marshal(protocol)
	ci, _ := json.Marshal(client)
	meta[metaProtocolVersion] = pv
	meta[metaClientInfo] = ci
	meta[metaClientCapabilities] = json.RawMessage(`{}`)
	rawMeta, err := json.Marshal(meta)
	if err != nil {
		return nil, err
	}
	m["_meta"] = rawMeta
	return json.Marshal(m)
}

func serverInfoFromMeta(result json.RawMessage) Implementation {
	var r struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	var impl Implementation
	if json.Unmarshal(result, &r) == nil {
		if raw, ok := r.Meta[metaServerInfo]; ok {
			json.Unmarshal(raw, &impl)
		}
	}
	return impl
}

// EncodeHeaderValue applies the 2026-07-28 value encoding for Mcp-Name and
// Mcp-Param-* headers: plain visible ASCII stays as is; anything else (and
// anything that looks like the sentinel) becomes =?base64?...?=.
func EncodeHeaderValue(v string) string {
	safe := v != "" && v[0] != ' ' && v[0] != '\t' && v[len(v)-1] != ' ' && v[len(v)-1] != '\t'
	for i := 0; safe && i < len(v); i++ {
		c := v[i]
		if !(c == ' ' || c == '\t' || (c >= 0x21 && c <= 0x7e)) {
			safe = false
		}
	}
	if safe && strings.HasPrefix(v, "=?base64?") && strings.HasSuffix(v, "?=") {
		safe = false
	}
	if safe {
		return v
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(v)) + "?="
}

func truncate(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
