package mockserver

import (
	"context"
	"crypto/subtle"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/internal/apiroutes"
	"github.com/profilesvc/profilesvc-go/internal/openapicheck"
)

// Error codes of a Proxy's own answers, which the service never gives.
const (
	// CodeUpstreamUnavailable (502) answers a request the proxy could not
	// forward: the service could not be reached, or broke the connection
	// before its answer began.
	CodeUpstreamUnavailable = "UPSTREAM_UNAVAILABLE"
	// CodeUpstreamTimeout (504) answers a request the service did not
	// begin to answer within the proxy's timeout (WithProxyTimeout).
	CodeUpstreamTimeout = "UPSTREAM_TIMEOUT"
	// CodeProxyMode (409) answers a control route that changes the
	// simulated state, which a proxy does not have.
	CodeProxyMode = "PROXY_MODE"
	// CodeNotAProxy (409) answers, on a simulating mock, the control
	// routes of a proxy's observations (/_mock/violations,
	// /_mock/conformance, /_mock/recording).
	CodeNotAProxy = "NOT_A_PROXY"
	// CodeNotRecording (409) answers POST /_mock/recording on a proxy
	// that keeps no recording.
	CodeNotRecording = "NOT_RECORDING"
)

// DefaultProxyTimeout is how long a Proxy waits for the service to begin
// its answer: the longest hold of a long poll (300 s) and 30 s more.
const DefaultProxyTimeout = 330 * time.Second

// Proxy is the mock in proxy mode: it forwards every request to the
// service's routes (/v1/...) to the real service, as it came, and streams
// the answer back as it comes, checking each exchange against the
// service's OpenAPI document (api/openapi.yaml) on the way. What the
// traffic shows is kept for GET /_mock/violations (each disagreement) and
// GET /_mock/conformance (a summary per operation, which tells whether
// the service has the inferred endpoints where this project puts them),
// and in Violations and Conformance. The caller's x-api-key is forwarded
// to the service and never kept: the request record (GET
// /_mock/requests) holds it redacted.
//
// The service is reached at its own origin only: an answer that
// redirects is passed back as it is, never followed. Its TLS certificate
// is verified against the system's roots, and those of
// WithProxyRootCAs.
//
// Make one with NewProxy (on a loopback port, for tests) or StartProxy
// (on a given address, as the binary's -proxy flag does); Close it when
// done.
type Proxy struct {
	// URL is the proxy's base URL, such as "http://127.0.0.1:53211".
	URL string
	// APIKey is the key of the proxy's own control routes (/_mock/...);
	// the requests to the service carry their own, which is forwarded.
	APIKey string
	// Target is the service's base URL the proxy forwards to.
	Target string

	cfg     proxyConfig
	target  *url.URL
	check   *openapicheck.Validator
	obs     *proxyObservations
	record  *requestRecord
	reqIDs  *idGen
	forward *httputil.ReverseProxy
	rec     *recording // nil without WithProxyRecording
	answers *budget    // the memory of JSON answers read for their check

	httpSrv   *http.Server
	serveDone chan struct{}
	closeOnce sync.Once
}

// ProxyOption configures a Proxy.
type ProxyOption func(*proxyConfig)

type proxyConfig struct {
	apiKey            string
	cas               []*x509.Certificate
	timeout           time.Duration
	logger            *slog.Logger
	recordSize        int
	recordBytes       int64
	readHeaderTimeout time.Duration
	recordPath        string
	recordBodies      bool
	logRequests       bool
}

// WithProxyAPIKey sets the key of the proxy's control routes; a random
// UUID by default. The binary's -api-key.
func WithProxyAPIKey(key string) ProxyOption {
	return func(c *proxyConfig) { c.apiKey = key }
}

// WithProxyCAs adds certificate authorities the service's TLS
// certificate may be signed by, beside the system's: a staging service's
// private CA. The binary's -proxy-ca FILE (PEM).
func WithProxyCAs(certs ...*x509.Certificate) ProxyOption {
	return func(c *proxyConfig) { c.cas = append(c.cas, certs...) }
}

// WithProxyTimeout sets how long the proxy waits for the service to begin
// an answer before it answers 504 UPSTREAM_TIMEOUT itself
// (DefaultProxyTimeout by default). The binary's -proxy-timeout.
func WithProxyTimeout(d time.Duration) ProxyOption {
	return func(c *proxyConfig) { c.timeout = d }
}

