package profilesvc

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
// answered at once. Each wait is half an hour at least, and the server
// holds its request until the client leaves: none can end within the
// minute the test waits, so that the call returns for the cancel or not
// at all. Each time it returns with context.Canceled, the server sees no
// request after it returned, and once its server is closed and its
// transport's idle connections are dropped no goroutine of the call is
// left.
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
		// parkedIn, if set, is the wait the call must be in when the test
		// cancels (see awaitParked); else the server holds the request.
		parkedIn string
		opts     []Option
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
			parkedIn:    inRetryBackoff,
			opts:        []Option{WithRetryWait(time.Hour, 2*time.Hour)},
		},
		{
			name: "during a Retry-After",
			answer: func(_ int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Retry-After", "3600")
				respondError(w, http.StatusTooManyRequests, CodeRateLimited, "slow down")
			},
			cancelAfter: 1,
			parkedIn:    inRetryBackoff,
			opts:        []Option{WithRetryWait(time.Millisecond, 2*time.Hour)},
		},
		{
			name: "during the pause after a transient failure",
			answer: func(_ int64, w http.ResponseWriter, r *http.Request) {
				respondError(w, http.StatusBadGateway, "BAD_GATEWAY", "proxy")
			},
			cancelAfter: 1,
			parkedIn:    inWaitPause,
			opts:        []Option{WithMaxRetries(0), WithRetryWait(time.Hour, 2*time.Hour)},
		},
		{
			name: "between polls answered at once",
			answer: func(_ int64, w http.ResponseWriter, r *http.Request) {
				respond(w, http.StatusOK, processing)
			},
			cancelAfter: 1,
			parkedIn:    inWaitPause,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := goleak.IgnoreCurrent()
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
			require.NoError(t, err)
			c.pauseMin, c.pauseMax = time.Hour, 2*time.Hour

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var a *Analysis
			id, done := inBackground(func() error {
				var err error
				a, err = c.WaitForAnalysis(ctx, "analysis_1", nil)
				return err
			})
			awaitSignal(t, reached, fmt.Sprintf("request %d", tc.cancelAfter))
			if tc.parkedIn != "" {
				awaitParked(t, id, tc.parkedIn)
			}
			cancel()
			err = awaitDone(t, done, "WaitForAnalysis after the cancel")
			assert.ErrorIs(t, err, context.Canceled, "WaitForAnalysis = %v, %v; want context.Canceled", a, err)
			n := seen.Load()
			tr.CloseIdleConnections()
			srv.Close() // waits for the requests in flight
			assert.Equal(t, n, seen.Load(), "the server saw requests after WaitForAnalysis returned")
			// Nothing of the call is left that could send another.
			goleak.VerifyNone(t, before)
		})
	}
}
