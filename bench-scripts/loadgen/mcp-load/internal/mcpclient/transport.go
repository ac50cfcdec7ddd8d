package mcpclient

// The POSTs of JSON-RPC requests go over this package's own HTTP/1.1 client:
// keep-alive connections from a pool shared by the sessions of one Config, the
// request (headers and body) written with one write from a per-session buffer,
// the response's status line and the few headers the client needs read in
// place, the body read into a per-session buffer. Unlike net/http it starts no
// goroutines per connection and allocates nothing per request in the steady
// state, which is most of a load generator's own CPU per call. Plain http only
// (the load targets are loopback); other schemes go through net/http.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http/httputil"
	"net/url"
	"strconv"
	"sync"
	"time"
)

// endpoint is the parsed Config.Endpoint.
type endpoint struct {
	raw  bool   // plain http: use the raw client
	addr string // host:port to dial
	host string // Host header
	path string // request target
	err  error
}

type connPool struct {
	mu   sync.Mutex
	idle []*rawConn
}

// maxIdle bounds the pool (net/http's MaxIdleConnsPerHost played this part).
const maxIdle = 4096

type rawConn struct {
	c  net.Conn
	br *bufio.Reader
	io *fdIO // nil: plain net.Conn reads and writes
}

func (cfg *Config) endpoint() *endpoint {
	cfg.epOnce.Do(func() {
		ep := &endpoint{}
		u, err := url.Parse(cfg.Endpoint)
		switch {
		case err != nil:
			ep.err = err
		case u.Scheme == "http" && u.Host != "":
			ep.raw = true
			ep.host = u.Host
			ep.addr = u.Host
			if u.Port() == "" {
				ep.addr = net.JoinHostPort(u.Hostname(), "80")
			}
			ep.path = u.RequestURI()
		}
		cfg.ep = ep
		cfg.pool = &connPool{}
	})
	return cfg.ep
}

func (p *connPool) get() *rawConn {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.idle); n > 0 {
		c := p.idle[n-1]
		p.idle = p.idle[:n-1]
		return c
	}
	return nil
}

func (p *connPool) put(c *rawConn) {
	p.mu.Lock()
	if len(p.idle) < maxIdle {
		p.idle = append(p.idle, c)
		p.mu.Unlock()
		return
	}
	p.mu.Unlock()
	c.c.Close()
}

// CloseIdle closes the pooled connections of the raw client.
func (cfg *Config) CloseIdle() {
	if cfg.pool == nil {
		return
	}
	cfg.pool.mu.Lock()
	idle := cfg.pool.idle
	cfg.pool.idle = nil
	cfg.pool.mu.Unlock()
	for _, c := range idle {
		c.c.Close()
	}
}

var aLongTimeAgo = time.Unix(1, 0)

// rawResponse is what exchange needs from an HTTP response.
type rawResponse struct {
	status    int
	statusTxt string
	ctype     []byte // media type, parameters cut (points into the session's ctypeBuf)
	sessionID string // only read when wantSession
	body      []byte // JSON answers and error bodies (points into the session's buffer)
	sse       io.Reader
	conn      *rawConn
	reusable  bool
}

var (
	errMalformed = errors.New("malformed HTTP response")
)

// appendHeader writes "Name: value\r\n", refusing a value with CR or LF (as net/http does).
func appendHeader(b []byte, name, value string) ([]byte, error) {
	for i := 0; i < len(value); i++ {
		if value[i] == '\r' || value[i] == '\n' {
			return b, errors.New("invalid header field value for " + name)
		}
	}
	b = append(b, name...)
	b = append(b, ": "...)
	b = append(b, value...)
	return append(b, "\r\n"...), nil
}

