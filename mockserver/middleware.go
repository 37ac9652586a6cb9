package mockserver

import (
	"bufio"
	"context"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/mux"

	"github.com/profilesvc/profilesvc-go"
)

// An answer passes through a chain of small handlers, each testable alone,
// built once per process (see chain):
//
//	recoverAndLog → cors → public → authenticate → record → injectFaults → route
//
// cors answers the preflights of the origins WithCORS allows; public
// serves the routes that need no key (health, the OpenAPI documents);
// route is dispatch, the gorilla/mux router of the route table.
//
// The server puts one value in the request's context, its *exchange, where
// each stage finds the server, the tenant, the path's variables, and the
// answer's status.

// exchange is one request and its answer as they pass through the server.
// It is also the ResponseWriter the stages and handlers write to: it
// remembers the answer's status and tells the record of it, once, before
// any byte of the answer leaves.
type exchange struct {
	http.ResponseWriter
	srv       *Server
	requestID string
	start     time.Time
	// tenant is the namespace of the request's API key, once
	// authenticated; recordTo is the one whose record keeps the request
	// (the server's own for a wrong key on a single-tenant server).
	tenant, recordTo *Tenant
	// control is true for the /_mock/ routes, which are not recorded and
	// take no faults.
	control bool
	// faulted is true when an injected fault answered, or shapes the
	// answer; preflight, when the answer is that of a CORS preflight
	// (WithCORS). Such an answer is the mock's own, not the service's:
	// WithOpenAPICheck does not hold it to the service's document.
	faulted, preflight bool
	// match is the router's match of the request. path is its escaped
	// path, taken once (pathTaken) for every route the router tries;
	// varNames are its route's path variables, and varValues their
	// values, still escaped.
	match     mux.RouteMatch
	path      string
	pathTaken bool
	varNames  []string
	varValues [maxPathVars]string

	status    int  // the answer's status, once set
	committed bool // the record has been told of the status
	// recording, when recordingOn, keeps the request in recordTo's record.
	recording   pendingRecord
	recordingOn bool

	// Parts of the exchange kept here, so that they cost no allocation of
	// their own: the request with its context, and the buffer handlers
	// answer into.
	req      http.Request
	ctx      exchangeCtx
	buffered bufferedWriter
	// headers holds the values of the headers every answer has.
	headers *answerHeaders
}

// answerHeaders holds the values of the headers every answer has, in one
// allocation apart from the exchange: net/http, or a caller's handler
// around the server's, may read an answer's headers after the exchange
// has gone back to its pool for another request.
type answerHeaders struct {
	id, length, contentType [1]string
}

type exchangeKey struct{}

// exchangeCtx is the request's context with its exchange under
// exchangeKey{}, as context.WithValue would make it, but held in the
// exchange rather than allocated apart.
type exchangeCtx struct {
	context.Context
	x *exchange
}

func (c *exchangeCtx) Value(key any) any {
	if _, ok := key.(exchangeKey); ok {
		return c.x
	}
	return c.Context.Value(key)
}

// exchangeOf returns the request's exchange.
func exchangeOf(r *http.Request) *exchange {
	if c, ok := r.Context().(*exchangeCtx); ok {
		return c.x
	}
	x, _ := r.Context().Value(exchangeKey{}).(*exchange)
	return x
}

// requestIDHeader names the header of every answer that carries its
// request ID, which the SDK reports as APIError.RequestID.
const requestIDHeader = "X-Request-Id"

// ServeHTTP serves the mock's API and its control API, making a Server an
// http.Handler: each request gets a request ID, then passes through
// recovery, authentication, the record and the faults to its route.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	x := exchanges.Get().(*exchange)
	r = x.begin(s, w, r)
	if s.cfg.openapiReport != nil {
		s.serveChecked(x, w, r)
		return
	}
	chain().ServeHTTP(x, r)
	x.release()
}

// begin readies an exchange for the request, and returns the request as
// the stages see it, with the exchange in its context. Apart from
// ServeHTTP, so that its copy of the request does not stay on the stack
// while the request is served.
//
//go:noinline
func (x *exchange) begin(s *Server, w http.ResponseWriter, r *http.Request) *http.Request {
	x.ResponseWriter, x.srv, x.requestID = w, s, s.reqIDs.next("req_")
	if s.cfg.logger != nil {
		x.start = time.Now() // for the log's duration
	}
	// Set before anything can answer, so that every answer carries it: a
	// 401, an unknown route, an injected fault, a long poll's.
	x.headers = &answerHeaders{id: [1]string{x.requestID}}
	w.Header()[requestIDHeader] = x.headers.id[:]
	x.ctx = exchangeCtx{Context: r.Context(), x: x}
	x.req = *r.WithContext(&x.ctx)
	return &x.req
}

// exchanges keeps the exchanges of answered requests for the next ones.
var exchanges = sync.Pool{New: func() any { return new(exchange) }}

// release puts an exchange back in the pool, emptied, once its request
// has been served: nothing keeps the exchange, its request, its context
// or its path variables any longer.
func (x *exchange) release() {
	// The router's variables map stays with the exchange, emptied: the
	// router fills it only for routes matched by a regular expression,
	// of which the table has none, and would allocate one per request.
	vars := x.match.Vars
	clear(vars)
	*x = exchange{}
	x.match.Vars = vars
	exchanges.Put(x)
}

