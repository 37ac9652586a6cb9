package profilesvc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/profilesvc/profilesvc-go/internal/apiroutes"
	"github.com/profilesvc/profilesvc-go/internal/origin"
)

// Version is the SDK's version, sent in the User-Agent header.
const Version = "0.2.0"

// Environment variables NewClient reads when no option gives the value.
const (
	EnvAPIKey  = "PROFILESVC_API_KEY"
	EnvBaseURL = "PROFILESVC_BASE_URL"
)

// Defaults of the client's options.
const (
	DefaultMaxRetries     = 3
	DefaultRetryWaitMin   = 500 * time.Millisecond
	DefaultRetryWaitMax   = 30 * time.Second
	DefaultRequestTimeout = 60 * time.Second
)

// longPollMargin is added to a long poll's timeoutSeconds to make the
// request's own deadline, so that the server, not the client, ends the
// wait.
const longPollMargin = 15 * time.Second

// Client calls the service. It is safe for concurrent use; make one and
// share it.
type Client struct {
	base           *url.URL // scheme, host and any prefix, without /v1
	apiKey         string
	secret         *secret // the API key, as it is masked
	maxResponse    int64
	http           *http.Client
	maxRetries     int
	retryWaitMin   time.Duration
	retryWaitMax   time.Duration
	requestTimeout time.Duration
	logger         *slog.Logger
	userAgent      string
	// pauseMin and pauseMax bound WaitForAnalysis's pause after a poll the
	// service answered at once (waiter.pace). They are quickPauseMin and
	// quickPauseMax; only the package's tests set others.
	pauseMin, pauseMax time.Duration
}

// Option configures a Client in NewClient.
type Option func(*config)

type config struct {
	apiKey, baseURL   string
	httpClient        *http.Client
	maxRetries        *int
	waitMin, waitMax  time.Duration
	requestTimeout    *time.Duration
	logger            *slog.Logger
	userAgent         string
	middleware        []Middleware
	maxResponseSize   *int64
	apiKeySet, urlSet bool
}

// WithAPIKey sets the API key sent in the x-api-key header. Without it the
// key comes from $PROFILESVC_API_KEY.
func WithAPIKey(key string) Option {
	return func(c *config) { c.apiKey, c.apiKeySet = key, true }
}

// WithBaseURL sets the service's address, such as "https://api.example.com".
// A trailing slash and a trailing "/v1" are both accepted. Without it the
// address comes from $PROFILESVC_BASE_URL.
func WithBaseURL(u string) Option {
	return func(c *config) { c.baseURL, c.urlSet = u, true }
}

// WithHTTPClient sets the http.Client whose transport, cookie jar and
// redirect policy the SDK uses. Its Timeout is not used as a whole-request
// limit, which would cut long polls short: it becomes the default
// per-request timeout instead, unless WithRequestTimeout is given.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *config) { c.httpClient = hc }
}

// WithMaxRetries sets how many times a failed request may be retried (so a
// request is sent at most n+1 times); 0 turns retries off. Default 3.
func WithMaxRetries(n int) Option {
	return func(c *config) { c.maxRetries = &n }
}

// WithRetryWait sets the bounds of the wait between retries: the first
// retry waits about min, each later one twice as long, never more than max.
// A Retry-After longer than max is not waited for: the call returns the
// service's error at once. Defaults 500ms and 30s.
func WithRetryWait(min, max time.Duration) Option {
	return func(c *config) { c.waitMin, c.waitMax = min, max }
}

// WithRequestTimeout sets the time limit of one attempt of a request, from
// sending it to reading its whole answer; 0 means none. A long poll's limit
// is instead its timeoutSeconds plus a margin. The context given to each
// call bounds the call as a whole, retries included. Default 60s.
func WithRequestTimeout(d time.Duration) Option {
	return func(c *config) { c.requestTimeout = &d }
}

// WithLogger sets the logger the SDK writes to: a debug line for every
// attempt and its answer, a warning for every retry. The API key is never
// logged. By default nothing is logged.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) { c.logger = l }
}

