// Package otelprofilesvc traces and measures the calls of a profilesvc
// client with OpenTelemetry: one client span per attempt (a retried call
// has one per attempt, retries marked), and the metric
// http.client.request.duration, following OpenTelemetry's semantic
// conventions for HTTP clients. It is a profilesvc.Middleware:
//
//	client, err := profilesvc.NewClient(profilesvc.WithMiddleware(otelprofilesvc.Middleware()))
//
// Spans are named after the call's route template, such as
// "GET /v1/analyses/{analysisId}", never its IDs, and no attribute holds
// the API key or a URL with IDs. The trace context is injected into each
// request's headers, so that a service (or the mock, whose request record
// shows the traceparent header) continues the trace.
package otelprofilesvc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/internal/apiroutes"
)

// instrumentationName names the tracer and the meter.
const instrumentationName = "github.com/profilesvc/profilesvc-go/otelprofilesvc"

// Attribute keys: those of OpenTelemetry's HTTP semantic conventions,
// and the long poll's own.
const (
	keyMethod        = attribute.Key("http.request.method")
	keyServerAddress = attribute.Key("server.address")
	keyServerPort    = attribute.Key("server.port")
	keyURLTemplate   = attribute.Key("url.template")
	keyStatusCode    = attribute.Key("http.response.status_code")
	keyResendCount   = attribute.Key("http.request.resend_count")
	keyErrorType     = attribute.Key("error.type")
	// KeyLongPollTimeout is the attribute of a long poll's span: the
	// timeoutSeconds it sent, an integer.
	KeyLongPollTimeout = attribute.Key("profilesvc.long_poll.timeout_seconds")
)

// Option configures Middleware.
type Option func(*config)

type config struct {
	tracerProvider trace.TracerProvider
	meterProvider  metric.MeterProvider
	propagators    propagation.TextMapPropagator
}

// WithTracerProvider sets the provider of the spans; the global one
// (otel.GetTracerProvider) by default.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(c *config) { c.tracerProvider = tp }
}

// WithMeterProvider sets the provider of the metric; the global one
// (otel.GetMeterProvider) by default.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(c *config) { c.meterProvider = mp }
}

// WithPropagators sets how the trace context is written into the
// requests' headers; the global propagators (otel.GetTextMapPropagator)
// by default.
func WithPropagators(p propagation.TextMapPropagator) Option {
	return func(c *config) { c.propagators = p }
}

// Middleware returns the middleware that traces and measures every
// attempt of every call of a client (profilesvc.WithMiddleware), or of
// one call (profilesvc.WithCallMiddleware).
//
// Each attempt gets a client span named "{method} {route template}" with
// the attributes http.request.method, server.address, server.port,
// url.template and http.response.status_code, http.request.resend_count
// on a retry (profilesvc.Attempt - 1), error.type on a failure (the
// service's error code, such as ANALYSIS_IN_PROGRESS, or the transport
// error's kind), and profilesvc.long_poll.timeout_seconds on a long poll.
// Its status is Error for a 5xx answer and a transport error. The metric
// http.client.request.duration (a histogram, in seconds) has the same
// attributes but the resend count and the long poll's.
func Middleware(opts ...Option) profilesvc.Middleware {
	cfg := config{}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.tracerProvider == nil {
		cfg.tracerProvider = otel.GetTracerProvider()
	}
	if cfg.meterProvider == nil {
		cfg.meterProvider = otel.GetMeterProvider()
	}
	if cfg.propagators == nil {
		cfg.propagators = otel.GetTextMapPropagator()
	}
	tracer := cfg.tracerProvider.Tracer(instrumentationName, trace.WithInstrumentationVersion(profilesvc.Version))
	meter := cfg.meterProvider.Meter(instrumentationName, metric.WithInstrumentationVersion(profilesvc.Version))
	duration, err := meter.Float64Histogram("http.client.request.duration",
		metric.WithUnit("s"), metric.WithDescription("Duration of HTTP client requests."),
		metric.WithExplicitBucketBoundaries(0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10))
	if err != nil {
		otel.Handle(err)
	}
	m := &middleware{tracer: tracer, duration: duration, propagators: cfg.propagators}
	return m.attempt
}

type middleware struct {
	tracer      trace.Tracer
	duration    metric.Float64Histogram
	propagators propagation.TextMapPropagator
}

// attempt traces and measures one attempt.
func (m *middleware) attempt(req *http.Request, next profilesvc.MiddlewareNext) (*http.Response, error) {
	ctx := req.Context()
	route := routeTemplate(ctx)
	method := knownMethod(req.Method)
	name := method
	switch {
	case method == "_OTHER":
		name = "HTTP"
	case route != "":
		name += " " + route
	}
	attrs := requestAttributes(req, method, route)
	spanAttrs := attrs
	if n := profilesvc.Attempt(ctx); n > 1 {
		spanAttrs = append(spanAttrs, keyResendCount.Int(n-1))
	}
	if t, ok := longPollTimeout(req); ok {
		spanAttrs = append(spanAttrs, KeyLongPollTimeout.Int(t))
	}
	ctx, span := m.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(spanAttrs...))
	defer span.End()

	req = req.Clone(ctx)
	m.propagators.Inject(ctx, propagation.HeaderCarrier(req.Header))
	start := time.Now()
	resp, err := next(req)
	elapsed := time.Since(start).Seconds()

	var outcome []attribute.KeyValue
	switch {
	case err != nil || resp == nil:
		kind := "no_answer" // a middleware inside that gave neither
		if err != nil {
			kind = transportErrorKind(req.Context(), err)
		}
		outcome = append(outcome, keyErrorType.String(kind))
		span.SetStatus(codes.Error, kind)
	default:
		outcome = append(outcome, keyStatusCode.Int(resp.StatusCode))
		if resp.StatusCode >= 400 {
			code := errorCode(resp)
			outcome = append(outcome, keyErrorType.String(code))
			if resp.StatusCode >= 500 {
				span.SetStatus(codes.Error, code)
			}
		}
	}
	span.SetAttributes(outcome...)
	if m.duration != nil {
		m.duration.Record(ctx, elapsed, metric.WithAttributes(append(attrs, outcome...)...))
	}
	return resp, err
}

