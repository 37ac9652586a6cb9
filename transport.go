package profilesvc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"
)

// attemptTimeoutKey carries one call's per-attempt time limit to
// attemptTransport.
type attemptTimeoutKey struct{}

// withAttemptTimeout records d as the time limit of each attempt made with
// ctx; 0 means none.
func withAttemptTimeout(ctx context.Context, d time.Duration) context.Context {
	if d <= 0 {
		return ctx
	}
	return context.WithValue(ctx, attemptTimeoutKey{}, d)
}

// errAttemptTimeout is the cause of an attempt that ran out of time.
var errAttemptTimeout = errors.New("request attempt timed out")

// ErrRequestTimeout is matched by the error of a request whose attempts
// ran out of their own time limit (WithRequestTimeout, WithTimeout) while
// the caller's context still had time.
var ErrRequestTimeout = errors.New("profilesvc: request timed out")

// attemptTransport gives each attempt its own deadline, in place of an
// http.Client.Timeout that would apply one limit to every request alike
// and cut long polls short. The deadline covers the answer's body too: it
// is released when the body is closed.
type attemptTransport struct {
	base http.RoundTripper
}

func (t *attemptTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	d, _ := req.Context().Value(attemptTimeoutKey{}).(time.Duration)
	if d <= 0 {
		return t.base.RoundTrip(req)
	}
	ctx, cancel := context.WithTimeoutCause(req.Context(), d, errAttemptTimeout)
	resp, err := t.base.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cancel()
		if context.Cause(ctx) == errAttemptTimeout && req.Context().Err() == nil {
			// Not wrapped: the caller's context did not run out, so the
			// error must not match context.DeadlineExceeded.
			return nil, fmt.Errorf("%w after %v (%v)", ErrRequestTimeout, d, err)
		}
		return nil, err
	}
	resp.Body = &cancelOnClose{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

// cancelOnClose releases an attempt's deadline when its body is closed.
type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelOnClose) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// slogAdapter lets go-retryablehttp log through the caller's slog.Logger.
// Its errors are logged as warnings: a failed attempt is not yet a failed
// call, and the call's error reaches the caller anyway. Any value that
// holds the API key has it masked, although the SDK never passes one.
type slogAdapter struct {
	l      *slog.Logger
	secret string
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
	a.l.Log(ctx, level, "profilesvc: "+a.maskString(msg), kv...)
}

func (a slogAdapter) mask(v any) any {
	switch x := v.(type) {
	case string:
		return a.maskString(x)
	case error:
		return a.maskString(x.Error())
	case fmt.Stringer:
		return a.maskString(x.String())
	}
	return v
}

func (a slogAdapter) maskString(s string) string {
	if a.secret == "" {
		return s
	}
	return strings.ReplaceAll(s, a.secret, "[REDACTED]")
}
