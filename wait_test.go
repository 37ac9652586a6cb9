package profilesvc

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWaitForAnalysis_PollTimeoutSeconds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		pollTimeout time.Duration
		ctxTimeout  time.Duration // 0: no deadline
		onUpdate    bool
		wantMin     int
		wantMax     int
		// wantRead is true when a plain read must come before the long
		// poll: with OnUpdate, or a context shorter than the minimum hold.
		wantRead bool
	}{
		{"default", 0, 0, false, 120, 120, false},
		{"one second is raised to 10", time.Second, 0, false, 10, 10, false},
		{"an hour is lowered to 300", time.Hour, 0, false, 300, 300, false},
		{"45 seconds", 45 * time.Second, 0, false, 45, 45, false},
		{"exactly 10", 10 * time.Second, 0, false, 10, 10, false},
		{"exactly 300", 300 * time.Second, 0, false, 300, 300, false},
		{"context with 30s left", 0, 30 * time.Second, false, 29, 30, false},
		{"context with 30s left and a shorter poll", 20 * time.Second, 30 * time.Second, false, 20, 20, false},
		{"context with 3s left", 0, 3 * time.Second, false, 10, 10, true},
		{"context with 10 minutes left", time.Hour, 10 * time.Minute, false, 300, 300, false},
		{"OnUpdate holds 10s", 0, 0, true, 10, 10, true},
		{"OnUpdate with PollTimeout", 45 * time.Second, 0, true, 45, 45, true},
		{"OnUpdate with a context of 30s", 0, 30 * time.Second, true, 10, 10, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A plain read finds the analysis processing; a long poll ends
			// with its report.
			srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Query().Get("waitForReport") == "true" {
					answerDone(w, r)
					return
				}
				respond(w, http.StatusOK, analysisJSON(AnalysisProcessing, "", ""))
			})
			ctx := context.Background()
			if tt.ctxTimeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.ctxTimeout)
				defer cancel()
			}
			opts := &WaitOptions{PollTimeout: tt.pollTimeout}
			var seen []AnalysisStatus
			if tt.onUpdate {
				opts.OnUpdate = func(a *Analysis) { seen = append(seen, a.Status) }
			}
			a, err := srv.client(t).WaitForAnalysis(ctx, "analysis_1", opts)
			require.NoError(t, err)
			assert.Equal(t, AnalysisCompleted, a.Status)
			reqs := srv.requests()
			if tt.wantRead {
				require.Len(t, reqs, 2)
				assert.Empty(t, reqs[0].Query, "the first request is a plain read")
				reqs = reqs[1:]
			}
			require.Len(t, reqs, 1)
			assertLongPolls(t, reqs)
			secs, _ := strconv.Atoi(reqs[0].Query.Get("timeoutSeconds"))
			assert.GreaterOrEqual(t, secs, tt.wantMin)
			assert.LessOrEqual(t, secs, tt.wantMax)
			if tt.onUpdate {
				if diff := cmp.Diff([]AnalysisStatus{AnalysisProcessing, AnalysisCompleted}, seen); diff != "" {
					t.Errorf("OnUpdate statuses (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestWaitForAnalysis_NilOptions(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, answerDone)
	a, err := srv.client(t).WaitForAnalysis(context.Background(), "analysis_1", nil)
	require.NoError(t, err)
	require.NotNil(t, a.PrimaryReportID)
	assert.Equal(t, "rpt_1", *a.PrimaryReportID)
	assert.Equal(t, "120", srv.requests()[0].Query.Get("timeoutSeconds"))
}

func TestWaitForAnalysis_OnUpdateOncePerStatusChange(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		steps []http.HandlerFunc
		want  []AnalysisStatus
	}{
		{
			name:  "pending processing completed",
			steps: []http.HandlerFunc{answerPending, answerProcessing, answerDone},
			want:  []AnalysisStatus{AnalysisPending, AnalysisProcessing, AnalysisCompleted},
		},
		{
			name:  "repeated status is reported once",
			steps: []http.HandlerFunc{answerProcessing, answerProcessing, answerDone},
			want:  []AnalysisStatus{AnalysisProcessing, AnalysisCompleted},
		},
		{
			name:  "already completed",
			steps: []http.HandlerFunc{answerDone},
			want:  []AnalysisStatus{AnalysisCompleted},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newTestServer(t, answerInTurn(tt.steps...))
			var got []AnalysisStatus
			a, err := srv.client(t).WaitForAnalysis(context.Background(), "analysis_1", &WaitOptions{
				OnUpdate: func(a *Analysis) { got = append(got, a.Status) },
			}, WithHeader("X-Trace-Id", "trace-1"))
			require.NoError(t, err)
			assert.Equal(t, AnalysisCompleted, a.Status)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("OnUpdate statuses (-want +got):\n%s", diff)
			}
			reqs := srv.requests()
			require.Len(t, reqs, len(tt.steps))
			// With OnUpdate the first request reads the status at once;
			// every later one is a long poll.
			assert.Empty(t, reqs[0].Query, "the first request must not wait")
			assertLongPolls(t, reqs[1:])
			for _, r := range reqs {
				assert.Equal(t, "trace-1", r.Header.Get("X-Trace-Id"), "request options reach every poll")
			}
		})
	}
}