// WithProxyLogger logs each disagreement with the document on one line
// (operation, request ID, JSON pointer, message) to l, at level Warn.
func WithProxyLogger(l *slog.Logger) ProxyOption {
	return func(c *proxyConfig) { c.logger = l }
}

// WithProxyRequestLog logs every forwarded request on one line (method,
// path, status, the service's request ID, duration) to the logger of
// WithProxyLogger, at level Info. The binary's -log-requests.
func WithProxyRequestLog() ProxyOption {
	return func(c *proxyConfig) { c.logRequests = true }
}

// WithProxyRequestRecord bounds the proxy's request record as
// WithRequestRecordSize and WithRequestRecordBytes bound a mock's.
func WithProxyRequestRecord(entries int, bytes int64) ProxyOption {
	return func(c *proxyConfig) { c.recordSize, c.recordBytes = entries, bytes }
}

// NewProxy starts a proxy to the service at target (its base URL, such as
// "https://api.example.com") on a loopback port.
func NewProxy(target string, opts ...ProxyOption) (*Proxy, error) {
	return StartProxy("127.0.0.1:0", target, opts...)
}

// StartProxy starts a proxy to the service at target, listening on addr
// (port 0 picks a free port).
func StartProxy(addr, target string, opts ...ProxyOption) (*Proxy, error) {
	p, err := newProxy(target, opts)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", addr, err)
	}
	p.URL = "http://" + dialableAddr(ln.Addr())
	p.httpSrv = &http.Server{
		Handler:           p,
		ReadHeaderTimeout: p.cfg.readHeaderTimeout,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		// "OPTIONS *" reaches the handler, which answers it as any
		// request of no route, rather than net/http's bare 200.
		DisableGeneralOptionsHandler: true,
		TLSNextProto:                 map[string]func(*http.Server, *tls.Conn, http.Handler){},
	}
	if p.cfg.logger != nil {
		p.httpSrv.ErrorLog = slog.NewLogLogger(p.cfg.logger.Handler(), slog.LevelWarn)
	}
	p.serveDone = make(chan struct{})
	go func() {
		defer close(p.serveDone)
		_ = p.httpSrv.Serve(ln)
	}()
	return p, nil
}

// newProxy makes a proxy that does not listen yet.
func newProxy(target string, opts []ProxyOption) (*Proxy, error) {
	cfg := proxyConfig{timeout: DefaultProxyTimeout, recordSize: 1000, recordBytes: 8 << 20, readHeaderTimeout: 10 * time.Second}
	for _, o := range opts {
		o(&cfg)
	}
	u, err := parseTarget(target)
	if err != nil {
		return nil, err
	}
	switch {
	case cfg.timeout <= 0:
		return nil, fmt.Errorf("mockserver: the proxy's timeout must be positive, got %v", cfg.timeout)
	case cfg.recordSize <= 0 || cfg.recordBytes <= 0:
		return nil, fmt.Errorf("mockserver: the proxy's request record must have room, got %d entries and %d bytes", cfg.recordSize, cfg.recordBytes)
	}
	if cfg.apiKey == "" {
		cfg.apiKey = newUUID()
	}
	if cfg.recordBodies && cfg.recordPath == "" {
		return nil, fmt.Errorf("mockserver: WithProxyRecordBodies needs WithProxyRecording (-record-bodies needs -record FILE)")
	}
	if cfg.recordPath != "" {
		if err := checkRecordingPath(cfg.recordPath); err != nil {
			return nil, fmt.Errorf("mockserver: %w", err)
		}
	}
	check, err := openapicheck.New()
	if err != nil {
		return nil, err
	}
	p := &Proxy{
		APIKey: cfg.apiKey, Target: u.String(), cfg: cfg, target: u, check: check,
		obs:    newProxyObservations(check, maxViolations),
		record: newRequestRecord(cfg.recordSize, cfg.recordBytes),
		reqIDs: newIDGen(nil, 0), answers: &budget{left: maxHeldAnswers},
	}
	if cfg.recordPath != "" {
		p.rec = newRecording(cfg.recordPath, cfg.recordBodies)
	}
	p.forward = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(u)
			// The transport asks for gzip itself and undoes it, so that
			// the answer is checked and recorded as the JSON or the PDF it
			// is: a client's Accept-Encoding would leave the bytes
			// compressed, past the check and the key's redaction.
			pr.Out.Header.Del("Accept-Encoding")
		},
		Transport:      &answerTimeout{next: upstreamTransport(cfg.cas), after: cfg.timeout},
		FlushInterval:  -1, // stream: a long poll's answer, a report, as they come
		ModifyResponse: p.observeAnswer,
		ErrorHandler:   p.upstreamFailed,
		ErrorLog:       discardLog,
	}
	return p, nil
}