// WithUserAgent puts the caller's product token, such as "myapp/1.2",
// before the SDK's own in the User-Agent header.
func WithUserAgent(ua string) Option {
	return func(c *config) { c.userAgent = ua }
}

// NewClient returns a client configured by opts, with the API key and base
// URL taken from $PROFILESVC_API_KEY and $PROFILESVC_BASE_URL when no
// option gives them. A missing key or address, or an address that is not an
// absolute http(s) URL, is an error here rather than on the first request.
func NewClient(opts ...Option) (*Client, error) {
	var cfg config
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	if !cfg.apiKeySet {
		cfg.apiKey = os.Getenv(EnvAPIKey)
	}
	if !cfg.urlSet {
		cfg.baseURL = os.Getenv(EnvBaseURL)
	}
	base, err := cfg.validate()
	if err != nil {
		return nil, err
	}
	return cfg.newClient(base), nil
}

// validate checks the configuration and returns the parsed service
// address.
func (cfg *config) validate() (*url.URL, error) {
	if strings.TrimSpace(cfg.apiKey) == "" {
		return nil, fmt.Errorf("profilesvc: no API key: use WithAPIKey or set %s", EnvAPIKey)
	}
	if strings.ContainsAny(cfg.apiKey, "\r\n") {
		return nil, errors.New("profilesvc: the API key contains a line break")
	}
	base, err := parseBaseURL(cfg.baseURL)
	if err != nil {
		// An address can hold a secret (user info, a query): never repeat
		// the key in the error.
		return nil, errors.New(newSecret(cfg.apiKey).mask(err.Error()))
	}
	if cfg.maxResponseSize != nil && *cfg.maxResponseSize <= 0 {
		return nil, fmt.Errorf("profilesvc: the largest answer, %d bytes, must be positive", *cfg.maxResponseSize)
	}
	if cfg.maxRetries != nil && *cfg.maxRetries < 0 {
		return nil, fmt.Errorf("profilesvc: max retries %d is negative", *cfg.maxRetries)
	}
	if (cfg.waitMin != 0 || cfg.waitMax != 0) && (cfg.waitMin <= 0 || cfg.waitMax < cfg.waitMin) {
		return nil, fmt.Errorf("profilesvc: retry wait bounds %v..%v: want 0 < min <= max", cfg.waitMin, cfg.waitMax)
	}
	if cfg.requestTimeout != nil && *cfg.requestTimeout < 0 {
		return nil, fmt.Errorf("profilesvc: request timeout %v is negative", *cfg.requestTimeout)
	}
	return base, nil
}

// newClient builds the client of a valid configuration: the defaults of
// what it leaves unset, and an HTTP client of its own whose transport
// gives each attempt its deadline and middleware.
func (cfg *config) newClient(base *url.URL) *Client {
	c := &Client{
		base:           base,
		apiKey:         cfg.apiKey,
		secret:         newSecret(cfg.apiKey),
		maxResponse:    DefaultMaxResponseSize,
		maxRetries:     DefaultMaxRetries,
		retryWaitMin:   DefaultRetryWaitMin,
		retryWaitMax:   DefaultRetryWaitMax,
		requestTimeout: DefaultRequestTimeout,
		logger:         cfg.logger,
		userAgent:      fmt.Sprintf("profilesvc-go/%s go/%s", Version, strings.TrimPrefix(runtime.Version(), "go")),
		pauseMin:       quickPauseMin,
		pauseMax:       quickPauseMax,
	}
	if cfg.userAgent != "" {
		c.userAgent = cfg.userAgent + " " + c.userAgent
	}
	if cfg.maxRetries != nil {
		c.maxRetries = *cfg.maxRetries
	}
	if cfg.maxResponseSize != nil {
		c.maxResponse = *cfg.maxResponseSize
	}
	if cfg.waitMin != 0 || cfg.waitMax != 0 {
		c.retryWaitMin, c.retryWaitMax = cfg.waitMin, cfg.waitMax
	}
	var hc http.Client
	if cfg.httpClient != nil {
		hc = *cfg.httpClient
		if hc.Timeout > 0 {
			c.requestTimeout = hc.Timeout
		}
		hc.Timeout = 0
	}
	if cfg.requestTimeout != nil {
		c.requestTimeout = *cfg.requestTimeout
	}
	transport := hc.Transport
	if transport == nil {
		transport = http.DefaultTransport
	}
	hc.Transport = &attemptTransport{base: transport, middleware: cfg.middleware}
	hc.CheckRedirect = keyStaysHome(hc.CheckRedirect)
	c.http = &hc
	return c
}