func TestWaitForAnalysis_CompletedWithoutReportPollsAgain(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, answerInTurn(
		answerAnalysis(AnalysisCompleted, "", ""),
		answerDone,
	))
	a, err := srv.client(t).WaitForAnalysis(context.Background(), "analysis_1", nil)
	require.NoError(t, err)
	require.NotNil(t, a.PrimaryReportID)
	assert.Equal(t, "rpt_1", *a.PrimaryReportID)
	assert.Len(t, srv.requests(), 2)
}

func TestWaitForAnalysis_Failed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		reason string
	}{
		{"with reason", "document unreadable"},
		{"without reason", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newTestServer(t, answerAnalysis(AnalysisFailed, "", tt.reason))
			a, err := srv.client(t).WaitForAnalysis(context.Background(), "analysis_1", nil)
			require.Error(t, err)
			require.NotNil(t, a, "the failed analysis is returned with the error")
			assert.Equal(t, AnalysisFailed, a.Status)
			assert.ErrorIs(t, err, ErrAnalysisFailed)
			assert.NotErrorIs(t, err, ErrWaitTimeout)
			var failed *AnalysisFailedError
			require.ErrorAs(t, err, &failed)
			assert.Equal(t, tt.reason, failed.Reason)
			assert.Equal(t, "analysis_1", failed.AnalysisID)
			assert.Len(t, srv.requests(), 1)
		})
	}
}

func TestWaitForAnalysis_EndsAtOnceOnPermanentErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		status   int
		code     string
		sentinel error
	}{
		{"404", http.StatusNotFound, CodeAnalysisNotFound, ErrAnalysisNotFound},
		{"404 without code", http.StatusNotFound, "", ErrNotFound},
		{"401", http.StatusUnauthorized, CodeUnauthorized, ErrUnauthorized},
		{"400", http.StatusBadRequest, CodeValidation, ErrValidation},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
				respondError(w, tt.status, tt.code, "no")
			})
			// Every retry's wait and every pause would be half an hour at
			// least, past the context's deadline a minute away: a wait that
			// went on would end with ErrWaitTimeout, not the service's error.
			c := srv.client(t, WithRetryWait(time.Hour, 2*time.Hour))
			c.pauseMin, c.pauseMax = time.Hour, 2*time.Hour
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			a, err := c.WaitForAnalysis(ctx, "analysis_1", nil)
			assert.Nil(t, a)
			assert.ErrorIs(t, err, tt.sentinel)
			assert.NotErrorIs(t, err, ErrWaitTimeout)
			assert.NoError(t, ctx.Err(), "returned before the deadline, without waiting")
			assert.Len(t, srv.requests(), 1)
		})
	}

	t.Run("invalid ID", func(t *testing.T) {
		srv := newTestServer(t, answerDone)
		a, err := srv.client(t).WaitForAnalysis(context.Background(), "", nil)
		assert.Nil(t, a)
		assert.ErrorIs(t, err, ErrInvalidID)
		assert.Empty(t, srv.requests())
	})
}

