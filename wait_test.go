package profilesvc

import (
	"context"
	"encoding/json"
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

// waitTestAnalysisJSON is an analysis with the given status, report ID and
// error text (empty for null).
func waitTestAnalysisJSON(status AnalysisStatus, reportID, errText string) string {
	a := map[string]any{
		"id": "analysis_1", "profileId": "pf_1", "folderId": nil, "engineId": nil,
		"playbookId": "PB-1", "engine": nil, "status": status, "processingTimeMs": 0,
		"verificationStatus": "pending_review", "error": nil, "options": nil,
		"clientMetadata": nil, "primaryReportId": nil, "requestedAt": "2025-01-01T00:00:00Z",
		"completedAt": nil, "createdAt": "2025-01-01T00:00:00Z",
	}
	if reportID != "" {
		a["primaryReportId"] = reportID
	}
	if errText != "" {
		a["error"] = errText
	}
	b, err := json.Marshal(a)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// waitTestAnswer answers with an analysis.
func waitTestAnswer(status AnalysisStatus, reportID, errText string) http.HandlerFunc {
	body := waitTestAnalysisJSON(status, reportID, errText)
	return func(w http.ResponseWriter, r *http.Request) { respond(w, http.StatusOK, body) }
}

var (
	waitTestPending    = waitTestAnswer(AnalysisPending, "", "")
	waitTestProcessing = waitTestAnswer(AnalysisProcessing, "", "")
	waitTestDone       = waitTestAnswer(AnalysisCompleted, "rpt_1", "")
)

// waitTestHold holds the request until the client gives up.
func waitTestHold(w http.ResponseWriter, r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-time.After(10 * time.Second):
		respond(w, http.StatusOK, waitTestAnalysisJSON(AnalysisProcessing, "", ""))
	}
}

// waitTestAssertPolls checks that every request was a long poll of the
// analysis.
func waitTestAssertPolls(t *testing.T, reqs []recordedRequest) {
	t.Helper()
	for i, r := range reqs {
		assert.Equal(t, http.MethodGet, r.Method, "request %d", i)
		assert.Equal(t, "/v1/analyses/analysis_1", r.Path, "request %d", i)
		assert.Equal(t, "true", r.Query.Get("waitForReport"), "request %d", i)
		secs, err := strconv.Atoi(r.Query.Get("timeoutSeconds"))
		if assert.NoError(t, err, "request %d: timeoutSeconds %q", i, r.Query.Get("timeoutSeconds")) {
			assert.GreaterOrEqual(t, secs, 10, "request %d", i)
			assert.LessOrEqual(t, secs, 300, "request %d", i)
		}
	}
}

func TestWaitForAnalysis_PollTimeoutSeconds(t *testing.T) {
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
					waitTestDone(w, r)
					return
				}
				respond(w, http.StatusOK, waitTestAnalysisJSON(AnalysisProcessing, "", ""))
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
			waitTestAssertPolls(t, reqs)
			secs, _ := strconv.Atoi(reqs[0].Query.Get("timeoutSeconds"))
			assert.GreaterOrEqual(t, secs, tt.wantMin)
			assert.LessOrEqual(t, secs, tt.wantMax)
			if tt.onUpdate {
				assert.Equal(t, []AnalysisStatus{AnalysisProcessing, AnalysisCompleted}, seen)
			}
		})
	}
}

func TestWaitForAnalysis_NilOptions(t *testing.T) {
	srv := newTestServer(t, waitTestDone)
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
			steps: []http.HandlerFunc{waitTestPending, waitTestProcessing, waitTestDone},
			want:  []AnalysisStatus{AnalysisPending, AnalysisProcessing, AnalysisCompleted},
		},
		{
			name:  "repeated status is reported once",
			steps: []http.HandlerFunc{waitTestProcessing, waitTestProcessing, waitTestDone},
			want:  []AnalysisStatus{AnalysisProcessing, AnalysisCompleted},
		},
		{
			name:  "already completed",
			steps: []http.HandlerFunc{waitTestDone},
			want:  []AnalysisStatus{AnalysisCompleted},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newTestServer(t, retryTestSequence(tt.steps...))
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
			waitTestAssertPolls(t, reqs[1:])
			for _, r := range reqs {
				assert.Equal(t, "trace-1", r.Header.Get("X-Trace-Id"), "request options reach every poll")
			}
		})
	}
}

func TestWaitForAnalysis_CompletedWithoutReportPollsAgain(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, retryTestSequence(
		waitTestAnswer(AnalysisCompleted, "", ""),
		waitTestDone,
	))
	a, err := srv.client(t).WaitForAnalysis(context.Background(), "analysis_1", nil)
	require.NoError(t, err)
	require.NotNil(t, a.PrimaryReportID)
	assert.Equal(t, "rpt_1", *a.PrimaryReportID)
	assert.Len(t, srv.requests(), 2)
}