// parseBaseURL checks the service address and strips a trailing "/" and
// "/v1", so that paths can be appended to it.
func parseBaseURL(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, fmt.Errorf("profilesvc: no base URL: use WithBaseURL or set %s", EnvBaseURL)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("profilesvc: base URL: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("profilesvc: base URL %q: the scheme must be http or https", raw)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("profilesvc: base URL %q has no host", raw)
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("profilesvc: base URL %s://%s: user info, a query and a fragment are not allowed", u.Scheme, u.Host)
	}
	p := strings.TrimRight(u.Path, "/")
	p = strings.TrimSuffix(p, "/v1")
	u.Path = strings.TrimRight(p, "/")
	u.RawPath = ""
	return u, nil
}

// sameHostRedirects is the default redirect policy: redirects are followed
// only within the service's origin; the answer of one to another origin is
// the call's answer.
func sameHostRedirects(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	if !origin.Same(req.URL, via[0].URL) {
		return http.ErrUseLastResponse
	}
	return nil
}

// keyStaysHome wraps a redirect policy, the caller's (WithHTTPClient) or
// the default, so that a redirect to another origin (scheme, host or port)
// never carries the API key: Go drops only its own sensitive headers.
func keyStaysHome(policy func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	if policy == nil {
		policy = sameHostRedirects
	}
	return func(req *http.Request, via []*http.Request) error {
		if !origin.Same(req.URL, via[0].URL) {
			req.Header.Del("x-api-key")
		}
		return policy(req, via)
	}
}

// BaseURL returns the service address the client sends requests to,
// without the /v1 of the paths.
func (c *Client) BaseURL() string { return c.base.String() }

// RequestOption changes one call: its headers, retries or timeout. Every
// method takes them last, so that no caller needs a second client for one
// special call.
type RequestOption func(*callConfig)

type callConfig struct {
	header       http.Header
	retries      *int
	timeout      *time.Duration
	middleware   []Middleware
	responseInto **http.Response
}

// newCallConfig applies a call's options.
func newCallConfig(opts []RequestOption) *callConfig {
	cc := &callConfig{}
	for _, o := range opts {
		if o != nil {
			o(cc)
		}
	}
	return cc
}

// keepResponse hands the final answer of a successful call to
// WithResponseInto, with its body consumed.
func (cc *callConfig) keepResponse(resp *http.Response) {
	if cc.responseInto == nil {
		return
	}
	kept := *resp
	kept.Body = http.NoBody
	*cc.responseInto = &kept
}

// WithHeader adds a header to one call. It cannot replace x-api-key.
func WithHeader(key, value string) RequestOption {
	return func(c *callConfig) {
		if c.header == nil {
			c.header = make(http.Header)
		}
		c.header.Add(key, value)
	}
}

// WithRetries sets how many times one call may be retried, in place of the
// client's WithMaxRetries.
func WithRetries(n int) RequestOption {
	return func(c *callConfig) { c.retries = &n }
}

// WithTimeout sets the time limit of each attempt of one call, in place of
// the client's WithRequestTimeout.
func WithTimeout(d time.Duration) RequestOption {
	return func(c *callConfig) { c.timeout = &d }
}

// request is one call to the service, before it is sent.
type request struct {
	method string
	path   string // escaped, from apiroutes.Expand
	route  string // the path's template, for RouteTemplate
	query  url.Values
	json   any       // body to encode as JSON, or nil
	body   *bodySpec // a streamed body, or nil
	accept string    // default application/json
	// stream leaves a successful answer's body to the caller to read, as
	// it comes; otherwise it is read whole within the retry loop.
	stream bool
	// longPoll is how long the server may hold the request; the attempt
	// timeout is at least longPoll plus a margin.
	longPoll time.Duration
}