func TestWaitForAnalysis_RetriesTransientFailures(t *testing.T) {
	t.Parallel()
	s503 := answerStatus(http.StatusServiceUnavailable)
	tests := []struct {
		name     string
		steps    []http.HandlerFunc
		minCalls int
	}{
		// More 503s than one GetAnalysis retries (4 attempts).
		{"503s", []http.HandlerFunc{s503, s503, s503, s503, s503, s503, answerDone}, 7},
		{"429 and 500s", []http.HandlerFunc{answerStatus(429), answerStatus(500), answerStatus(502), answerStatus(504), answerStatus(500), answerDone}, 6},
		{"dropped connections", []http.HandlerFunc{dropConnection, dropConnection, dropConnection, dropConnection, dropConnection, answerDone}, 6},
		{"processing then 503s", []http.HandlerFunc{answerProcessing, s503, s503, s503, s503, s503, answerDone}, 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newTestServer(t, answerInTurn(tt.steps...))
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			a, err := srv.client(t).WaitForAnalysis(ctx, "analysis_1", nil)
			require.NoError(t, err)
			assert.Equal(t, AnalysisCompleted, a.Status)
			assert.GreaterOrEqual(t, len(srv.requests()), tt.minCalls)
			assertLongPolls(t, srv.requests())
		})
	}
}

func TestWaitForAnalysis_DeadlineReturnsLastAnalysis(t *testing.T) {
	t.Parallel()
	// The deadline reads five seconds away, less than the service's
	// minimum hold, and is reached by hand once the server has received
	// the request the case names: by then the client has had every answer
	// that came before it. A client that did not give up at its deadline
	// would see holdPoll answer processing after ten seconds, and return
	// that as the last analysis.
	tests := []struct {
		name     string
		steps    []http.HandlerFunc
		expireAt int32          // the request (from 1) whose arrival reaches the deadline
		wantLast AnalysisStatus // "": no analysis seen
	}{
		{"server holds until the client gives up", []http.HandlerFunc{holdPoll}, 1, ""},
		{"pending, then held", []http.HandlerFunc{answerPending, holdPoll}, 2, AnalysisPending},
		// The third request comes after a pause: the second, a long poll,
		// was answered at once.
		{"keeps answering processing at once", []http.HandlerFunc{answerProcessing}, 3, AnalysisProcessing},
		{"completed without report, then held", []http.HandlerFunc{answerAnalysis(AnalysisCompleted, "", ""), holdPoll}, 2, AnalysisCompleted},
		// The fourth request comes after two 503s.
		{"keeps failing with 503", []http.HandlerFunc{answerProcessing, answerStatus(503)}, 4, AnalysisProcessing},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var n atomic.Int32
			arrived := make(chan struct{})
			step := answerInTurn(tt.steps...)
			srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
				if n.Add(1) == tt.expireAt {
					close(arrived)
				}
				step(w, r)
			})
			ctx := NewManualDeadlineContext(context.Background(), 5*time.Second)
			c := srv.client(t)
			var a *Analysis
			_, done := inBackground(func() error {
				var err error
				a, err = c.WaitForAnalysis(ctx, "analysis_1", nil)
				return err
			})
			awaitSignal(t, arrived, fmt.Sprintf("request %d", tt.expireAt))
			ctx.Expire()
			err := awaitDone(t, done, "WaitForAnalysis at its deadline")
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrWaitTimeout)
			assert.ErrorIs(t, err, context.DeadlineExceeded)
			assert.NotErrorIs(t, err, ErrAnalysisFailed)
			if tt.wantLast == "" {
				assert.Nil(t, a)
			} else if assert.NotNil(t, a, "the last analysis seen is returned") {
				assert.Equal(t, tt.wantLast, a.Status)
			}
		})
	}
}