// rawPost sends one POST with body and reads the response head; a JSON or
// error body is read whole, an SSE body is returned as a reader. The caller
// must call s.release(resp) when done with it.
func (s *Session) rawPost(ctx context.Context, ep *endpoint, method, name string, body []byte, isInit, wantSession bool) (*rawResponse, error) {
	if err := ctx.Err(); err != nil {
		return nil, classifyTransport(err)
	}
	b := s.wbuf[:0]
	b = append(b, "POST "...)
	b = append(b, ep.path...)
	b = append(b, " HTTP/1.1\r\nHost: "...)
	b = append(b, ep.host...)
	b = append(b, "\r\nUser-Agent: mcp-load\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"...)
	var err error
	for k, v := range s.cfg.ExtraHeaders {
		if b, err = appendHeader(b, k, v); err != nil {
			return nil, &CallError{KindTransport, err.Error()}
		}
	}
	if !isInit {
		if s.sessionID != "" {
			if b, err = appendHeader(b, "Mcp-Session-Id", s.sessionID); err != nil {
				return nil, &CallError{KindTransport, err.Error()}
			}
		}
		switch {
		case IsStateless(s.cfg.Protocol):
			b = append(b, "MCP-Protocol-Version: "...)
			b = append(b, s.cfg.Protocol...)
			b = append(b, "\r\n"...)
			if method != "" {
				if b, err = appendHeader(b, "Mcp-Method", method); err != nil {
					return nil, &CallError{KindTransport, err.Error()}
				}
			}
			if name != "" {
				b, _ = appendHeader(b, "Mcp-Name", EncodeHeaderValue(name))
			}
			if ph, ok := ctx.Value(paramHeadersKey{}).(map[string]string); ok {
				for k, v := range ph {
					if b, err = appendHeader(b, k, v); err != nil {
						return nil, &CallError{KindTransport, err.Error()}
					}
				}
			}
		case s.negotiated != "" && s.negotiated >= Protocol20250618:
			b = append(b, "MCP-Protocol-Version: "...)
			b = append(b, s.negotiated...)
			b = append(b, "\r\n"...)
		}
	} else if IsStateless(s.cfg.Protocol) {
		b = append(b, "MCP-Protocol-Version: "...)
		b = append(b, s.cfg.Protocol...)
		b = append(b, "\r\n"...)
	}
	b = append(b, "Content-Length: "...)
	b = strconv.AppendInt(b, int64(len(body)), 10)
	b = append(b, "\r\n\r\n"...)
	b = append(b, body...)
	s.wbuf = b

	deadline := time.Time{}
	if s.cfg.Timeout > 0 {
		deadline = time.Now().Add(s.cfg.Timeout)
	}
	if d, ok := ctx.Deadline(); ok && (deadline.IsZero() || d.Before(deadline)) {
		deadline = d
	}
	// At most two attempts: a pooled connection the server closed while it was
	// idle fails before any byte of an answer arrives; then a new one is dialled.
	for attempt := 0; ; attempt++ {
		pc, reused, err := s.acquire(ctx, ep, deadline)
		if err != nil {
			return nil, err
		}
		resp, got, err := s.roundTrip(ctx, pc, deadline, wantSession)
		if err == nil {
			return resp, nil
		}
		pc.c.Close()
		if reused && !got && attempt == 0 && ctx.Err() == nil && !isTimeout(err) {
			continue
		}
		if cerr := ctx.Err(); cerr != nil {
			return nil, classifyTransport(cerr)
		}
		var ce *CallError
		if errors.As(err, &ce) {
			return nil, ce
		}
		return nil, classifyTransport(err)
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

func (s *Session) acquire(ctx context.Context, ep *endpoint, deadline time.Time) (*rawConn, bool, error) {
	if pc := s.cfg.pool.get(); pc != nil {
		return pc, true, nil
	}
	d := net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second, Deadline: deadline}
	c, err := d.DialContext(ctx, "tcp", ep.addr)
	if err != nil {
		return nil, false, classifyTransport(err)
	}
	pc := &rawConn{c: c}
	var r io.Reader = c
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetNoDelay(true)
		if f := newFdIO(tc); f != nil {
			pc.io = f
			r = f
		}
	}
	pc.br = bufio.NewReaderSize(r, 16<<10)
	return pc, false, nil
}