// bodySpec is a request body that is streamed rather than encoded.
type bodySpec struct {
	open        retryablehttp.ReaderFunc
	contentType string
	replayable  bool // false: the body can be sent only once
}

// newRequest expands a path template; an ID that cannot be used in a path
// is refused here, before anything is sent.
func newRequest(method, template string, ids ...string) (*request, error) {
	p, err := apiroutes.Expand(template, ids...)
	if err != nil {
		if errors.Is(err, apiroutes.ErrInvalidID) {
			return nil, fmt.Errorf("%w: %s %s: %s", ErrInvalidID, method, template,
				strings.TrimPrefix(err.Error(), apiroutes.ErrInvalidID.Error()+": "))
		}
		return nil, fmt.Errorf("profilesvc: %w", err)
	}
	return &request{method: method, path: p, route: template}, nil
}

// do sends r and decodes a successful JSON answer into out (unless out is
// nil). Every method of the client goes through it or through send.
func (c *Client) do(ctx context.Context, r *request, out any, opts []RequestOption) error {
	cc := newCallConfig(opts)
	resp, err := c.send(ctx, r, cc)
	if err != nil {
		return err
	}
	defer closeBody(resp.Body)
	if out != nil && resp.StatusCode != http.StatusNoContent {
		if err := r.decode(resp, out, c.secret); err != nil {
			return err
		}
	}
	cc.keepResponse(resp)
	return nil
}

// decode decodes a successful answer, read whole within the retry loop
// (see retrier.readBody), into out. An answer that is not JSON of out's
// shape matches ErrMalformedResponse.
func (r *request) decode(resp *http.Response, out any, secret *secret) error {
	var data []byte
	if b, ok := resp.Body.(bufferedBody); ok {
		data = b.data
	}
	if err := unmarshal(data, out); err != nil {
		return secret.maskErr(fmt.Errorf("%w: %s %s: the answer is not JSON of the expected shape: %w", ErrMalformedResponse, r.method, r.path, err))
	}
	return nil
}

// send sends r with retries and returns the answer if its status is 2xx;
// any other answer becomes an *APIError. The caller closes the body.
func (c *Client) send(ctx context.Context, r *request, cc *callConfig) (*http.Response, error) {
	if ctx == nil {
		return nil, errors.New("profilesvc: nil context")
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("profilesvc: %s %s: %w", r.method, r.path, err)
	}
	req, replayable, err := c.newHTTPRequest(ctx, r, cc)
	if err != nil {
		return nil, err
	}
	retries := c.maxRetries
	if cc.retries != nil && *cc.retries >= 0 {
		retries = *cc.retries
	}
	if !replayable {
		retries = 0
	}
	rt := &retrier{
		secret:      c.secret,
		maxResponse: c.maxResponse,
		method:      r.method,
		path:        r.path,
		url:         req.URL.String(),
		maxRetries:  retries,
		waitMin:     c.retryWaitMin,
		waitMax:     c.retryWaitMax,
		logger:      c.logger,
		idempotent:  isIdempotent(r.method),
		now:         time.Now,
		jitter:      randomJitter,
		attemptTime: time.Now(),
	}
	rc := &retryablehttp.Client{
		HTTPClient:   c.http,
		RetryMax:     retries,
		RetryWaitMin: c.retryWaitMin,
		RetryWaitMax: c.retryWaitMax,
		CheckRetry:   rt.check,
		Backoff:      rt.backoff,
		ErrorHandler: rt.lastResponse,
	}
	if c.logger != nil {
		rc.Logger = slogAdapter{l: c.logger, secret: c.secret}
	}
	if !r.stream {
		req.SetResponseHandler(rt.readBody)
	}
	resp, err := rc.Do(req)
	if err != nil {
		if resp != nil {
			closeBody(resp.Body)
		}
		return nil, c.secret.maskErr(rt.wrap(ctx, err))
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer closeBody(resp.Body)
		body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		return nil, rt.apiError(resp, body)
	}
	return resp, nil
}

