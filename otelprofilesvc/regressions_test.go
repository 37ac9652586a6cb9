package otelprofilesvc_test

// The middleware against hostile answers and callers: what reaches the
// telemetry, and how failures are named.

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

// TestAnEchoedKeyIsNoErrorType: the API key, echoed by the server as its error code, reaches no span
// nor metric: only codes the SDK knows name error.type.
func TestAnEchoedKeyIsNoErrorType(t *testing.T) {
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

// TestErrorTypeStaysLowCardinality: codes a server makes up (a request ID in each) give no metric series
// of their own: error.type is then the status code.
func TestErrorTypeStaysLowCardinality(t *testing.T) {
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

// TestDoNamesNoIDs: a call sent with Client.Do, whose path is not a route template, names
// its span by its method alone, with no url.template.
func TestDoNamesNoIDs(t *testing.T) {
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

// TestAnAttemptOutOfTimeIsATimeout: an attempt that runs out of its own time limit (WithRequestTimeout,
// WithTimeout, a long poll's) has error.type "timeout".
func TestAnAttemptOutOfTimeIsATimeout(t *testing.T) {
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

// TestACancelWithACauseIsCanceled: a caller's context canceled with a cause gives error.type "canceled".
func TestACancelWithACauseIsCanceled(t *testing.T) {
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

// TestNoAnswerFromAMiddlewareInside: a middleware inside that returns neither answer nor error fails the
// attempt (error.type "no_answer"), without a panic.
func TestNoAnswerFromAMiddlewareInside(t *testing.T) {
	t.Parallel()
	r := newRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {}))
	nothing := profilesvc.WithCallMiddleware(func(*http.Request, profilesvc.MiddlewareNext) (*http.Response, error) {
		return nil, nil
	})
	var err error
	require.NotPanics(t, func() { _, err = r.client.GetProfile(t.Context(), "pf_1", nothing) })
	require.Error(t, err)
}

// TestAnUnknownMethodIsOther: a method HTTP does not define is "_OTHER",
// its span named "HTTP", as OpenTelemetry's conventions say.
func TestAnUnknownMethodIsOther(t *testing.T) {
	t.Parallel()
	r := newRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {}))
	_ = r.client.Do(t.Context(), "FROBNICATE7", "/ping", nil, nil)
	require.Len(t, r.spans.Ended(), 1)
	assert.Equal(t, "_OTHER", attrs(r.spans.Ended()[0])["http.request.method"].AsString())
}