// parseTarget reads the service's base URL: http or https, a host, no
// user, query or fragment; a path is a prefix of every forwarded path.
func parseTarget(target string) (*url.URL, error) {
	u, err := url.Parse(target)
	switch {
	case err != nil:
		return nil, fmt.Errorf("mockserver: the proxy's target %q: %w", target, err)
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("mockserver: the proxy's target %q: want an http or https URL", target)
	case u.Host == "":
		return nil, fmt.Errorf("mockserver: the proxy's target %q has no host", target)
	case u.User != nil:
		return nil, fmt.Errorf("mockserver: the proxy's target must not hold a user or password")
	case u.RawQuery != "" || u.Fragment != "":
		return nil, fmt.Errorf("mockserver: the proxy's target %q must not have a query or fragment", target)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawPath = strings.TrimSuffix(u.RawPath, "/")
	return u, nil
}

// upstreamTransport is the transport to the service: TLS verified against
// the system's roots and the extra authorities, no proxy from the
// environment (the key goes to the service's origin only), HTTP/2 when
// the service offers it.
func upstreamTransport(extra []*x509.Certificate) *http.Transport {
	tlsCfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if len(extra) > 0 {
		pool, err := x509.SystemCertPool()
		if err != nil || pool == nil {
			pool = x509.NewCertPool()
		}
		for _, c := range extra {
			pool.AddCert(c)
		}
		tlsCfg.RootCAs = pool
	}
	return &http.Transport{
		DialContext:            (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		TLSClientConfig:        tlsCfg,
		TLSHandshakeTimeout:    15 * time.Second,
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           100,
		MaxIdleConnsPerHost:    64,
		IdleConnTimeout:        90 * time.Second,
		ExpectContinueTimeout:  time.Second,
		MaxResponseHeaderBytes: 1 << 20,
	}
}

// Handler returns the proxy as an http.Handler.
func (p *Proxy) Handler() http.Handler { return p }

// Close stops the proxy at once: connections close, requests under way
// end.
func (p *Proxy) Close() {
	p.closeOnce.Do(func() {
		if p.httpSrv != nil {
			_ = p.httpSrv.Close()
			<-p.serveDone
		}
		if tr, ok := p.forward.Transport.(*answerTimeout); ok {
			tr.next.(*http.Transport).CloseIdleConnections()
		}
	})
}

// Shutdown stops the proxy gracefully: it stops accepting connections and
// waits for the requests under way, until ctx ends; then it writes the
// recording, if it keeps one. The error of that write is returned first.
func (p *Proxy) Shutdown(ctx context.Context) error {
	var err error
	if p.httpSrv != nil {
		err = p.httpSrv.Shutdown(ctx)
	}
	p.Close()
	if p.rec != nil {
		if _, werr := p.rec.write(); werr != nil {
			return werr
		}
	}
	return err
}

// WriteRecording writes the recording to its file now (as POST
// /_mock/recording does) and returns it, an HTTP Archive in JSON; an
// error without WithProxyRecording. Close does not write it: Shutdown
// does.
func (p *Proxy) WriteRecording() ([]byte, error) {
	if p.rec == nil {
		return nil, errors.New("mockserver: the proxy keeps no recording (WithProxyRecording)")
	}
	return p.rec.write()
}

// Requests returns the proxy's request record, oldest first, with the
// callers' keys redacted.
func (p *Proxy) Requests() []RecordedRequest { return p.record.all() }

// Violations returns the disagreements with the document the traffic
// showed, newest last: at most the newest 1,000, with the count of those
// dropped to keep within that.
func (p *Proxy) Violations() ViolationList { return p.obs.violationList() }

// Conformance summarises what the traffic showed, per operation of the
// document.
func (p *Proxy) Conformance() *Conformance { return p.obs.conformance(p.Target) }

// ServeHTTP forwards the service's routes and answers the proxy's own.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := r.URL.EscapedPath()
	switch {
	case strings.HasPrefix(path, "/v1/"):
		p.serveForward(w, r)
	case strings.HasPrefix(path, "/_mock/"):
		p.serveControl(w, r)
	default:
		p.answer(w, errorf(http.StatusNotFound, profilesvc.CodeNotFound, "no route for %s %s: a proxy forwards the service's routes (/v1/...) and answers its control routes (/_mock/...)", r.Method, path))
	}
}

// handleHealth says the proxy is up, which version it runs and where it
// forwards to.
func (p *Proxy) handleHealth(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok", "version": profilesvc.Version, "mode": "proxy", "target": p.Target})
}

// answer writes one of the proxy's own answers, with a request ID of its
// own.
func (p *Proxy) answer(w http.ResponseWriter, e *apiError) {
	w.Header().Set(requestIDHeader, p.reqIDs.next("req_"))
	writeError(w, e)
}

// serveControl answers the control routes: the public ones, the proxy's
// record and observations (with the proxy's key), and 409 PROXY_MODE for
// those of a simulating mock.
func (p *Proxy) serveControl(w http.ResponseWriter, r *http.Request) {
	path := r.URL.EscapedPath()
	if _, ok := publicRoutes[path]; ok {
		w.Header().Set(requestIDHeader, p.reqIDs.next("req_"))
		servePublic(w, r, p.handleHealth)
		return
	}
	// The key first, as a simulating mock authenticates before it routes:
	// a path of no control route without the key is a 401 on both.
	if subtle.ConstantTimeCompare([]byte(apiKeyOf(r)), []byte(p.APIKey)) != 1 {
		p.answer(w, errorf(http.StatusUnauthorized, profilesvc.CodeUnauthorized, "invalid API key: the proxy's control routes take the proxy's own key (-api-key)"))
		return
	}
	route, known := controlRouteOf(r.Method, path)
	if !known {
		p.answer(w, errorf(http.StatusNotFound, profilesvc.CodeNotFound, "no route for %s %s", r.Method, path))
		return
	}
	if e := checkQuery(r, route.Query); e != nil {
		p.answer(w, e)
		return
	}
	w.Header().Set(requestIDHeader, p.reqIDs.next("req_"))
	switch route.Name {
	case "listRequests":
		if e := serveRecord(p.record, w, r); e != nil {
			writeError(w, e)
		}
	case "clearRequests":
		p.record.reset()
		noContent(w)
	case "listViolations":
		writeJSON(w, http.StatusOK, p.Violations())
	case "getConformance":
		writeJSON(w, http.StatusOK, p.Conformance())
	case "saveRecording":
		p.serveRecording(w)
	default:
		what := "changes the simulated state"
		if r.Method == http.MethodGet || r.Method == http.MethodHead {
			what = "reads the simulated state"
		}
		writeError(w, errorf(http.StatusConflict, CodeProxyMode, "%s %s %s, which a proxy (to %s) does not have: it forwards to the service and keeps only its request record, violations and conformance", r.Method, path, what, p.Target))
	}
}

// controlRouteOf finds the control route of a method and escaped path,
// GET answering HEAD too.
func controlRouteOf(method, path string) (apiroutes.Route, bool) {
	for _, c := range controlRoutes() {
		if !c.template.match(path, nil) {
			continue
		}
		if c.Method == method || c.Method == http.MethodGet && method == http.MethodHead {
			return c.Route, true
		}
	}
	return apiroutes.Route{}, false
}

// controlRoutes are the control API's routes with their templates, read
// once per process.
var controlRoutes = sync.OnceValue(func() []controlRoute {
	var out []controlRoute
	for _, rt := range apiroutes.Mock() {
		if !strings.HasPrefix(rt.Path, "/_mock/") {
			continue
		}
		t, err := parsePathTemplate(rt.Path)
		if err != nil {
			panic("mockserver: route " + rt.Name + ": " + err.Error())
		}
		out = append(out, controlRoute{rt, t})
	}
	return out
})

type controlRoute struct {
	apiroutes.Route
	template pathTemplate
}

// serveForward forwards a request of the service's routes and observes the
// exchange: its record entry, its check against the document, its tally.
func (p *Proxy) serveForward(w http.ResponseWriter, r *http.Request) {
	ex := &proxyExchange{start: time.Now(), method: r.Method, target: r.URL.RequestURI(), path: r.URL.EscapedPath(), rawQuery: r.URL.RawQuery, header: redactHeader(r.Header), gen: p.record.generation()}
	// What is kept of the exchange holds no trace of the key.
	// The caller's key, kept for this exchange only: whatever the
	// proxy keeps of it (record, violations, conformance, recording) is
	// redacted of it.
	ex.key = apiKeyOf(r)
	for _, vs := range ex.header {
		for i, v := range vs {
			vs[i] = redactSecretString(v, ex.key)
		}
	}
	if r.Body != nil && r.Body != http.NoBody {
		limit := maxCheckedRequestBody
		if p.rec != nil && p.rec.bodies {
			limit = maxRecordedUpload
		}
		ex.body = &captureReader{ReadCloser: r.Body, limit: limit}
		r.Body = ex.body
		if mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type")); p.rec != nil && err == nil && mt == "multipart/form-data" && params["boundary"] != "" {
			ex.upload = newUploadTap(r.Body, params["boundary"])
			r.Body = ex.upload
		}
	}
	ctx := context.WithValue(r.Context(), proxyExchangeKey{}, ex)
	p.forward.ServeHTTP(w, r.WithContext(ctx))
	status, requestID := ex.status, ex.requestID
	if !ex.answered {
		// The proxy's own answer (the service unreachable, or no
		// answer in time), or none (the client left): recorded, not
		// checked.
		status, requestID = ex.ownStatus, ex.ownRequestID
		p.recordExchange(ex, status, requestID)
	}
	if p.cfg.logRequests && p.cfg.logger != nil {
		key := apiKeyOf(r)
		p.cfg.logger.Info("request", "method", ex.method, "path", redactSecretString(ex.target, key), "status", status,
			"requestId", requestID, "duration", time.Since(ex.start).Round(time.Microsecond))
	}
}