func TestWaitForAnalysis_Failed(t *testing.T) {
	tests := []struct {
		name   string
		reason string
	}{
		{"with reason", "document unreadable"},
		{"without reason", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newTestServer(t, waitTestAnswer(AnalysisFailed, "", tt.reason))
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
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			start := time.Now()
			a, err := srv.client(t).WaitForAnalysis(ctx, "analysis_1", nil)
			assert.Nil(t, a)
			assert.ErrorIs(t, err, tt.sentinel)
			assert.NotErrorIs(t, err, ErrWaitTimeout)
			assert.Len(t, srv.requests(), 1)
			assert.Less(t, time.Since(start), 3*time.Second)
		})
	}

	t.Run("invalid ID", func(t *testing.T) {
		srv := newTestServer(t, waitTestDone)
		a, err := srv.client(t).WaitForAnalysis(context.Background(), "", nil)
		assert.Nil(t, a)
		assert.ErrorIs(t, err, ErrInvalidID)
		assert.Empty(t, srv.requests())
	})
}

func TestWaitForAnalysis_RetriesTransientFailures(t *testing.T) {
	t.Parallel()
	s503 := retryTestStatus(http.StatusServiceUnavailable)
	tests := []struct {
		name     string
		steps    []http.HandlerFunc
		minCalls int
	}{
		// More 503s than one GetAnalysis retries (4 attempts).
		{"503s", []http.HandlerFunc{s503, s503, s503, s503, s503, s503, waitTestDone}, 7},
		{"429 and 500s", []http.HandlerFunc{retryTestStatus(429), retryTestStatus(500), retryTestStatus(502), retryTestStatus(504), retryTestStatus(500), waitTestDone}, 6},
		{"dropped connections", []http.HandlerFunc{retryTestDrop, retryTestDrop, retryTestDrop, retryTestDrop, retryTestDrop, waitTestDone}, 6},
		{"processing then 503s", []http.HandlerFunc{waitTestProcessing, s503, s503, s503, s503, s503, waitTestDone}, 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newTestServer(t, retryTestSequence(tt.steps...))
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			a, err := srv.client(t).WaitForAnalysis(ctx, "analysis_1", nil)
			require.NoError(t, err)
			assert.Equal(t, AnalysisCompleted, a.Status)
			assert.GreaterOrEqual(t, len(srv.requests()), tt.minCalls)
			waitTestAssertPolls(t, srv.requests())
		})
	}
}

func TestWaitForAnalysis_DeadlineReturnsLastAnalysis(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		steps      []http.HandlerFunc
		ctxTimeout time.Duration
		wantLast   AnalysisStatus // "": no analysis seen
	}{
		{"server holds until the client gives up", []http.HandlerFunc{waitTestHold}, 300 * time.Millisecond, ""},
		{"pending, then held", []http.HandlerFunc{waitTestPending, waitTestHold}, 800 * time.Millisecond, AnalysisPending},
		{"keeps answering processing at once", []http.HandlerFunc{waitTestProcessing}, 500 * time.Millisecond, AnalysisProcessing},
		{"completed without report, then held", []http.HandlerFunc{waitTestAnswer(AnalysisCompleted, "", ""), waitTestHold}, 800 * time.Millisecond, AnalysisCompleted},
		{"keeps failing with 503", []http.HandlerFunc{waitTestProcessing, retryTestStatus(503)}, 500 * time.Millisecond, AnalysisProcessing},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newTestServer(t, retryTestSequence(tt.steps...))
			ctx, cancel := context.WithTimeout(context.Background(), tt.ctxTimeout)
			defer cancel()
			start := time.Now()
			a, err := srv.client(t).WaitForAnalysis(ctx, "analysis_1", nil)
			elapsed := time.Since(start)
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrWaitTimeout)
			assert.ErrorIs(t, err, context.DeadlineExceeded)
			assert.NotErrorIs(t, err, ErrAnalysisFailed)
			if tt.wantLast == "" {
				assert.Nil(t, a)
			} else if assert.NotNil(t, a, "the last analysis seen is returned") {
				assert.Equal(t, tt.wantLast, a.Status)
			}
			assert.Less(t, elapsed, tt.ctxTimeout+3*time.Second, "returns soon after the deadline")
		})
	}
}

func TestWaitForAnalysis_Cancel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		steps []http.HandlerFunc
	}{
		{"during a held poll", []http.HandlerFunc{waitTestHold}},
		{"between quick polls", []http.HandlerFunc{waitTestProcessing}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var once sync.Once
			seq := retryTestSequence(tt.steps...)
			srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
				once.Do(func() { time.AfterFunc(100*time.Millisecond, cancel) })
				seq(w, r)
			})
			start := time.Now()
			_, err := srv.client(t).WaitForAnalysis(ctx, "analysis_1", nil)
			require.Error(t, err)
			assert.ErrorIs(t, err, context.Canceled)
			assert.NotErrorIs(t, err, ErrWaitTimeout)
			assert.Less(t, time.Since(start), 3*time.Second)
		})
	}
}

func TestWaitForAnalysis_DoesNotSpin(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, waitTestProcessing)
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
		clientTestSleep(r, 200*time.Millisecond)
		waitTestDone(w, r)
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
			clientTestSleep(r, 2*time.Second)
			return
		}
		waitTestDone(w, r)
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
