package mockserver_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/profilesvc/profilesvc-go/mockserver"
)

// hPoll is the outcome of a long poll run in the background.
type hPoll struct {
	resp    *hResp
	err     error
	elapsed time.Duration
}

// hLongPoll starts GET path in the background and returns the channel its
// outcome arrives on.
func hLongPoll(t *testing.T, srv *mockserver.Server, ctx context.Context, path string) <-chan hPoll {
	t.Helper()
	out := make(chan hPoll, 1)
	go func() {
		start := time.Now()
		r, err := hSendErr(t, srv, hReq{Method: "GET", Path: path, Ctx: ctx})
		out <- hPoll{resp: r, err: err, elapsed: time.Since(start)}
	}()
	return out
}

// hAwait waits for a poll's outcome.
func hAwait(t *testing.T, ch <-chan hPoll, within time.Duration) hPoll {
	t.Helper()
	select {
	case p := <-ch:
		return p
	case <-time.After(within):
		t.Fatalf("the long poll did not answer within %v", within)
		return hPoll{}
	}
}

// hNotYet checks that a poll is still held.
func hNotYet(t *testing.T, ch <-chan hPoll, wait time.Duration) {
	t.Helper()
	select {
	case p := <-ch:
		if p.err != nil {
			t.Fatalf("the long poll ended early: %v", p.err)
		}
		t.Fatalf("the long poll answered early: %s", p.resp)
	case <-time.After(wait):
	}
}

func TestLongPollUntilCompleted(t *testing.T) {
	t.Parallel()
	clock := hNewClock(hRealClock{})
	srv := hNew(t, mockserver.WithManualAnalyses(), mockserver.WithClock(clock))
	pid, items := hAnalysisFixture(t, srv)
	id := hStart(t, srv, pid, items...)

	poll := hLongPoll(t, srv, context.Background(), "/v1/analyses/"+id+"?waitForReport=true&timeoutSeconds=10")
	clock.hWaitAfter(t, 10*time.Second)
	// Processing is not the end: the poll stays.
	if err := srv.StartProcessing(id); err != nil {
		t.Fatal(err)
	}
	hNotYet(t, poll, 100*time.Millisecond)
	completed := make(chan time.Time, 1)
	go func() {
		time.Sleep(100 * time.Millisecond)
		completed <- time.Now()
		if err := srv.CompleteAnalysis(id); err != nil {
			t.Errorf("CompleteAnalysis: %v", err)
		}
	}()
	p := hAwait(t, poll, 5*time.Second)
	answered := time.Now()
	if p.err != nil {
		t.Fatal(p.err)
	}
	a := hObj(t, p.resp, http.StatusOK)
	hCheckAnalysis(t, a, pid, "completed")
	hID(t, "analysis", a, "primaryReportId", "rpt_")
	hCheckResult(t, a, pid, items)
	if p.elapsed < 200*time.Millisecond {
		t.Errorf("the poll answered after %v, before the analysis completed", p.elapsed)
	}
	// It wakes on the change itself, not on a later periodic check.
	if lag := answered.Sub(<-completed); lag > time.Second {
		t.Errorf("the poll answered %v after the completion", lag)
	}
}

func TestLongPollUntilFailed(t *testing.T) {
	t.Parallel()
	clock := hNewClock(hRealClock{})
	srv := hNew(t, mockserver.WithManualAnalyses(), mockserver.WithClock(clock))
	pid, items := hAnalysisFixture(t, srv)
	id := hStart(t, srv, pid, items...)
	poll := hLongPoll(t, srv, context.Background(), "/v1/analyses/"+id+"?waitForReport=true")
	clock.hWaitAfter(t, 120*time.Second) // the default timeout
	go func() {
		time.Sleep(100 * time.Millisecond)
		if err := srv.FailAnalysis(id, "documents unreadable"); err != nil {
			t.Errorf("FailAnalysis: %v", err)
		}
	}()
	p := hAwait(t, poll, 5*time.Second)
	if p.err != nil {
		t.Fatal(p.err)
	}
	a := hObj(t, p.resp, http.StatusOK)
	hCheckAnalysis(t, a, pid, "failed")
	if a["error"] != "documents unreadable" {
		t.Errorf("error = %v", a["error"])
	}
	if p.elapsed < 100*time.Millisecond {
		t.Errorf("the poll answered after %v, before the analysis failed", p.elapsed)
	}
}

