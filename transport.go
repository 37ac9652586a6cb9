package profilesvc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptrace"
	"sync/atomic"
	"time"
)

// errAttemptTimeout is the cause of an attempt that ran out of time.
var errAttemptTimeout = errors.New("request attempt timed out")

// errNoAnswer is the error of an attempt whose middleware returned neither
// an answer nor an error.
var errNoAnswer = errors.New("profilesvc: a middleware returned no response and no error")

// attemptTransport runs each attempt of a call: it gives the attempt its
// own deadline (in place of an http.Client.Timeout that would apply one
// limit to every request alike and cut long polls short), runs the
// middleware, and notes whether a request that is not idempotent was
// written before it failed, which makes its outcome unknown. The deadline
// covers the answer's body too: it is released when the body is closed.
type attemptTransport struct {
	base       http.RoundTripper
	middleware []Middleware // the client's own
}

func (t *attemptTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	info, _ := req.Context().Value(callKey{}).(*callInfo)
	var d time.Duration
	if info != nil {
		d = info.timeout
	}
	parent := req.Context()
	if info != nil {
		parent = context.WithValue(parent, attemptKey{}, int(info.attempts.Add(1)))
	}
	ctx, cancel := parent, context.CancelFunc(func() {})
	if d > 0 {
		ctx, cancel = context.WithTimeoutCause(parent, d, errAttemptTimeout)
	}
	var wrote atomic.Bool
	if !isIdempotent(req.Method) {
		ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
			WroteRequest: func(i httptrace.WroteRequestInfo) {
				if i.Err == nil {
					wrote.Store(true)
				}
			},
		})
	}
	if ctx != req.Context() {
		req = req.WithContext(ctx)
	}

	resp, err := t.chain(info)(req)
	if err == nil && resp == nil {
		err = errNoAnswer
	}
	if err != nil {
		cancel()
		if resp != nil && resp.Body != nil {
			_ = resp.Body.Close()
		}
		if d > 0 && context.Cause(ctx) == errAttemptTimeout && parent.Err() == nil {
			// Not wrapped: the caller's context did not run out, so the
			// error must not match context.DeadlineExceeded.
			err = fmt.Errorf("%w after %v (%v)", ErrRequestTimeout, d, err)
		}
		if wrote.Load() {
			err = &outcomeUnknownError{err: err}
		}
		return nil, err
	}
	if d > 0 {
		resp.Body = &attemptBody{ReadCloser: resp.Body, ctx: ctx, parent: parent, limit: d, cancel: cancel}
	} else {
		cancel()
	}
	return resp, nil
}

// chain returns the function that sends an attempt through the client's
// middleware, then the call's, then the network.
func (t *attemptTransport) chain(info *callInfo) MiddlewareNext {
	next := MiddlewareNext(t.base.RoundTrip)
	var call []Middleware
	if info != nil {
		call = info.middleware
	}
	if len(t.middleware) == 0 && len(call) == 0 {
		return next
	}
	for i := len(call) - 1; i >= 0; i-- {
		next = wrapMiddleware(call[i], next)
	}
	for i := len(t.middleware) - 1; i >= 0; i-- {
		next = wrapMiddleware(t.middleware[i], next)
	}
	return next
}

func wrapMiddleware(mw Middleware, next MiddlewareNext) MiddlewareNext {
	if mw == nil {
		return next
	}
	return func(req *http.Request) (*http.Response, error) { return mw(req, next) }
}

// attemptBody is the body of an answer read within its attempt's time
// limit: running out of it while reading is ErrRequestTimeout, as before
// the headers. Closing it releases the attempt's deadline.
type attemptBody struct {
	io.ReadCloser
	ctx, parent context.Context
	limit       time.Duration
	cancel      context.CancelFunc
}

func (b *attemptBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF && context.Cause(b.ctx) == errAttemptTimeout && b.parent.Err() == nil {
		err = fmt.Errorf("%w after %v while reading the answer (%v)", ErrRequestTimeout, b.limit, err)
	}
	return n, err
}

func (b *attemptBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// slogAdapter lets go-retryablehttp log through the caller's slog.Logger.
// Its errors are logged as warnings: a failed attempt is not yet a failed
// call, and the call's error reaches the caller anyway. Every value that
// could hold the API key has it masked.
type slogAdapter struct {
	l      *slog.Logger
	secret *secret
}

func (a slogAdapter) Error(msg string, kv ...any) { a.log(slog.LevelWarn, msg, kv) }
func (a slogAdapter) Warn(msg string, kv ...any)  { a.log(slog.LevelWarn, msg, kv) }
func (a slogAdapter) Info(msg string, kv ...any)  { a.log(slog.LevelInfo, msg, kv) }
func (a slogAdapter) Debug(msg string, kv ...any) { a.log(slog.LevelDebug, msg, kv) }

func (a slogAdapter) log(level slog.Level, msg string, kv []any) {
	ctx := context.Background()
	if !a.l.Enabled(ctx, level) {
		return
	}
	for i, v := range kv {
		kv[i] = a.mask(v)
	}
	a.l.Log(ctx, level, "profilesvc: "+a.secret.mask(msg), kv...)
}

func (a slogAdapter) mask(v any) any {
	switch x := v.(type) {
	case string:
		return a.secret.mask(x)
	case error:
		return a.secret.mask(x.Error())
	case fmt.Stringer:
		return a.secret.mask(x.String())
	}
	return v
}
