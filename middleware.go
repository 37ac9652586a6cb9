package profilesvc

import (
	"context"
	"net/http"
	"sync/atomic"
	"time"
)

// MiddlewareNext sends a request on to the next middleware or, after the
// last, to the network, and returns its answer.
type MiddlewareNext func(*http.Request) (*http.Response, error)

// Middleware wraps every attempt of a request: tracing, metrics, logging.
// It may change the request, look at the answer or the error, or answer
// itself without calling next. It runs once per attempt (a call that is
// retried runs it again), after the request is built and before it is
// sent, within the attempt's time limit.
//
// The request it sees carries the API key in its x-api-key header: a
// middleware must never log or forward that header. A middleware that
// returns neither an answer nor an error makes the attempt fail.
type Middleware func(req *http.Request, next MiddlewareNext) (*http.Response, error)

// WithMiddleware adds middleware that wraps every attempt of every call of
// the client, in the order given: the first given sees the request first
// and the answer last. Middleware given to one call with
// WithCallMiddleware runs after (inside) the client's.
func WithMiddleware(mw ...Middleware) Option {
	return func(c *config) { c.middleware = append(c.middleware, mw...) }
}

// WithCallMiddleware adds middleware to one call, after (inside) the
// client's own: see Middleware.
func WithCallMiddleware(mw ...Middleware) RequestOption {
	return func(c *callConfig) { c.middleware = append(c.middleware, mw...) }
}

// WithResponseInto keeps the final answer of a successful call in *dst: its
// status and headers (X-Request-Id, say). Its body is already consumed and
// reads as empty. *dst is left as it is when the call fails; the error then
// carries what the answer said (see APIError).
func WithResponseInto(dst **http.Response) RequestOption {
	return func(c *callConfig) { c.responseInto = dst }
}

// RouteTemplate returns the route of the call that ctx belongs to, as a
// template with its parameters unfilled, such as "/v1/analyses/{analysisId}",
// or "" for a context no call made. Every request the client sends carries
// it in its context, so a middleware can name spans and metrics without
// an ID in them. A request sent with Client.Do has its path as given,
// without its query.
func RouteTemplate(ctx context.Context) string {
	if info, ok := ctx.Value(callKey{}).(*callInfo); ok {
		return info.route
	}
	return ""
}

// Attempt returns which attempt of its call the request of ctx is: 1 for
// the first, 2 for the first retry, and so on; 0 for a context no attempt
// of a call made. A middleware reads it from the request's context, to
// tell a retry from the first attempt (OpenTelemetry's
// http.request.resend_count is Attempt - 1). It counts what the client
// sent, each attempt once, whatever its middleware does with it.
func Attempt(ctx context.Context) int {
	n, _ := ctx.Value(attemptKey{}).(int)
	return n
}

// attemptKey carries an attempt's number in its request's context.
type attemptKey struct{}

// callKey carries a call's *callInfo in the context of its requests.
type callKey struct{}

// callInfo is what the transport needs to know of the call an attempt
// belongs to.
type callInfo struct {
	// route is the call's route template, for RouteTemplate.
	route string
	// timeout is the time limit of one attempt; 0 means none.
	timeout time.Duration
	// middleware is the call's own, run after the client's.
	middleware []Middleware
	// attempts counts the call's attempts, for Attempt.
	attempts atomic.Int32
}