func TestLongPollUntilTimeout(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		query   string
		timeout time.Duration
	}{
		{"?waitForReport=true&timeoutSeconds=10", 10 * time.Second},
		{"?timeoutSeconds=45&waitForReport=true", 45 * time.Second},
		{"?waitForReport=true", 120 * time.Second},
		{"?waitForReport=true&timeoutSeconds=300", 300 * time.Second},
	} {
		t.Run(c.query, func(t *testing.T) {
			t.Parallel()
			fake := mockserver.NewFakeClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
			srv := hNew(t, mockserver.WithManualAnalyses(), mockserver.WithClock(fake))
			pid, items := hAnalysisFixture(t, srv)
			id := hStart(t, srv, pid, items...)
			if err := srv.StartProcessing(id); err != nil {
				t.Fatal(err)
			}
			poll := hLongPoll(t, srv, context.Background(), "/v1/analyses/"+id+c.query)
			// With manual analyses the poll's timeout is the clock's only
			// timer: once it is armed, the server holds the poll.
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			defer cancel()
			if err := fake.BlockUntil(ctx, 1); err != nil {
				t.Fatalf("the long poll set no timer: %v", err)
			}
			if n := fake.Timers(); n != 1 {
				t.Fatalf("%d timers are set, want the poll's timeout alone", n)
			}
			// It fires at the timeout asked for exactly: not a nanosecond
			// before, and as soon as it is due.
			fake.Advance(c.timeout - time.Nanosecond)
			hNotYet(t, poll, 100*time.Millisecond)
			fake.Advance(time.Nanosecond)
			p := hAwait(t, poll, 2*time.Second)
			if p.err != nil {
				t.Fatal(p.err)
			}
			// The analysis as it stands.
			a := hObj(t, p.resp, http.StatusOK)
			hCheckAnalysis(t, a, pid, "processing")
		})
	}
}

func TestLongPollAlreadyDone(t *testing.T) {
	t.Parallel()
	srv := hNew(t, mockserver.WithManualAnalyses())
	pid, items := hAnalysisFixture(t, srv)
	done := hStart(t, srv, pid, items...)
	if err := srv.CompleteAnalysis(done); err != nil {
		t.Fatal(err)
	}
	failed := hStart(t, srv, pid, items...)
	if err := srv.FailAnalysis(failed, "x"); err != nil {
		t.Fatal(err)
	}
	for id, status := range map[string]string{done: "completed", failed: "failed"} {
		p := hAwait(t, hLongPoll(t, srv, context.Background(), "/v1/analyses/"+id+"?waitForReport=true&timeoutSeconds=300"), 2*time.Second)
		if p.err != nil {
			t.Fatal(p.err)
		}
		hCheckAnalysis(t, hObj(t, p.resp, http.StatusOK), pid, status)
	}
}

func TestLongPollParameters(t *testing.T) {
	t.Parallel()
	srv := hNew(t, mockserver.WithManualAnalyses())
	pid, items := hAnalysisFixture(t, srv)
	id := hStart(t, srv, pid, items...)
	for _, c := range []struct{ query, param string }{
		{"?waitForReport=true&timeoutSeconds=9", "timeoutSeconds"},
		{"?waitForReport=true&timeoutSeconds=301", "timeoutSeconds"},
		{"?waitForReport=true&timeoutSeconds=0", "timeoutSeconds"},
		{"?waitForReport=true&timeoutSeconds=-10", "timeoutSeconds"},
		{"?waitForReport=true&timeoutSeconds=abc", "timeoutSeconds"},
		{"?waitForReport=true&timeoutSeconds=10.5", "timeoutSeconds"},
		{"?waitForReport=true&timeoutSeconds=", "timeoutSeconds"},
		{"?waitForReport=true&timeoutSeconds=1e2", "timeoutSeconds"},
		{"?waitForReport=false&timeoutSeconds=5", "timeoutSeconds"},
		{"?waitForReport=yes", "waitForReport"},
		{"?waitForReport=1", "waitForReport"},
		{"?waitForReport=TRUE", "waitForReport"},
		{"?waitForReport=", "waitForReport"},
		{"?waitForReport=true&waitForReport=false", "waitForReport"},
		{"?wait=true", "wait"},
	} {
		t.Run(c.query, func(t *testing.T) {
			p := hAwait(t, hLongPoll(t, srv, context.Background(), "/v1/analyses/"+id+c.query), 2*time.Second)
			if p.err != nil {
				t.Fatal(p.err)
			}
			hErr(t, p.resp, http.StatusBadRequest, "VALIDATION_ERROR", c.param)
		})
	}
	for _, q := range []string{"", "?waitForReport=false", "?waitForReport=false&timeoutSeconds=10", "?timeoutSeconds=300"} {
		t.Run("answered at once "+q, func(t *testing.T) {
			p := hAwait(t, hLongPoll(t, srv, context.Background(), "/v1/analyses/"+id+q), 2*time.Second)
			if p.err != nil {
				t.Fatal(p.err)
			}
			hCheckAnalysis(t, hObj(t, p.resp, http.StatusOK), pid, "pending")
		})
	}
}