func TestWaitForAnalysis_Cancel(t *testing.T) {
	t.Parallel()
	// The server holds a poll until the client leaves (or the test ends),
	// and the pause between quick polls is half an hour at least: neither
	// can end within the minute awaitDone waits, so the wait returns for
	// the cancel or not at all.
	tests := []struct {
		name string
		// hold, if set, holds every poll; else the polls are answered
		// processing at once.
		hold bool
		// parkedIn, if set, is where the wait is cancelled (see
		// awaitParked); else it is cancelled while the server holds the
		// first poll.
		parkedIn string
	}{
		{"during a held poll", true, ""},
		{"between quick polls", false, inWaitPause},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			polled := make(chan struct{})
			testEnded := make(chan struct{})
			var once sync.Once
			srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
				once.Do(func() { close(polled) })
				if tt.hold {
					select {
					case <-r.Context().Done():
					case <-testEnded:
					}
					return
				}
				answerProcessing(w, r)
			})
			// Runs before the server's Close, which waits for a held poll.
			t.Cleanup(func() { close(testEnded) })
			c := srv.client(t)
			c.pauseMin, c.pauseMax = time.Hour, 2*time.Hour
			id, done := inBackground(func() error {
				_, err := c.WaitForAnalysis(ctx, "analysis_1", nil)
				return err
			})
			awaitSignal(t, polled, "the first poll")
			if tt.parkedIn != "" {
				awaitParked(t, id, tt.parkedIn)
			}
			cancel()
			err := awaitDone(t, done, "WaitForAnalysis")
			require.Error(t, err)
			assert.ErrorIs(t, err, context.Canceled)
			assert.NotErrorIs(t, err, ErrWaitTimeout)
		})
	}
}

func TestWaitForAnalysis_DoesNotSpin(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, answerProcessing)
	// Three seconds leave room for several polls even on a loaded machine;
	// a client that spun would make hundreds.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_, err := srv.client(t).WaitForAnalysis(ctx, "analysis_1", nil)
	require.ErrorIs(t, err, ErrWaitTimeout)
	n := len(srv.requests())
	assert.GreaterOrEqual(t, n, 2, "polls again")
	assert.Less(t, n, 15, "a service that does not hold requests must not make the client spin")
}

func TestWaitForAnalysis_NotCutByRequestTimeout(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		holdRequest(r, 200*time.Millisecond)
		answerDone(w, r)
	})
	a, err := srv.client(t, WithRequestTimeout(50*time.Millisecond)).WaitForAnalysis(context.Background(), "analysis_1", nil)
	require.NoError(t, err)
	assert.Equal(t, AnalysisCompleted, a.Status)
	assert.Len(t, srv.requests(), 1)
}

func TestWaitForAnalysis_AttemptTimeoutIsNotWaitTimeout(t *testing.T) {
	// A poll that times out on its own (here the transport's
	// ResponseHeaderTimeout, which, like the SDK's per-attempt timeout,
	// matches context.DeadlineExceeded) is a transient failure: the wait
	// goes on while the caller's context allows, and ErrWaitTimeout is kept
	// for the context's own deadline.
	t.Parallel()
	var n atomic.Int32
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) <= DefaultMaxRetries+1 {
			holdRequest(r, 2*time.Second)
			return
		}
		answerDone(w, r)
	})
	hc := &http.Client{Transport: &http.Transport{ResponseHeaderTimeout: 100 * time.Millisecond}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	a, err := srv.client(t, WithHTTPClient(hc)).WaitForAnalysis(ctx, "analysis_1", nil)
	assert.NoError(t, ctx.Err())
	require.NoError(t, err, "the caller's context has time left")
	assert.Equal(t, AnalysisCompleted, a.Status)
	assert.Greater(t, int(n.Load()), DefaultMaxRetries+1)
}
