package profilesvc

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// TestMain runs the package's tests, internal and external (package
// profilesvc_test shares this test binary), and then fails the run if any
// goroutine is left behind: a retry's timer, a long poll, a mock server
// never closed, or a transport's connection loop. No goroutine is ignored:
// the tests close their servers, and a closed server's connections end the
// client's loops with them.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// TestRelCancelledWaitLeavesNothingRunning cancels WaitForAnalysis in each
// place it can be waiting: a long poll the server holds, a retry's backoff
// after a 503, a Retry-After the service asked for, WaitForAnalysis's own
// pause after a transient failure, and its pause between polls the service
// answered at once. Each time it returns promptly with context.Canceled,
// and once its server is closed and its transport's idle connections are
// dropped no goroutine of the call is left.
func TestRelCancelledWaitLeavesNothingRunning(t *testing.T) {
	// Not parallel: goleak looks at every goroutine of the process. Those
	// that exist now (paused parallel tests, earlier tests winding down)
	// are not this test's.
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())

	processing := `{"id":"analysis_1","profileId":"pf_1","status":"processing","playbookId":"PB-0001",` +
		`"verificationStatus":"pending_review","requestedAt":"2030-01-01T00:00:00Z","createdAt":"2030-01-01T00:00:00Z"}`
	cases := []struct {
		name string
		// answer is the server's handler; it is called with the number of
		// the request, from 1.
		answer func(n int64, w http.ResponseWriter, r *http.Request)
		// cancelAfter is how many requests the server sees before the
		// test cancels.
		cancelAfter int64
		opts        []Option
	}{
		{
			name: "during a held long poll",
			answer: func(_ int64, w http.ResponseWriter, r *http.Request) {
				<-r.Context().Done()
			},
			cancelAfter: 1,
		},
		{
			name: "during the backoff after a 503",
			answer: func(_ int64, w http.ResponseWriter, r *http.Request) {
				respondError(w, http.StatusServiceUnavailable, CodeServiceUnavailable, "down")
			},
			cancelAfter: 1,
			opts:        []Option{WithRetryWait(20*time.Second, time.Minute)},
		},
		{
			name: "during a Retry-After",
			answer: func(_ int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Retry-After", "30")
				respondError(w, http.StatusTooManyRequests, CodeRateLimited, "slow down")
			},
			cancelAfter: 1,
			opts:        []Option{WithRetryWait(time.Millisecond, time.Minute)},
		},
		{
			name: "during the pause after a transient failure",
			answer: func(_ int64, w http.ResponseWriter, r *http.Request) {
				respondError(w, http.StatusBadGateway, "BAD_GATEWAY", "proxy")
			},
			cancelAfter: 1,
			opts:        []Option{WithMaxRetries(0), WithRetryWait(20*time.Second, time.Minute)},
		},
		{
			name: "between polls answered at once",
			answer: func(_ int64, w http.ResponseWriter, r *http.Request) {
				respond(w, http.StatusOK, processing)
			},
			cancelAfter: 2,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var seen atomic.Int64
			reached := make(chan struct{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n := seen.Add(1)
				if n == tc.cancelAfter {
					close(reached)
				}
				tc.answer(n, w, r)
			}))
			defer srv.Close()
			tr := &http.Transport{}
			defer tr.CloseIdleConnections()
			c, err := NewClient(append([]Option{WithAPIKey(testAPIKey), WithBaseURL(srv.URL), WithHTTPClient(&http.Client{Transport: tr})}, tc.opts...)...)
			if err != nil {
				t.Fatal(err)
			}

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			type result struct {
				a   *Analysis
				err error
			}
			done := make(chan result, 1)
			go func() {
				a, err := c.WaitForAnalysis(ctx, "analysis_1", nil)
				done <- result{a, err}
			}()
			select {
			case <-reached:
			case <-time.After(5 * time.Second):
				t.Fatalf("the server saw %d requests in 5s, want %d", seen.Load(), tc.cancelAfter)
			}
			time.Sleep(50 * time.Millisecond) // into the wait
			cancelled := time.Now()
			cancel()
			select {
			case res := <-done:
				if !errors.Is(res.err, context.Canceled) {
					t.Errorf("WaitForAnalysis = %v, %v; want context.Canceled", res.a, res.err)
				}
				if d := time.Since(cancelled); d > time.Second {
					t.Errorf("WaitForAnalysis returned %v after the cancel", d)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("WaitForAnalysis did not return within 5s of the cancel")
			}
			n := seen.Load()
			time.Sleep(100 * time.Millisecond)
			if m := seen.Load(); m != n {
				t.Errorf("the server saw %d more requests after WaitForAnalysis returned", m-n)
			}
			tr.CloseIdleConnections()
			srv.Close()
		})
	}
}