func TestLongPollReleasedWhenClientLeaves(t *testing.T) {
	t.Parallel()
	clock := hNewClock(hRealClock{})
	srv := hNew(t, mockserver.WithManualAnalyses(), mockserver.WithClock(clock))
	pid, items := hAnalysisFixture(t, srv)
	id := hStart(t, srv, pid, items...)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	poll := hLongPoll(t, srv, ctx, "/v1/analyses/"+id+"?waitForReport=true&timeoutSeconds=300")
	clock.hWaitAfter(t, 300*time.Second)
	cancel()
	p := hAwait(t, poll, 2*time.Second)
	if !errors.Is(p.err, context.Canceled) {
		t.Errorf("client error = %v, want context.Canceled", p.err)
	}
	// The server lets go of the request: the poll's timer is stopped, long
	// before its 300s, and before the server closes.
	clock.hWaitStop(t, 300*time.Second, 2*time.Second)
	// The analysis is untouched and the server still answers.
	hCheckAnalysis(t, hGetAnalysis(t, srv, id), pid, "pending")
	closed := make(chan struct{})
	go func() { srv.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(2 * time.Second):
		t.Fatal("srv.Close() did not return within 2s: a request is still held")
	}
}

func TestLongPollReleasedWhenServerCloses(t *testing.T) {
	t.Parallel()
	clock := hNewClock(hRealClock{})
	srv := hNew(t, mockserver.WithManualAnalyses(), mockserver.WithClock(clock))
	pid, items := hAnalysisFixture(t, srv)
	id := hStart(t, srv, pid, items...)
	poll := hLongPoll(t, srv, context.Background(), "/v1/analyses/"+id+"?waitForReport=true&timeoutSeconds=300")
	clock.hWaitAfter(t, 300*time.Second)

	start := time.Now()
	closed := make(chan struct{})
	go func() { srv.Close(); close(closed) }()
	p := hAwait(t, poll, 2*time.Second)
	if p.err == nil {
		// Answered: with the analysis as it stands.
		hCheckAnalysis(t, hObj(t, p.resp, http.StatusOK), pid, "pending")
	}
	select {
	case <-closed:
	case <-time.After(2 * time.Second):
		t.Fatal("srv.Close() did not return within 2s of closing with a poll held")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("closing with a poll held took %v", d)
	}
}

func TestLongPollOnDeletedAnalysis(t *testing.T) {
	t.Parallel()
	clock := hNewClock(hRealClock{})
	srv := hNew(t, mockserver.WithManualAnalyses(), mockserver.WithClock(clock))
	pid, items := hAnalysisFixture(t, srv)
	id := hStart(t, srv, pid, items...)
	poll := hLongPoll(t, srv, context.Background(), "/v1/analyses/"+id+"?waitForReport=true&timeoutSeconds=60")
	clock.hWaitAfter(t, 60*time.Second)
	hNoBody(t, hDo(t, srv, "DELETE", "/v1/analyses/"+id, nil))
	p := hAwait(t, poll, 2*time.Second)
	if p.err != nil {
		t.Fatal(p.err)
	}
	hErr(t, p.resp, http.StatusNotFound, "ANALYSIS_NOT_FOUND", id)
}

// TestCloseIsPromptWithIdleConnections: a client's open connection on
// which no request has been sent yet (as http.Transport dials spare ones
// under concurrency) must not hold srv.Close().
func TestCloseIsPromptWithIdleConnections(t *testing.T) {
	t.Parallel()
	srv := hNew(t)
	conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// One request on another connection, so the server is surely serving.
	hJSON(t, srv, "GET", "/v1/workflows/wf_default/profiles", nil, http.StatusOK)
	start := time.Now()
	closed := make(chan struct{})
	go func() { srv.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(2 * time.Second):
		<-closed
		t.Errorf("srv.Close() took %v with an idle client connection open, want < 2s", time.Since(start))
	}
}
