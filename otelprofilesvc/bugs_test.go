package otelprofilesvc_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
)

// BUG: the API key, echoed by the server as its error code, lands in
// error.type (span attribute, span status description, metric attribute).
// Cause: otelprofilesvc/otelprofilesvc.go:239 returns body.Error.Code as
// sent (only bounded to 64 bytes), used at :163/:165/:171; unlike
// APIError.Body, nothing masks the key.
func TestBugKeyEchoedAsErrorCodeLeaks(t *testing.T) {
	t.Parallel()
	r := newRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		errorJSON(w, 500, req.Header.Get("x-api-key"), "bad key "+req.Header.Get("x-api-key"))
	}))
	_, err := r.client.GetProfile(t.Context(), "pf_1")
	var apiErr *profilesvc.APIError
	require.True(t, errors.As(err, &apiErr))
	assert.NotContains(t, string(apiErr.Body), hostileKey, "the SDK masks it")
	assert.NotContains(t, r.telemetry(t), hostileKey, "the key is in the telemetry")
}

// BUG: error.type on the metric is whatever code the server sends (any
// string up to 64 bytes): a server (or proxy) putting a request ID in its
// code creates one metric series per request: unbounded cardinality,
// against the README's "same low-cardinality attributes".
// Cause: otelprofilesvc/otelprofilesvc.go:239 (no allow-list/shape check),
// recorded on the histogram at :171.
func TestBugServerChosenCodeIsUnboundedCardinality(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	r := newRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		errorJSON(w, 400, fmt.Sprintf("ERR_req_%08d", n.Add(1)), "x")
	}))
	for i := 0; i < 50; i++ {
		_, err := r.client.GetProfile(t.Context(), "pf_1")
		require.Error(t, err)
	}
	assert.LessOrEqual(t, len(r.durationPoints(t)), 5, "one metric series per distinct server-chosen code")
}

// BUG: a call sent with Client.Do names its span, url.template and the
// metric after the path as given, IDs included ("GET /profiles/pf_secret123"),
// against the package doc ("never its IDs", "nor a URL with IDs").
// Cause: otelprofilesvc/otelprofilesvc.go:134 and :196 use
// profilesvc.RouteTemplate, which for Do is the raw path (middleware.go:48-51,
// client.go r.route = path).
func TestBugDoPutsIDsInSpanNameAndMetric(t *testing.T) {
	t.Parallel()
	r := newRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{}`))
	}))
	require.NoError(t, r.client.Do(t.Context(), "GET", "/profiles/pf_secret123", nil, nil))
	require.Len(t, r.spans.Ended(), 1)
	s := r.spans.Ended()[0]
	assert.NotContains(t, s.Name(), "pf_secret123", "an ID in the span name")
	all := r.telemetry(t)
	assert.False(t, strings.Contains(all, "pf_secret123"), "an ID in the telemetry: %s", s.Name())
}

// BUG: an attempt that runs out of its own time limit (WithRequestTimeout,
// WithTimeout, a long poll's) gets error.type "*errors.errorString", not
// "timeout" as the README promises. The SDK's attempt context is made with
// context.WithTimeoutCause(..., errAttemptTimeout) (transport.go:45), and
// net/http returns that cause, a plain errors.New that is neither
// context.DeadlineExceeded nor a net.Error: transportErrorKind
// (otelprofilesvc/otelprofilesvc.go:252) misses it and falls to the Go type
// name, the same one a server's EOF gets. The middleware could look at
// req.Context().Err() instead.
func TestBugAttemptTimeoutIsNotTimeout(t *testing.T) {
	t.Parallel()
	block := make(chan struct{})
	t.Cleanup(func() { close(block) })
	r := newRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		select {
		case <-block:
		case <-req.Context().Done():
		}
	}), profilesvc.WithRequestTimeout(100*time.Millisecond))
	_, err := r.client.GetProfile(t.Context(), "pf_1")
	require.ErrorIs(t, err, profilesvc.ErrRequestTimeout)
	require.Len(t, r.spans.Ended(), 1)
	assert.Equal(t, "timeout", attrs(r.spans.Ended()[0])["error.type"].AsString())
}

// BUG: a caller's context canceled with a cause (context.WithCancelCause)
// gets error.type "*errors.errorString", not "canceled": net/http returns
// context.Cause, and transportErrorKind (otelprofilesvc/otelprofilesvc.go:250)
// only checks errors.Is(err, context.Canceled). Same root cause as above.
func TestBugCancelWithCauseIsNotCanceled(t *testing.T) {
	t.Parallel()
	arrived := make(chan struct{}, 1)
	block := make(chan struct{})
	t.Cleanup(func() { close(block) })
	r := newRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		arrived <- struct{}{}
		select {
		case <-block:
		case <-req.Context().Done():
		}
	}))
	ctx, cancel := context.WithCancelCause(t.Context())
	done := make(chan error, 1)
	go func() { _, err := r.client.GetProfile(ctx, "pf_1"); done <- err }()
	<-arrived
	cancel(errors.New("user went away"))
	require.Error(t, <-done)
	require.Len(t, r.spans.Ended(), 1)
	assert.Equal(t, "canceled", attrs(r.spans.Ended()[0])["error.type"].AsString())
}

// BUG: an inner middleware (WithCallMiddleware) that returns neither an
// answer nor an error, which the SDK documents as a failed attempt
// (middleware.go:20-22, transport.go errNoAnswer), makes the OTel middleware
// panic with a nil dereference: otelprofilesvc/otelprofilesvc.go:160 reads
// resp.StatusCode whenever err == nil, without checking resp != nil.
func TestBugNilAnswerFromInnerMiddlewarePanics(t *testing.T) {
	t.Parallel()
	r := newRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {}))
	nothing := profilesvc.WithCallMiddleware(func(*http.Request, profilesvc.MiddlewareNext) (*http.Response, error) {
		return nil, nil
	})
	var err error
	require.NotPanics(t, func() { _, err = r.client.GetProfile(t.Context(), "pf_1", nothing) })
	require.Error(t, err)
}

// BUG (spec deviation, minor): a method the conventions do not know, sent
// with Client.Do, is recorded as is in http.request.method and the span
// name; OpenTelemetry's HTTP conventions require "_OTHER" (and span name
// "HTTP") for it, to bound cardinality. Cause:
// otelprofilesvc/otelprofilesvc.go:132 and :179 use req.Method unchecked.
func TestBugUnknownMethodIsNotOther(t *testing.T) {
	t.Parallel()
	r := newRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {}))
	_ = r.client.Do(t.Context(), "FROBNICATE7", "/ping", nil, nil)
	require.Len(t, r.spans.Ended(), 1)
	assert.Equal(t, "_OTHER", attrs(r.spans.Ended()[0])["http.request.method"].AsString())
}
