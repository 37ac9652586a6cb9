package otelprofilesvc_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/codes"

	"github.com/profilesvc/profilesvc-go"
)

// endless is a reader of infinite 'x's.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

// An error answer with an endless body: the call returns, with the APIError
// and exactly the first 64 KiB as the SDK alone would read.
func TestHostileEndlessErrorBody(t *testing.T) {
	t.Parallel()
	r := newRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.WriteHeader(400)
		_, _ = io.Copy(w, io.LimitReader(endless{}, 8<<20))
	}))
	_, err := r.client.GetProfile(t.Context(), "pf_1")
	var apiErr *profilesvc.APIError
	require.True(t, errors.As(err, &apiErr), "%v", err)
	assert.Equal(t, 400, apiErr.StatusCode)
	assert.Equal(t, bytes.Repeat([]byte("x"), 64<<10), apiErr.Body)
	require.Len(t, r.spans.Ended(), 1)
	assert.Equal(t, "400", attrs(r.spans.Ended()[0])["error.type"].AsString())
}

// A large error JSON (padded message past 64 KiB) keeps its body whole up
// to the SDK's limit; a body just under the limit keeps its code.
func TestHostileLargeErrorBodyIsPutBackWhole(t *testing.T) {
	t.Parallel()
	for _, size := range []int{10, 64<<10 - 100, 64 << 10, 64<<10 + 1, 200 << 10} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			t.Parallel()
			msg := strings.Repeat("m", size)
			body := fmt.Sprintf(`{"error":{"code":"PROFILE_NOT_FOUND","message":%q}}`, msg)
			r := newRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				w.WriteHeader(404)
				_, _ = io.WriteString(w, body)
			}))
			_, err := r.client.GetProfile(t.Context(), "pf_1")
			var apiErr *profilesvc.APIError
			require.True(t, errors.As(err, &apiErr))
			want := body
			if len(want) > 64<<10 {
				want = want[:64<<10]
			}
			assert.Equal(t, want, string(apiErr.Body))
			if len(body) <= 64<<10 {
				assert.Equal(t, "PROFILE_NOT_FOUND", apiErr.Code)
				assert.Equal(t, msg, apiErr.Message)
				assert.Equal(t, "PROFILE_NOT_FOUND", attrs(r.spans.Ended()[0])["error.type"].AsString())
			} else {
				assert.Equal(t, "404", attrs(r.spans.Ended()[0])["error.type"].AsString())
			}
		})
	}
}

// A code over 64 bytes falls back to the status code.
func TestHostileHugeCodeFallsBack(t *testing.T) {
	t.Parallel()
	r := newRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		errorJSON(w, 503, strings.Repeat("C", 65), "x")
	}))
	_, err := r.client.GetProfile(t.Context(), "pf_1")
	require.Error(t, err)
	s := r.spans.Ended()[0]
	assert.Equal(t, "503", attrs(s)["error.type"].AsString())
	assert.Equal(t, codes.Error, s.Status().Code)
}

// A 4xx error body that stalls after a few bytes: the attempt's time limit
// still ends the call (no hang), as ErrRequestTimeout.
func TestHostileStalledErrorBodyEndsAtTheAttemptLimit(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.WriteHeader(400)
		_, _ = io.WriteString(w, `{"error":{"code":"BAD`)
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-req.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	r := newRigURL(t, srv.URL, profilesvc.WithRequestTimeout(200*time.Millisecond))
	_, err := r.client.GetProfile(t.Context(), "pf_1")
	// The SDK keeps what it read of a cut-off error body, as without the
	// middleware: the body is the partial text, the span error.type "400".
	var apiErr *profilesvc.APIError
	require.True(t, errors.As(err, &apiErr), "%v", err)
	assert.Equal(t, `{"error":{"code":"BAD`, string(apiErr.Body))
	require.Len(t, r.spans.Ended(), 1)
	assert.Equal(t, "400", attrs(r.spans.Ended()[0])["error.type"].AsString())
	plain, err := profilesvc.NewClient(profilesvc.WithBaseURL(srv.URL), profilesvc.WithAPIKey(hostileKey),
		profilesvc.WithMaxRetries(0), profilesvc.WithRequestTimeout(200*time.Millisecond))
	require.NoError(t, err)
	_, plainErr := plain.GetProfile(t.Context(), "pf_1")
	var plainAPI *profilesvc.APIError
	require.True(t, errors.As(plainErr, &plainAPI))
	assert.Equal(t, plainAPI.Body, apiErr.Body, "same as without the middleware")
}

