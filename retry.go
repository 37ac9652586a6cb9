package profilesvc

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// The retry policy, as a few named decisions.
//
// Which requests are retried:
//   - GET, PATCH and DELETE (isIdempotent) on a connection error, an attempt
//     timeout, or an answer of 429, 500, 502, 503 or 504.
//   - POST only where the service certainly did not act on the request: an
//     answer of 429 or 503, or a connection that was never established.
//     Never after an ambiguous failure (a 500, a timeout, a connection lost
//     after sending), so that a retry can never start a second analysis or
//     create a second profile.
//   - A streamed body that cannot be rewound is sent once only.
//
// How long to wait (backoff): exponential from the minimum wait, doubling
// each retry, bounded by the maximum wait, with jitter over the upper half
// of each step. A 429 or 503 with Retry-After (seconds or an HTTP date) is
// waited for exactly; one that asks for more than the maximum wait is not
// waited for, and its error is returned at once. A wait that would end
// after the context's deadline is not started.

// isIdempotent reports whether a request with this method may be retried
// after an ambiguous failure.
func isIdempotent(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodPut, http.MethodPatch, http.MethodDelete:
		return true
	}
	return false
}

// retryableStatus reports whether an answer with this status may be retried.
func retryableStatus(idempotent bool, status int) bool {
	switch status {
	case http.StatusTooManyRequests, http.StatusServiceUnavailable:
		return true
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusGatewayTimeout:
		return idempotent
	}
	return false
}

// retryableError reports whether a failed attempt that got no answer may be
// retried.
func retryableError(idempotent bool, err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	if isPermanentTransportError(err) || errors.Is(err, ErrResponseTooLarge) {
		return false
	}
	if idempotent {
		return true
	}
	return neverConnected(err)
}

// neverConnected reports whether err says the connection was never
// established, so the server cannot have seen the request.
func neverConnected(err error) bool {
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Op == "dial" {
		return true
	}
	var dnsErr *net.DNSError
	return errors.As(err, &dnsErr)
}

// isPermanentTransportError reports a failure that a retry cannot cure: a
// certificate the client does not trust, a bad scheme, too many redirects.
func isPermanentTransportError(err error) bool {
	var certErr *tls.CertificateVerificationError
	var unknownAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var invalidCert x509.CertificateInvalidError
	if errors.As(err, &certErr) || errors.As(err, &unknownAuth) || errors.As(err, &hostErr) || errors.As(err, &invalidCert) {
		return true
	}
	var uerr *url.Error
	if errors.As(err, &uerr) {
		msg := uerr.Err.Error()
		if strings.Contains(msg, "unsupported protocol scheme") || strings.Contains(msg, "stopped after") ||
			strings.Contains(msg, "invalid header") {
			return true
		}
	}
	return false
}

// backoff returns the wait before retry number attempt (0 for the first
// retry): min doubled attempt times, bounded by max, with jitter drawn from
// the upper half of that step. jitter returns a number in [0, 1).
func backoff(min, max time.Duration, attempt int, jitter func() float64) time.Duration {
	if min <= 0 {
		return 0
	}
	step := min
	for i := 0; i < attempt && step < max; i++ {
		step *= 2
	}
	if step > max || step <= 0 {
		step = max
	}
	half := step / 2
	return half + time.Duration(float64(step-half)*jitter())
}

// randomJitter is the jitter source of real clients.
func randomJitter() float64 { return rand.Float64() }

// parseRetryAfter reads a Retry-After header: a number of seconds or an
// HTTP date. A date in the past means no wait.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		if secs > int64(1<<62/time.Second) {
			secs = int64(1 << 62 / time.Second)
		}
		return time.Duration(secs) * time.Second, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	if d := t.Sub(now); d > 0 {
		return d, true
	}
	return 0, true
}

// retrier carries one call's retry decisions through go-retryablehttp's
// hooks: check decides and computes the wait, backoff hands it over, and
// lastResponse keeps the final answer so that its typed error is returned.
type retrier struct {
	secret           *secret // the API key, masked in errors and log lines
	method, path     string
	url              string // the request's whole address, for transport errors
	idempotent       bool
	maxRetries       int
	waitMin, waitMax time.Duration
	logger           *slog.Logger
	now              func() time.Time
	jitter           func() float64

	attempts    int
	maxResponse int64 // the largest answer readBody reads
	// rechecking is set by readBody when it failed: check is called again
	// for the same attempt, which it must not count twice.
	rechecking  bool
	wait        time.Duration // the wait check chose for the next retry
	lastErr     error         // the last failure that was retried
	attemptTime time.Time
}