// newHTTPRequest builds the request of one call, ready to send: its URL,
// its body (encoded, or streamed from r.body), its headers, and the call's
// route, attempt timeout and middleware in its context. It reports whether
// the body can be sent again on a retry.
func (c *Client) newHTTPRequest(ctx context.Context, r *request, cc *callConfig) (*retryablehttp.Request, bool, error) {
	u := *c.base
	u.Path = c.base.Path + unescapePath(r.path)
	u.RawPath = c.base.EscapedPath() + r.path
	if len(r.query) > 0 {
		u.RawQuery = r.query.Encode()
	}

	var raw any
	contentType := ""
	replayable := true
	switch {
	case r.body != nil:
		raw = r.body.open
		contentType = r.body.contentType
		replayable = r.body.replayable
	case r.json != nil:
		b, err := json.Marshal(r.json)
		if err != nil {
			return nil, false, fmt.Errorf("profilesvc: %s %s: encoding the body: %w", r.method, r.path, err)
		}
		raw = b
		contentType = "application/json"
	}

	info := &callInfo{route: r.route, timeout: c.requestTimeout, middleware: cc.middleware}
	if cc.timeout != nil {
		info.timeout = *cc.timeout
	}
	if r.longPoll > 0 && info.timeout > 0 && info.timeout < r.longPoll+longPollMargin {
		info.timeout = r.longPoll + longPollMargin
	}
	req, err := retryablehttp.NewRequestWithContext(context.WithValue(ctx, callKey{}, info), r.method, u.String(), raw)
	if err != nil {
		return nil, false, fmt.Errorf("profilesvc: %s %s: %w", r.method, r.path, err)
	}
	for k, vs := range cc.header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	req.Header.Set("x-api-key", c.apiKey)
	req.Header.Set("User-Agent", c.userAgent)
	accept := r.accept
	if accept == "" {
		accept = "application/json"
	}
	req.Header.Set("Accept", accept)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	return req, replayable, nil
}

// unescapePath decodes an escaped path for url.URL.Path; RawPath keeps the
// escaped form that goes on the wire.
func unescapePath(p string) string {
	s, err := url.PathUnescape(p)
	if err != nil {
		return p
	}
	return s
}

// closeBody drains a little of the body, so that the connection can be
// reused, and closes it.
func closeBody(b io.ReadCloser) {
	_, _ = io.Copy(io.Discard, io.LimitReader(b, 4<<10))
	_ = b.Close()
}

// Do sends any request to the service with the client's authentication,
// retries and typed errors: an escape hatch for calls the SDK does not
// wrap. path is relative to the API's version root ("/profiles/pf_1"), or
// begins with "/v1/"; it may carry a query, and its segments must already
// be escaped. body, unless nil, is sent as JSON ([]byte and json.RawMessage
// as they are); a successful JSON answer is decoded into out unless out is
// nil.
func (c *Client) Do(ctx context.Context, method, path string, body, out any, opts ...RequestOption) error {
	if method == "" {
		return errors.New("profilesvc: Do: empty method")
	}
	r := &request{method: strings.ToUpper(method)}
	if i := strings.IndexByte(path, '?'); i >= 0 {
		q, err := url.ParseQuery(path[i+1:])
		if err != nil {
			return fmt.Errorf("profilesvc: Do: query of %q: %w", path, err)
		}
		r.query, path = q, path[:i]
	}
	r.route = path
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	if !strings.HasPrefix(path, "/v1/") && path != "/v1" {
		path = "/v1" + path
	}
	r.path = path
	switch b := body.(type) {
	case nil:
	case []byte:
		r.json = json.RawMessage(b)
	case io.Reader:
		return errors.New("profilesvc: Do: pass the body as a value to encode or as []byte, not an io.Reader")
	default:
		r.json = b
	}
	return c.do(ctx, r, out, opts)
}

// errorf wraps err with the call it belongs to.
func (r *request) errorf(format string, args ...any) error {
	return fmt.Errorf("profilesvc: %s %s: %s", r.method, r.path, fmt.Sprintf(format, args...))
}

// jsonBytes encodes v as JSON without escaping HTML characters and
// without the encoder's trailing newline, for bodies built from caller
// data.
func jsonBytes(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}
