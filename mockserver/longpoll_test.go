package mockserver_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go/mockserver"
)

func TestLongPollUntilCompleted(t *testing.T) {
	t.Parallel()
	// On a fake clock no time passes: the poll's timeout never fires, so
	// that nothing but the analysis's change can end the poll.
	clock := mockserver.NewFakeClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	waits := make(chan struct{}, 8)
	srv := newServer(t, mockserver.WithManualAnalyses(), mockserver.WithClock(clock), mockserver.WithPollWaits(waits))
	pid, items := analysisFixture(t, srv)
	id := startAnalysis(t, srv, pid, items...)

	poll := longPoll(t, srv, context.Background(), "/v1/analyses/"+id+"?waitForReport=true&timeoutSeconds=10")
	awaitPollWait(t, waits, poll) // held, the analysis pending
	wantNotAnswered(t, poll)
	// Processing is not the end: the poll sees the change and waits on.
	require.NoError(t, srv.StartProcessing(id))
	awaitPollWait(t, waits, poll)
	// Nor is it answered before the analysis completes: its one answer
	// must say completed.
	wantNotAnswered(t, poll)
	require.NoError(t, srv.CompleteAnalysis(id))
	// It wakes on the change itself: the clock has not moved, and the
	// poll's timeout is still waiting on it.
	r := awaitAnswer(t, poll, time.Minute)
	a := jsonObject(t, r, http.StatusOK)
	checkAnalysis(t, a, pid, "completed")
	idField(t, "analysis", a, "primaryReportId", "rpt_")
	checkResult(t, a, pid, items)
}

func TestLongPollUntilFailed(t *testing.T) {
	t.Parallel()
	clock := newTimerClock(wallClock{})
	srv := newServer(t, mockserver.WithManualAnalyses(), mockserver.WithClock(clock))
	pid, items := analysisFixture(t, srv)
	id := startAnalysis(t, srv, pid, items...)
	poll := longPoll(t, srv, context.Background(), "/v1/analyses/"+id+"?waitForReport=true")
	clock.waitArmed(t, 120*time.Second) // the default timeout
	// Not answered before the analysis fails: its one answer must say
	// failed.
	wantNotAnswered(t, poll)
	require.NoError(t, srv.FailAnalysis(id, "documents unreadable"))
	a := jsonObject(t, awaitAnswer(t, poll, time.Minute), http.StatusOK)
	checkAnalysis(t, a, pid, "failed")
	assert.Equal(t, "documents unreadable", a["error"], "error")
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
		// The interface document types timeoutSeconds as a number.
		{"?waitForReport=true&timeoutSeconds=30.0", 30 * time.Second},
		{"?waitForReport=true&timeoutSeconds=10.5", 10500 * time.Millisecond},
		{"?waitForReport=true&timeoutSeconds=299.999", 299999 * time.Millisecond},
	} {
		t.Run(c.query, func(t *testing.T) {
			t.Parallel()
			fake := mockserver.NewFakeClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
			srv := newServer(t, mockserver.WithManualAnalyses(), mockserver.WithClock(fake))
			pid, items := analysisFixture(t, srv)
			id := startAnalysis(t, srv, pid, items...)
			require.NoError(t, srv.StartProcessing(id))
			poll := longPoll(t, srv, context.Background(), "/v1/analyses/"+id+c.query)
			// With manual analyses the poll's timeout is the clock's only
			// timer: once it is armed, the server holds the poll.
			blockUntil(t, fake, 1)
			require.Equal(t, 1, fake.Timers(), "timers set, want the poll's timeout alone")
			// It fires at the timeout asked for exactly: not a nanosecond
			// before, and as soon as it is due.
			fake.Advance(c.timeout - time.Nanosecond)
			require.Equal(t, 1, fake.Timers(), "timers set a nanosecond before the poll's timeout, want the poll's timeout still waiting")
			wantNotAnswered(t, poll)
			fake.Advance(time.Nanosecond)
			// The analysis as it stands.
			a := jsonObject(t, awaitAnswer(t, poll, time.Minute), http.StatusOK)
			checkAnalysis(t, a, pid, "processing")
		})
	}
}

func TestLongPollAlreadyDone(t *testing.T) {
	t.Parallel()
	srv := newServer(t, mockserver.WithManualAnalyses())
	pid, items := analysisFixture(t, srv)
	done := startAnalysis(t, srv, pid, items...)
	require.NoError(t, srv.CompleteAnalysis(done))
	failed := startAnalysis(t, srv, pid, items...)
	require.NoError(t, srv.FailAnalysis(failed, "x"))
	for id, status := range map[string]string{done: "completed", failed: "failed"} {
		r := awaitAnswer(t, longPoll(t, srv, context.Background(), "/v1/analyses/"+id+"?waitForReport=true&timeoutSeconds=300"), time.Minute)
		checkAnalysis(t, jsonObject(t, r, http.StatusOK), pid, status)
	}
}