// proxyExchangeKey keys a forwarded request's proxyExchange in its
// context.
type proxyExchangeKey struct{}

// proxyExchange is what the proxy knows of one forwarded exchange.
type proxyExchange struct {
	start          time.Time
	method, target string
	path, rawQuery string
	header         http.Header // redacted
	gen            uint64
	body           *captureReader
	// The caller's key, kept for this exchange only to redact it; for a
	// recording, the tap of an upload, and when the answer began.
	key       string
	upload    *uploadTap
	headersAt time.Time
	// answered is set once the service's answer has begun, with its
	// status and request ID; ownStatus and ownRequestID are those of the
	// proxy's own answer otherwise.
	answered     bool
	status       int
	requestID    string
	ownStatus    int
	ownRequestID string
}

// upstreamFailed answers a request the service did not answer: 504 when
// it did not begin to in time, 502 when it could not be reached or broke
// the connection; nothing when the client has left.
func (p *Proxy) upstreamFailed(w http.ResponseWriter, r *http.Request, err error) {
	ex, _ := r.Context().Value(proxyExchangeKey{}).(*proxyExchange)
	if r.Context().Err() != nil && !errors.Is(err, errUpstreamTimeout) {
		return // the client left
	}
	var e *apiError
	if errors.Is(err, errUpstreamTimeout) {
		e = errorf(http.StatusGatewayTimeout, CodeUpstreamTimeout, "the service at %s did not answer within %v", p.Target, p.cfg.timeout)
	} else {
		e = errorf(http.StatusBadGateway, CodeUpstreamUnavailable, "the service at %s could not be reached: %s", p.Target, upstreamReason(err))
	}
	id := p.reqIDs.next("req_")
	w.Header().Set(requestIDHeader, id)
	writeError(w, e)
	if ex != nil {
		ex.ownStatus, ex.ownRequestID = e.status, id
	}
}

// upstreamReason says why the service could not be reached, without the
// request's URL, which the error of the transport repeats.
func upstreamReason(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return err.Error()
}

// discardLog is the error log of the reverse proxy: the proxy reports
// what matters itself.
var discardLog = slog.NewLogLogger(slog.DiscardHandler, slog.LevelError)

// serveRecording writes the recording now and answers it.
func (p *Proxy) serveRecording(w http.ResponseWriter) {
	if p.rec == nil {
		writeError(w, errorf(http.StatusConflict, CodeNotRecording, "the proxy keeps no recording: start it with -record FILE (WithProxyRecording)"))
		return
	}
	data, err := p.rec.write()
	if err != nil {
		writeError(w, errorf(http.StatusInternalServerError, profilesvc.CodeInternal, "%v", err))
		return
	}
	writeRawJSON(w, http.StatusOK, data)
}
