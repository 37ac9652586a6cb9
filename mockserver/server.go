package mockserver

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver/engine"
)

// Server is a running mock of the service on a loopback port, or a handler
// for the caller to serve (Handler). Its embedded *Tenant is the test kit
// for the server's own API key.
type Server struct {
	// URL is the server's base URL, such as "http://127.0.0.1:53211", with
	// no trailing slash; empty for a server made with NewHandler.
	URL string
	// APIKey is the key the server accepts: the one given by WithAPIKey, or
	// a random UUID.
	APIKey string

	*Tenant

	cfg       config
	ids       *idGen // IDs of resources
	reqIDs    *idGen // request IDs of answers, a sequence of their own
	cursorKey []byte // signs listing cursors
	clock     Clock

	others  *tenantSet        // multi-tenant: the other keys' namespaces
	cert    *x509.Certificate // served with WithTLS
	uploads *budget           // the memory of uploads under way

	saveMu sync.Mutex // held while the state file is written

	testClients bool // made by NewTest: Client's clients retry after short waits

	closing   chan struct{} // closed by Close: long polls end
	closeOnce sync.Once
	httpSrv   *http.Server
	connsMu   sync.Mutex
	conns     map[net.Conn]http.ConnState // open connections, for Close
	quieting  bool                        // Shutdown closes quiet connections
	listener  net.Listener
	serveDone chan struct{}
}

// New starts a server on a loopback port, configured by opts. It panics if
// no port can be had, as httptest.NewServer does; use Start for an error.
// Close it when done.
func New(opts ...Option) *Server {
	s, err := Start("127.0.0.1:0", opts...)
	if err != nil {
		panic(fmt.Sprintf("mockserver: %v", err))
	}
	return s
}

// NewTest starts a server for a test and closes it when the test ends.
// Its analyses take 100ms (TestAnalysisDuration) unless opts say
// otherwise: a test that does not care about timing does not wait the 3s
// of New and the binary. It holds every exchange of the service's routes
// to api/openapi.yaml (WithOpenAPICheck), failing t, naming the operation
// and the field, where the mock's answer is not one the service could
// give; WithOpenAPICheck(nil) turns that off. The clients its Client
// hands out wait TestRetryWait before their first retry rather than the
// SDK's 500ms, so that a test of retries does not spend seconds in
// backoff.
func NewTest(t testing.TB, opts ...Option) *Server {
	t.Helper()
	var (
		mu    sync.Mutex
		ended bool // the server has closed: a report would come after t
	)
	check := WithOpenAPICheck(func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if !ended {
			t.Errorf("mockserver: the mock's exchange disagrees with api/openapi.yaml: %v", err)
		}
	})
	s, err := Start("127.0.0.1:0", append([]Option{WithAnalysisDuration(TestAnalysisDuration), check}, opts...)...)
	if err != nil {
		t.Fatalf("mockserver: %v", err)
	}
	// Cleanups run last first: the server closes, then reports end.
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		ended = true
	})
	t.Cleanup(s.Close)
	s.testClients = true
	return s
}

// TestRetryWait is the first wait between retries of the SDK clients that
// Client hands out for a server made by NewTest; each later wait doubles,
// up to profilesvc.DefaultRetryWaitMax. A Retry-After the mock sends (an
// injected fault's RetryAfter) is still waited for in full.
const TestRetryWait = 2 * time.Millisecond

// writeTimeout is how long an answer may take to write, from the end of
// its request; a long poll, an injected delay and a trickled answer
// extend it for as long as they last.
const writeTimeout = time.Minute