// check is the CheckRetry hook. It is called after every attempt.
func (r *retrier) check(ctx context.Context, resp *http.Response, err error) (bool, error) {
	recheck := r.rechecking
	if recheck {
		r.rechecking = false
	} else {
		r.attempts++
	}
	if ctx.Err() != nil {
		return false, ctx.Err()
	}

	var failure error
	var retryAfter time.Duration
	hasRetryAfter := false
	switch {
	case err != nil:
		if !retryableError(r.idempotent, err) {
			return false, nil
		}
		failure = err
	default:
		if !recheck {
			r.log(slog.LevelDebug, "response", "attempt", r.attempts, "status", resp.StatusCode, "elapsed", r.now().Sub(r.attemptTime))
		}
		if !retryableStatus(r.idempotent, resp.StatusCode) {
			return false, nil
		}
		// Read the error body now, so that it survives the drain that comes
		// before a retry and can be reported if the retries run out.
		body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		_ = resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(body))
		failure = r.apiError(resp, body)
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
			retryAfter, hasRetryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), r.now())
		}
	}

	if r.attempts > r.maxRetries {
		return false, nil
	}
	if hasRetryAfter {
		if retryAfter > r.waitMax {
			// The service asks for longer than the client will wait.
			return false, nil
		}
		r.wait = retryAfter
	} else {
		r.wait = backoff(r.waitMin, r.waitMax, r.attempts-1, r.jitter)
	}
	r.lastErr = failure
	if deadline, ok := ctx.Deadline(); ok && r.now().Add(r.wait).After(deadline) {
		return false, &deadlineError{wait: r.wait, last: failure}
	}
	r.log(slog.LevelWarn, "retrying request", "attempt", r.attempts, "wait", r.wait, "error", failure)
	r.attemptTime = r.now().Add(r.wait)
	return true, nil
}

// apiError is the typed error of an answer of this call, naming the call
// and the attempts made so far.
func (r *retrier) apiError(resp *http.Response, body []byte) *APIError {
	e := newAPIError(resp.StatusCode, resp.Header, body, r.secret)
	e.Method, e.Path, e.Attempts = r.method, r.path, r.attempts
	return e
}

// backoff is the Backoff hook: it returns the wait check chose.
func (r *retrier) backoff(_, _ time.Duration, _ int, _ *http.Response) time.Duration {
	return r.wait
}

// lastResponse is the ErrorHandler hook: it hands back the last answer and
// error as they are, so that the caller builds the typed error of the
// answer rather than a generic "giving up".
func (r *retrier) lastResponse(resp *http.Response, err error, _ int) (*http.Response, error) {
	return resp, err
}

// wrap turns the error of a call that got no usable answer into the error
// the caller sees: it names the call and the number of attempts, and keeps
// both the context's error and the last failure that was retried.
func (r *retrier) wrap(ctx context.Context, err error) error {
	var de *deadlineError
	if errors.As(err, &de) {
		return fmt.Errorf("profilesvc: %s %s: %w", r.method, r.path, err)
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		if r.lastErr != nil {
			return fmt.Errorf("profilesvc: %s %s: %w after %d attempts; last error: %w", r.method, r.path, ctxErr, r.attempts, r.lastErr)
		}
		return fmt.Errorf("profilesvc: %s %s: %w", r.method, r.path, ctxErr)
	}
	return &transportError{method: r.method, url: r.url, attempts: r.attempts, err: err, secret: r.secret}
}

func (r *retrier) log(level slog.Level, msg string, args ...any) {
	if r.logger == nil {
		return
	}
	for i, a := range args {
		switch v := a.(type) {
		case error:
			args[i] = r.secret.mask(v.Error())
		case string:
			args[i] = r.secret.mask(v)
		}
	}
	args = append([]any{"method", r.method, "path", r.path}, args...)
	r.logger.Log(context.Background(), level, "profilesvc: "+msg, args...)
}

// deadlineError is returned when the next retry's wait would end after the
// context's deadline: it wraps both the last failure and
// context.DeadlineExceeded.
type deadlineError struct {
	wait time.Duration
	last error
}

func (e *deadlineError) Error() string {
	return fmt.Sprintf("not retrying: a wait of %v would pass the context's deadline: %v", e.wait.Round(time.Millisecond), e.last)
}

func (e *deadlineError) Unwrap() []error { return []error{e.last, context.DeadlineExceeded} }