// roundTrip writes s.wbuf on pc and reads the answer's head (and body unless
// it is an event stream). got reports whether any byte of the answer arrived.
func (s *Session) roundTrip(ctx context.Context, pc *rawConn, deadline time.Time, wantSession bool) (resp *rawResponse, got bool, err error) {
	pc.c.SetDeadline(deadline)
	if ctx.Done() != nil {
		stop := context.AfterFunc(ctx, func() { pc.c.SetDeadline(aLongTimeAgo) })
		defer func() {
			if !stop() && err == nil {
				// Cancelled while in use: the connection may carry a past
				// deadline now, so it is not reused.
				resp.reusable = false
			}
		}()
	}
	if pc.io != nil {
		_, err = pc.io.Write(s.wbuf)
	} else {
		_, err = pc.c.Write(s.wbuf)
	}
	if err != nil {
		return nil, false, err
	}
	br := pc.br
	line, err := br.ReadSlice('\n')
	if err != nil {
		return nil, len(line) > 0, err
	}
	got = true
	r := &s.resp
	*r = rawResponse{conn: pc, reusable: true}
	// "HTTP/1.1 200 OK\r\n"
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) || line[8] != ' ' {
		return nil, got, errMalformed
	}
	if line[7] == '0' {
		r.reusable = false
	}
	code, cerr := strconv.Atoi(string(line[9:12]))
	if cerr != nil {
		return nil, got, errMalformed
	}
	r.status = code
	if r.status < 200 || r.status > 299 {
		r.statusTxt = string(bytes.TrimRight(line[9:], "\r\n"))
	}
	contentLength := int64(-1)
	chunked := false
	s.ctypeBuf = s.ctypeBuf[:0]
	for {
		line, err = br.ReadSlice('\n')
		if err != nil {
			return nil, got, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			break
		}
		k, v, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return nil, got, errMalformed
		}
		v = bytes.TrimSpace(v)
		switch {
		case asciiEqualFold(k, "content-type"):
			s.ctypeBuf = append(s.ctypeBuf[:0], v...)
		case asciiEqualFold(k, "content-length"):
			n, perr := strconv.ParseInt(string(v), 10, 64)
			if perr != nil || n < 0 {
				return nil, got, errMalformed
			}
			contentLength = n
		case asciiEqualFold(k, "transfer-encoding"):
			if asciiEqualFold(v, "chunked") {
				chunked = true
			} else {
				return nil, got, errMalformed
			}
		case asciiEqualFold(k, "connection"):
			if asciiEqualFold(v, "close") {
				r.reusable = false
			}
		case wantSession && asciiEqualFold(k, "mcp-session-id"):
			r.sessionID = string(v)
		}
	}
	// Media type: before any ';', trimmed (compared case-insensitively).
	mt, _, _ := bytes.Cut(s.ctypeBuf, []byte(";"))
	r.ctype = bytes.TrimSpace(mt)

	var bodyR io.Reader
	switch {
	case r.status == 204 || r.status == 304:
		bodyR = nil
	case chunked:
		bodyR = &chunkedBody{r: httputil.NewChunkedReader(br), br: br}
	case contentLength >= 0:
		s.lr = io.LimitedReader{R: br, N: contentLength}
		bodyR = &s.lr
	default:
		bodyR = br // until the server closes
		r.reusable = false
	}
	if bodyR == nil {
		r.body = s.rbuf[:0]
		return r, got, nil
	}
	if r.status >= 200 && r.status <= 299 && asciiEqualFold(r.ctype, "text/event-stream") {
		r.sse = bodyR
		return r, got, nil
	}
	limit := int64(64 << 20)
	if r.status < 200 || r.status > 299 {
		limit = 64 << 10
	}
	if contentLength > limit {
		r.reusable = false
		contentLength = limit
	}
	buf := s.rbuf[:0]
	if contentLength >= 0 && int64(cap(buf)) < contentLength {
		buf = make([]byte, 0, contentLength)
	}
	buf, err = readAllInto(buf, bodyR, limit)
	s.rbuf = buf
	if err != nil {
		return nil, got, err
	}
	if cb, ok := bodyR.(*chunkedBody); ok && !cb.done {
		r.reusable = false // cut at the limit
	} else if lr, ok := bodyR.(*io.LimitedReader); ok && lr.N > 0 {
		r.reusable = false
	}
	r.body = buf
	return r, got, nil
}

// release returns the connection to the pool when its answer was read to the
// end, otherwise closes it.
func (s *Session) release(r *rawResponse) {
	if r == nil || r.conn == nil {
		return
	}
	if r.reusable {
		r.conn.c.SetDeadline(time.Time{})
		s.cfg.pool.put(r.conn)
	} else {
		r.conn.c.Close()
	}
	r.conn = nil
}

// drainSSE reads what is left of an event stream so the connection can be
// reused, for at most 200 ms: a server that keeps the stream open after the
// final response must not stall the worker (then the connection is closed).
func (s *Session) drainSSE(r *rawResponse) {
	r.conn.c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	n, err := io.Copy(io.Discard, io.LimitReader(r.sse, 1<<20))
	if err != nil || n == 1<<20 {
		r.reusable = false
		return
	}
	if lr, ok := r.sse.(*io.LimitedReader); ok && lr.N > 0 {
		r.reusable = false
	}
	if cb, ok := r.sse.(*chunkedBody); ok && !cb.done {
		r.reusable = false
	}
}

// chunkedBody reads a chunked body and, at its end, the (empty) trailer, so
// the connection is positioned at the next response.
type chunkedBody struct {
	r    io.Reader
	br   *bufio.Reader
	done bool
}

func (c *chunkedBody) Read(p []byte) (int, error) {
	if c.done {
		return 0, io.EOF
	}
	n, err := c.r.Read(p)
	if err == io.EOF {
		for {
			line, lerr := c.br.ReadSlice('\n')
			if lerr != nil {
				return n, lerr
			}
			if len(bytes.TrimRight(line, "\r\n")) == 0 {
				break
			}
		}
		c.done = true
	}
	return n, err
}

func readAllInto(buf []byte, r io.Reader, limit int64) ([]byte, error) {
	for int64(len(buf)) < limit {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		room := buf[len(buf):cap(buf)]
		if int64(len(room)) > limit-int64(len(buf)) {
			room = room[:limit-int64(len(buf))]
		}
		n, err := r.Read(room)
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
	return buf, nil
}

func asciiEqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}