// Start starts a server listening on addr ("127.0.0.1:8080"; port 0 picks
// a free port), as the profilesvc-mock binary does.
func Start(addr string, opts ...Option) (*Server, error) {
	s, err := newServer(opts)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		s.stopAll()
		return nil, fmt.Errorf("listening on %s: %w", addr, err)
	}
	scheme := "http"
	if s.cfg.tls {
		if ln, s.cert, err = s.tlsListener(ln); err != nil {
			s.stopAll()
			return nil, err
		}
		scheme = "https"
	}
	s.listener = ln
	s.URL = scheme + "://" + dialableAddr(ln.Addr())
	s.conns = map[net.Conn]http.ConnState{}
	s.httpSrv = &http.Server{
		Handler:           s,
		ReadHeaderTimeout: s.cfg.readHeaderTimeout,
		ReadTimeout:       2 * time.Minute,
		WriteTimeout:      writeTimeout, // long polls, delays and trickles extend their own
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		// "OPTIONS *" reaches the handler, which answers it as any
		// request of no route, rather than net/http's bare 200.
		DisableGeneralOptionsHandler: true,
		// HTTP/1.1 only, as httptest serves by default: a non-nil, empty
		// map spares every server the setting up of HTTP/2.
		TLSNextProto: map[string]func(*http.Server, *tls.Conn, http.Handler){},
		ConnState:    s.trackConn,
	}
	if s.cfg.logger != nil {
		s.httpSrv.ErrorLog = slog.NewLogLogger(s.cfg.logger.Handler(), slog.LevelWarn)
	}
	s.serveDone = make(chan struct{})
	go func() {
		defer close(s.serveDone)
		_ = s.httpSrv.Serve(ln)
	}()
	return s, nil
}

// NewHandler returns a server that does not listen: serve its Handler
// yourself. Close still stops its analyses and long polls.
func NewHandler(opts ...Option) (*Server, error) {
	return newServer(opts)
}

func newServer(opts []Option) (*Server, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	s := &Server{
		cfg:     cfg,
		clock:   cfg.clock,
		closing: make(chan struct{}),
	}
	s.ids = newIDGen(cfg.idSeed, resourceIDStream)
	s.reqIDs = newIDGen(cfg.idSeed, requestIDStream)
	s.cursorKey = []byte(s.ids.next("cursor-key-"))
	s.APIKey = cfg.apiKey
	if s.APIKey == "" {
		s.APIKey = newUUID()
	}
	s.Tenant = s.newTenant()
	s.others = newTenantSet(cfg.maxTenants)
	s.uploads = &budget{left: cfg.uploadMemory}
	if cfg.replayPath != "" {
		rp, err := loadReplay(cfg.replayPath)
		if err != nil {
			return nil, err
		}
		if len(rp.analyses) == 0 {
			s.replayWarning(fmt.Sprintf("the recording %s holds no completed or failed analysis: every analysis runs on the engine", cfg.replayPath))
		}
		base := cfg.analyzer
		if base == nil {
			base = engine.Default
		}
		s.cfg.analyzer = rp.analyzer(base, cfg.replayStrict)
	}
	if cfg.seed != nil {
		if err := s.Tenant.LoadSeed(cfg.seed); err != nil {
			return nil, fmt.Errorf("loading the seed: %w", err)
		}
	}
	if err := s.loadState(); err != nil {
		return nil, err
	}
	return s, nil
}

// Handler returns the server's http.Handler, for callers who serve it
// themselves.
func (s *Server) Handler() http.Handler { return s }

// Client returns an SDK client pointed at the server with its API key;
// opts are applied after those two. For a server made by NewTest, the
// client also retries after short waits (TestRetryWait, then doubling),
// which opts may override with profilesvc.WithRetryWait.
func (s *Server) Client(opts ...profilesvc.Option) *profilesvc.Client {
	all := []profilesvc.Option{profilesvc.WithBaseURL(s.URL), profilesvc.WithAPIKey(s.APIKey)}
	if s.testClients {
		all = append(all, profilesvc.WithRetryWait(TestRetryWait, profilesvc.DefaultRetryWaitMax))
	}
	if s.cert != nil {
		all = append(all, profilesvc.WithHTTPClient(s.HTTPClient()))
	}
	all = append(all, opts...)
	c, err := profilesvc.NewClient(all...)
	if err != nil {
		panic(fmt.Sprintf("mockserver: Client: %v", err))
	}
	return c
}