func TestLongPollParameters(t *testing.T) {
	t.Parallel()
	srv := newServer(t, mockserver.WithManualAnalyses())
	pid, items := analysisFixture(t, srv)
	id := startAnalysis(t, srv, pid, items...)
	for _, c := range []struct{ query, param string }{
		{"?waitForReport=true&timeoutSeconds=9", "timeoutSeconds"},
		{"?waitForReport=true&timeoutSeconds=301", "timeoutSeconds"},
		{"?waitForReport=true&timeoutSeconds=0", "timeoutSeconds"},
		{"?waitForReport=true&timeoutSeconds=-10", "timeoutSeconds"},
		{"?waitForReport=true&timeoutSeconds=abc", "timeoutSeconds"},
		{"?waitForReport=true&timeoutSeconds=9.999", "timeoutSeconds"},
		{"?waitForReport=true&timeoutSeconds=300.001", "timeoutSeconds"},
		{"?waitForReport=true&timeoutSeconds=30.", "timeoutSeconds"},
		{"?waitForReport=true&timeoutSeconds=.5e2", "timeoutSeconds"},
		{"?waitForReport=true&timeoutSeconds=+30", "timeoutSeconds"},
		{"?waitForReport=true&timeoutSeconds=0x1E", "timeoutSeconds"},
		{"?waitForReport=true&timeoutSeconds=Inf", "timeoutSeconds"},
		{"?waitForReport=true&timeoutSeconds=NaN", "timeoutSeconds"},
		{"?waitForReport=true&timeoutSeconds=3_0", "timeoutSeconds"},
		{"?waitForReport=true&timeoutSeconds=30.0.0", "timeoutSeconds"},
		{"?waitForReport=true&timeoutSeconds=" + strings.Repeat("0", 40) + "30", "timeoutSeconds"},
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
			r := awaitAnswer(t, longPoll(t, srv, context.Background(), "/v1/analyses/"+id+c.query), time.Minute)
			wantError(t, r, http.StatusBadRequest, "VALIDATION_ERROR", c.param)
		})
	}
	for _, q := range []string{"", "?waitForReport=false", "?waitForReport=false&timeoutSeconds=10", "?timeoutSeconds=300"} {
		t.Run("answered at once "+q, func(t *testing.T) {
			r := awaitAnswer(t, longPoll(t, srv, context.Background(), "/v1/analyses/"+id+q), time.Minute)
			checkAnalysis(t, jsonObject(t, r, http.StatusOK), pid, "pending")
		})
	}
}

func TestLongPollReleasedWhenClientLeaves(t *testing.T) {
	t.Parallel()
	clock := newTimerClock(wallClock{})
	srv := newServer(t, mockserver.WithManualAnalyses(), mockserver.WithClock(clock))
	pid, items := analysisFixture(t, srv)
	id := startAnalysis(t, srv, pid, items...)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	poll := longPoll(t, srv, ctx, "/v1/analyses/"+id+"?waitForReport=true&timeoutSeconds=300")
	clock.waitArmed(t, 300*time.Second)
	cancel()
	p := await(t, poll, time.Minute)
	assert.ErrorIs(t, p.err, context.Canceled, "the client's error")
	// The server lets go of the request: the poll's timer is stopped, long
	// before its 300s (which cannot pass within the minute waited), and
	// before the server closes.
	clock.waitStopped(t, 300*time.Second)
	// The analysis is untouched and the server still answers.
	checkAnalysis(t, getAnalysis(t, srv, id), pid, "pending")
	closed := make(chan struct{})
	go func() { srv.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(time.Minute):
		require.FailNow(t, "srv.Close() did not return within a minute")
	}
}

func TestLongPollReleasedWhenServerCloses(t *testing.T) {
	t.Parallel()
	// On a fake clock the poll's 300s never pass: only Close can end it.
	fake := mockserver.NewFakeClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	srv := newServer(t, mockserver.WithManualAnalyses(), mockserver.WithClock(fake))
	pid, items := analysisFixture(t, srv)
	id := startAnalysis(t, srv, pid, items...)
	poll := longPoll(t, srv, context.Background(), "/v1/analyses/"+id+"?waitForReport=true&timeoutSeconds=300")
	blockUntil(t, fake, 1) // the poll is held: its timeout is the only timer

	closed := make(chan struct{})
	go func() { srv.Close(); close(closed) }()
	// Answered, with the analysis as it stands: a poll Close left to its
	// grace period would be cut instead.
	checkAnalysis(t, jsonObject(t, awaitAnswer(t, poll, time.Minute), http.StatusOK), pid, "pending")
	select {
	case <-closed:
	case <-time.After(time.Minute):
		require.FailNow(t, "srv.Close() did not return within a minute of closing with a poll held")
	}
}

func TestLongPollOnDeletedAnalysis(t *testing.T) {
	t.Parallel()
	clock := newTimerClock(wallClock{})
	srv := newServer(t, mockserver.WithManualAnalyses(), mockserver.WithClock(clock))
	pid, items := analysisFixture(t, srv)
	id := startAnalysis(t, srv, pid, items...)
	poll := longPoll(t, srv, context.Background(), "/v1/analyses/"+id+"?waitForReport=true&timeoutSeconds=60")
	clock.waitArmed(t, 60*time.Second)
	wantNoContent(t, do(t, srv, "DELETE", "/v1/analyses/"+id, nil))
	wantError(t, awaitAnswer(t, poll, 2*time.Second), http.StatusNotFound, "ANALYSIS_NOT_FOUND", id)
}

// TestCloseIsPromptWithIdleConnections: a client's open connection on
// which no request has been sent yet (as http.Transport dials spare ones
// under concurrency) must not hold srv.Close(). Close closes it at once
// rather than waiting for it: even a shutdown whose grace period has
// already ended finds no such connection left to cut.
func TestCloseIsPromptWithIdleConnections(t *testing.T) {
	t.Parallel()
	srv := newServer(t, mockserver.WithTLS())
	wantQuietConnClosed(t, srv, dialQuiet(t, srv))
}