// routeTemplate is the call's route template when it is one of the
// service's (internal/apiroutes): a request sent with Client.Do has its
// path as given, IDs and all, which must name no span nor metric.
func routeTemplate(ctx context.Context) string {
	route := profilesvc.RouteTemplate(ctx)
	if _, ok := templates[route]; ok {
		return route
	}
	return ""
}

// templates are the route templates of the service and of the mock.
var templates = func() map[string]struct{} {
	m := map[string]struct{}{}
	for _, r := range append(apiroutes.All(), apiroutes.Mock()...) {
		m[r.Path] = struct{}{}
	}
	return m
}()

// knownMethod is the method as OpenTelemetry's conventions name it: one
// of HTTP's, or _OTHER.
func knownMethod(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodConnect, http.MethodOptions, http.MethodTrace:
		return m
	}
	return "_OTHER"
}

// requestAttributes are the low-cardinality attributes of a request: its
// method, its server and its route template.
func requestAttributes(req *http.Request, method, route string) []attribute.KeyValue {
	attrs := []attribute.KeyValue{keyMethod.String(method)}
	host, port := req.URL.Hostname(), req.URL.Port()
	if host != "" {
		attrs = append(attrs, keyServerAddress.String(host))
	}
	if port == "" {
		switch req.URL.Scheme {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	if p, err := strconv.Atoi(port); err == nil {
		attrs = append(attrs, keyServerPort.Int(p))
	}
	if route != "" {
		attrs = append(attrs, keyURLTemplate.String(route))
	}
	return attrs
}

// longPollTimeout returns the timeoutSeconds of a long poll
// (waitForReport=true).
func longPollTimeout(req *http.Request) (int, bool) {
	q := req.URL.Query()
	if q.Get("waitForReport") != "true" {
		return 0, false
	}
	t, err := strconv.Atoi(q.Get("timeoutSeconds"))
	return t, err == nil
}

// maxErrorBody bounds the error body read for its code; the body is put
// back for the client whole.
const maxErrorBody = 64 << 10

// errorCode returns the code of the service's error body ({"error":
// {"code": ...}}) when it is one the SDK knows (knownCodes), or the status
// code as text: a code the server makes up (a request ID in it, the key
// echoed) would give the metric a series per value, and could carry a
// secret.
func errorCode(resp *http.Response) string {
	fallback := strconv.Itoa(resp.StatusCode)
	if resp.Body == nil || resp.Body == http.NoBody {
		return fallback
	}
	head, err := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head), resp.Body), resp.Body}
	if err != nil {
		return fallback
	}
	var body struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(head, &body) != nil {
		return fallback
	}
	if _, ok := knownCodes[body.Error.Code]; !ok {
		return fallback
	}
	return body.Error.Code
}

// knownCodes are the error codes the SDK knows: those of the interface
// document, and those it gives where the document is silent.
var knownCodes = map[string]struct{}{
	profilesvc.CodeUnauthorized: {}, profilesvc.CodeInvalidItemIDs: {}, profilesvc.CodeReportNotAvailable: {},
	profilesvc.CodeCannotModifyDefaultFolder: {}, profilesvc.CodeCannotDeleteDefaultFolder: {},
	profilesvc.CodeProfileNotFound: {}, profilesvc.CodeFolderNotFound: {}, profilesvc.CodeItemNotFound: {},
	profilesvc.CodeAnalysisNotFound: {}, profilesvc.CodeAnalysisInProgress: {}, profilesvc.CodeProfileNotFoundSVC: {},
	profilesvc.CodeFolderNotFoundSVC: {}, profilesvc.CodeValidation: {}, profilesvc.CodeWorkflowNotFound: {},
	profilesvc.CodeNotFound: {}, profilesvc.CodeMethodNotAllowed: {}, profilesvc.CodeUnsupportedMediaType: {},
	profilesvc.CodePayloadTooLarge: {}, profilesvc.CodeRateLimited: {}, profilesvc.CodeInternal: {},
	profilesvc.CodeServiceUnavailable: {},
}

// transportErrorKind names the kind of a transport error, with few
// values: timeout (the attempt's time limit, the caller's deadline, or the
// network's), canceled, connection_closed, connection_refused,
// connection_reset, dns_error, tls_error, or the error's Go type. ctx is
// the attempt's: its end says more than an error that carries its cause.
func transportErrorKind(ctx context.Context, err error) string {
	var dnsErr *net.DNSError
	var opErr *net.OpError
	var netErr net.Error
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return "timeout"
	case errors.Is(ctx.Err(), context.Canceled), errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return "timeout"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "connection_closed"
	case errors.As(err, &dnsErr):
		return "dns_error"
	case errors.As(err, &opErr) && opErr.Op == "dial":
		return "connection_refused"
	case errors.As(err, &opErr) && (opErr.Op == "read" || opErr.Op == "write"):
		return "connection_reset"
	case isTLSError(err):
		return "tls_error"
	}
	return errorTypeName(err)
}