// HTTPClient returns an http.Client for the server: one that trusts its
// certificate when it serves HTTPS, as httptest.Server.Client does.
func (s *Server) HTTPClient() *http.Client {
	if s.cert == nil {
		return &http.Client{}
	}
	pool := x509.NewCertPool()
	pool.AddCert(s.cert)
	return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
}

// Close stops the server: it ends long polls at once, stops running
// analyses, closes connections that are idle or have sent nothing yet, and
// waits for the requests under way to finish. It is safe to call more than
// once. With WithStateFile, call Shutdown instead to learn whether the
// state was written.
func (s *Server) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = s.Shutdown(ctx)
}

// Shutdown stops the server gracefully within ctx, as http.Server.Shutdown
// does, but without waiting for connections that have not sent a request:
// no new connections, long polls answered at once, requests under way
// finished. When ctx ends first, the remaining connections are closed, and
// the error, which matches ctx's, says how many were cut. A server that
// keeps a state file (WithStateFile) then writes it; when it cannot, the
// error matches ErrStateNotSaved.
func (s *Server) Shutdown(ctx context.Context) error {
	var err error
	s.closeOnce.Do(func() {
		close(s.closing)
		if s.httpSrv != nil {
			s.httpSrv.SetKeepAlivesEnabled(false)
			// http.Server.Shutdown leaves a connection that has sent
			// nothing for five seconds: close those, and idle ones, now,
			// and each that becomes so (trackConn) until the requests
			// under way are done.
			s.closeQuietConns()
			if err = s.httpSrv.Shutdown(ctx); err != nil {
				cut := s.openConns()
				_ = s.httpSrv.Close()
				err = fmt.Errorf("mockserver: the grace period ended: %d connections under way cut: %w", cut, err)
			}
			<-s.serveDone
		}
		if serr := s.saveState(); serr != nil {
			err = errors.Join(err, fmt.Errorf("%w: %w", ErrStateNotSaved, serr))
		}
		s.stopAll()
	})
	return err
}

// trackConn follows the state of every connection, for Shutdown.
func (s *Server) trackConn(c net.Conn, state http.ConnState) {
	s.connsMu.Lock()
	defer s.connsMu.Unlock()
	switch {
	case state == http.StateHijacked || state == http.StateClosed:
		delete(s.conns, c)
	case s.quieting && (state == http.StateNew || state == http.StateIdle):
		_ = c.Close()
		delete(s.conns, c)
	default:
		s.conns[c] = state
	}
}

// openConns counts the open connections.
func (s *Server) openConns() int {
	s.connsMu.Lock()
	defer s.connsMu.Unlock()
	return len(s.conns)
}

// closeQuietConns closes the connections that are idle or have not sent a
// request yet, and from now on each that becomes so.
func (s *Server) closeQuietConns() {
	s.connsMu.Lock()
	defer s.connsMu.Unlock()
	s.quieting = true
	for c, st := range s.conns {
		if st == http.StateNew || st == http.StateIdle {
			_ = c.Close()
			delete(s.conns, c)
		}
	}
}

// dialableAddr turns a listener's address into one a client can dial: an
// unspecified host (":0", "0.0.0.0", "[::]") becomes the loopback address.
func dialableAddr(a net.Addr) string {
	tcp, ok := a.(*net.TCPAddr)
	if !ok || !tcp.IP.IsUnspecified() {
		return a.String()
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(tcp.Port))
}

// stopAll stops every tenant's analysis timers.
func (s *Server) stopAll() {
	for _, t := range s.allTenants() {
		t.store.stopRuns()
	}
}

func (s *Server) allTenants() []*Tenant {
	return append([]*Tenant{s.Tenant}, s.others.all()...)
}