// No-body answers: 204 and 304 (not errors), HEAD 404 (no body): fine.
func TestHostileNoBodyAnswers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		method string
		status int
	}{{"GET", 204}, {"GET", 304}, {"HEAD", 404}, {"HEAD", 500}, {"DELETE", 204}} {
		t.Run(fmt.Sprint(tc.method, tc.status), func(t *testing.T) {
			t.Parallel()
			r := newRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				w.WriteHeader(tc.status)
			}))
			_ = r.client.Do(t.Context(), tc.method, "/ping", nil, nil)
			require.Len(t, r.spans.Ended(), 1)
			a := attrs(r.spans.Ended()[0])
			assert.Equal(t, int64(tc.status), a["http.response.status_code"].AsInt64())
			if tc.status >= 400 {
				assert.Equal(t, fmt.Sprint(tc.status), a["error.type"].AsString())
			} else {
				_, has := a["error.type"]
				assert.False(t, has)
			}
		})
	}
}

// A context canceled while the server holds the request: span status Error,
// error.type "canceled", the metric recorded, and no goroutine left behind.
func TestHostileCanceledMidFlight(t *testing.T) {
	arrived := make(chan struct{}, 1)
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		arrived <- struct{}{}
		select {
		case <-release:
		case <-req.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	before := runtime.NumGoroutine()
	r := newRigURL(t, srv.URL)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { _, err := r.client.GetProfile(ctx, "pf_1"); done <- err }()
	<-arrived
	cancel()
	err := <-done
	require.ErrorIs(t, err, context.Canceled)
	require.Len(t, r.spans.Ended(), 1)
	s := r.spans.Ended()[0]
	assert.Equal(t, codes.Error, s.Status().Code)
	assert.Equal(t, "canceled", attrs(s)["error.type"].AsString())
	pts := r.durationPoints(t)
	require.Len(t, pts, 1)
	v, _ := pts[0].Attributes.Value("error.type")
	assert.Equal(t, "canceled", v.AsString())
	srv.CloseClientConnections()
	assert.Eventually(t, func() bool { return runtime.NumGoroutine() <= before+2 }, 5*time.Second, 10*time.Millisecond)
}

// Concurrent calls on one client (run with -race): one span per call, all
// with their own trace ID propagated, and the metric counts them all.
func TestHostileConcurrentCalls(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	seen := map[string]bool{}
	r := newRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		mu.Lock()
		seen[req.Header.Get("traceparent")] = true
		mu.Unlock()
		if strings.HasSuffix(req.URL.Path, "0") {
			errorJSON(w, 404, "PROFILE_NOT_FOUND", "x")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"pf_1","name":"n"}`)
	}))
	const n = 40
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = r.client.GetProfile(context.Background(), fmt.Sprintf("pf_%d", i))
		}()
	}
	wg.Wait()
	assert.Len(t, r.spans.Ended(), n)
	assert.Len(t, seen, n)
	var total uint64
	for _, p := range r.durationPoints(t) {
		total += p.Count
	}
	assert.Equal(t, uint64(n), total)
	assert.NotContains(t, r.telemetry(t), hostileKey)
}

// The key echoed in a (non-code) error message, in a header or in a long
// code (>64 bytes) never reaches the telemetry.
func TestHostileKeyEchoedElsewhereStaysOut(t *testing.T) {
	t.Parallel()
	r := newRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		k := req.Header.Get("x-api-key")
		w.Header().Set("X-Echo", k)
		errorJSON(w, 500, k+strings.Repeat("_", 64), "key "+k)
	}))
	_, err := r.client.GetProfile(t.Context(), "pf_1")
	require.Error(t, err)
	assert.NotContains(t, r.telemetry(t), hostileKey)
}

// A base URL with user info is refused by NewClient, so it never reaches
// server.address.
func TestHostileUserInfoInBaseURL(t *testing.T) {
	t.Parallel()
	u, _ := url.Parse("http://127.0.0.1:1")
	u.User = url.UserPassword("bob", "hunter2pw")
	_, err := profilesvc.NewClient(profilesvc.WithBaseURL(u.String()), profilesvc.WithAPIKey(hostileKey))
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "hunter2pw")
}

// A connection cut mid-body of an error answer: the SDK still returns an
// error, and error.type stays the status code (the head read failed).
func TestHostileErrorBodyCutOff(t *testing.T) {
	t.Parallel()
	r := newRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Length", "1000")
		w.WriteHeader(400)
		_, _ = io.WriteString(w, `{"error":{"code":"X"`)
		w.(http.Flusher).Flush()
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			_ = conn.Close()
		}
	}))
	_, err := r.client.GetProfile(t.Context(), "pf_1")
	require.Error(t, err)
	require.Len(t, r.spans.Ended(), 1)
	assert.Equal(t, "400", attrs(r.spans.Ended()[0])["error.type"].AsString())
}