// commit tells the record of the answer's status, once. A status of 0 is
// an answer that never began: a dropped connection.
func (x *exchange) commit(status int) {
	if x.committed {
		return
	}
	x.committed = true
	if x.recordingOn {
		x.recording.finish(x, status)
	}
}

func (x *exchange) WriteHeader(code int) {
	if x.status == 0 {
		x.status = code
		x.commit(code)
	}
	x.ResponseWriter.WriteHeader(code)
}

func (x *exchange) Write(b []byte) (int, error) {
	if x.status == 0 {
		x.status = http.StatusOK
		x.commit(http.StatusOK)
	}
	return x.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection, for the write
// deadline of long polls.
func (x *exchange) Unwrap() http.ResponseWriter { return x.ResponseWriter }

// Flush passes flushes through, for streamed answers.
func (x *exchange) Flush() {
	if f, ok := x.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Hijack passes hijacking through, for injected dropped connections; the
// request is recorded, with no status, first.
func (x *exchange) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	x.commit(0)
	hj, ok := x.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, http.ErrNotSupported
	}
	return hj.Hijack()
}

// apiKeyOf returns the request's x-api-key header: read from the map
// under its canonical name, which spares the lookup a copy of the key.
func apiKeyOf(r *http.Request) string {
	if v := r.Header["X-Api-Key"]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// recoverAndLog turns a panic of the stages after it into a 500 answer,
// tells the record of an answer that never began, and logs the request.
func recoverAndLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		x := exchangeOf(r)
		defer func() {
			p := recover()
			if p != nil && p != http.ErrAbortHandler {
				x.srv.logPanic("a handler panicked", p, slog.String("method", r.Method),
					slog.String("path", r.URL.EscapedPath()), slog.String("requestId", x.requestID))
				if x.status == 0 {
					writeError(x, errorf(http.StatusInternalServerError, profilesvc.CodeInternal, "the mock server failed: %v", p))
				}
			}
			x.commit(0)
			if l := x.srv.cfg.logger; l != nil {
				l.LogAttrs(context.Background(), slog.LevelInfo, "request",
					slog.String("method", r.Method), slog.String("path", r.URL.EscapedPath()),
					slog.Int("status", x.status), slog.Duration("duration", time.Since(x.start)),
					slog.String("requestId", x.requestID))
			}
			if p == http.ErrAbortHandler {
				panic(p)
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// authenticate picks the tenant of the request's API key, or answers 401;
// the tenant is held (not evicted) while the request is under way.
func authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		x := exchangeOf(r)
		s := x.srv
		key := apiKeyOf(r)
		var release func()
		var full bool
		x.tenant, release, full = s.tenantFor(key, true)
		defer release()
		x.recordTo = x.tenant
		if x.recordTo == nil && !s.cfg.multiTenant {
			x.recordTo = s.Tenant
		}
		x.control = strings.HasPrefix(r.URL.Path, "/_mock/")
		if x.tenant != nil {
			next.ServeHTTP(w, r)
			return
		}
		refuse(x, w, r, key, full)
	})
}

// refuse answers a request authenticate does not let through: 503 when
// every tenant is busy (full), else 401.
func refuse(x *exchange, w http.ResponseWriter, r *http.Request, key string, full bool) {
	s := x.srv
	if full {
		e := errorf(http.StatusServiceUnavailable, profilesvc.CodeServiceUnavailable,
			"each of the mock's %d tenants has a request under way: try again shortly (-max-tenants, WithMaxTenants)", s.cfg.maxTenants)
		e.retryAfter = "1"
		writeError(w, e)
		return
	}
	// Recorded with its method and path only: its headers and body are
	// nobody's to see, and must not fill the key owner's record.
	startRecording(x, r, true)
	msg := "invalid API key"
	if key == "" {
		msg = "the x-api-key header is missing"
	} else if s.cfg.multiTenant {
		msg = "invalid API key: a multi-tenant mock accepts any well-formed UUID"
	}
	writeError(w, errorf(http.StatusUnauthorized, profilesvc.CodeUnauthorized, "%s", msg))
}

// record keeps the request in its tenant's record: written as the answer's
// status is set, so that a client that has its answer finds its request
// recorded.
func record(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		startRecording(exchangeOf(r), r, false)
		next.ServeHTTP(w, r)
	})
}

// injectFaults applies the first of the tenant's faults that matches the
// request, if any.
func injectFaults(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		x := exchangeOf(r)
		if !x.control && x.tenant.faults.count.Load() > 0 {
			var answered bool
			if w, answered = x.injectFault(w, r); answered {
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// injectFault applies the first of the tenant's faults that matches the
// request, if any: it reports whether the fault answered, and returns the
// writer the request goes on with. Apart from injectFaults, so that the
// fault does not stay on the stack while the request is served.
func (x *exchange) injectFault(w http.ResponseWriter, r *http.Request) (http.ResponseWriter, bool) {
	f, ok := x.tenant.faults.match(r.Method, r.URL.EscapedPath())
	if !ok {
		return w, false
	}
	answered, shaped := x.srv.applyFault(w, r, f)
	x.faulted = answered || shaped != w
	return shaped, answered
}

// exchangeFor returns the exchange a writer writes to, through the
// buffer of a handler, or nil.
func exchangeFor(w http.ResponseWriter) *exchange {
	switch v := w.(type) {
	case *exchange:
		return v
	case *bufferedWriter:
		if x, ok := v.ResponseWriter.(*exchange); ok {
			return x
		}
	}
	return nil
}
