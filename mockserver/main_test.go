package mockserver

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/profilesvc/profilesvc-go"
)

// TestMain runs the package's tests, internal and external (package
// mockserver_test shares this test binary), closes the shared report
// fixture, and then fails the run if any goroutine is left behind: an
// analysis timer that fired after Close, a held long poll, a server's
// connection, or a client's. No goroutine is ignored: every test closes
// its servers and its clients' idle connections.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(closingShared{m})
}

// closingShared runs the tests, then closes what they shared.
type closingShared struct{ m *testing.M }

func (c closingShared) Run() int {
	defer closeSharedFixture()
	return c.m.Run()
}

// TestRelCloseLeavesNothingRunning closes a server that holds long polls
// and a delayed request, with analyses scheduled to move on: Close
// returns, every held request is answered, the analyses stay where they
// were (their timers were stopped), and no goroutine of the server or of
// its clients is left.
func TestRelCloseLeavesNothingRunning(t *testing.T) {
	// Not parallel: goleak looks at every goroutine of the process. Those
	// that exist now (the paused parallel tests, and whatever earlier tests
	// are still winding down) are not this test's.
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())

	const polls = 6
	// The polls' timeouts and the delayed request's delay (5 minutes) are
	// all of 300s: the clock signals each as it is held. None of them, nor
	// the analyses' hour, can pass within the minutes waited here: only
	// Close can end the holds, and only Close can stop the timers.
	clock := &holdClock{hold: 300 * time.Second, held: make(chan struct{}, polls+1)}
	srv := New(WithClock(clock), WithAnalysisDuration(time.Hour))
	tr := &http.Transport{}
	hc := &http.Client{Transport: tr}
	defer tr.CloseIdleConnections()
	// sendFrom sends a request from any goroutine, reporting rather than
	// failing.
	sendFrom := func(ctx context.Context, method, path, body string) (int, string, error) {
		var rd io.Reader
		if body != "" {
			rd = strings.NewReader(body)
		}
		req, err := http.NewRequestWithContext(ctx, method, srv.URL+path, rd)
		if err != nil {
			return 0, "", err
		}
		req.Header.Set("x-api-key", srv.APIKey)
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := hc.Do(req)
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), err
	}

	// Three profiles with a running analysis each: timers scheduled.
	var analyses []string
	for i := range 3 {
		p, err := srv.CreateProfile(DefaultWorkflowID, profilesvc.CreateProfileParams{Name: fmt.Sprintf("Closing %d", i)})
		require.NoError(t, err)
		it, err := srv.AddTextItem(p.Folders[0].ID, "note", "Full Name: Jane Doe")
		require.NoError(t, err)
		status, body, err := sendFrom(t.Context(), "POST", "/v1/analyses/"+p.ID+"/analyze", `{"targetItems":[{"itemId":"`+it.ID+`"}]}`)
		require.True(t, err == nil && status == http.StatusAccepted, "start: %d %s %v", status, body, err)
		id := body[strings.Index(body, "analysis_"):]
		analyses = append(analyses, id[:strings.IndexByte(id, '"')])
	}

	// Long polls held on them, and a request held by a delay fault.
	type answer struct {
		status int
		body   string
		err    error
	}
	answers := make(chan answer, polls+1)
	var clients sync.WaitGroup
	for i := range polls {
		clients.Add(1)
		go func() {
			defer clients.Done()
			status, body, err := sendFrom(context.Background(), "GET", "/v1/analyses/"+analyses[i%len(analyses)]+"?waitForReport=true&timeoutSeconds=300", "")
			answers <- answer{status, body, err}
		}()
	}
	for i := range polls {
		waitSignal(t, clock.held, fmt.Sprintf("long poll %d of %d held", i+1, polls))
	}
	_, err := srv.InjectFault(Fault{Method: "GET", Path: "/v1/profiles/*", Delay: 5 * time.Minute})
	require.NoError(t, err)
	clients.Add(1)
	go func() {
		defer clients.Done()
		status, body, err := sendFrom(context.Background(), "GET", "/v1/profiles/pf_held", "")
		answers <- answer{status, body, err}
	}()
	waitSignal(t, clock.held, "the delayed request held by its fault")

	closed := make(chan struct{})
	go func() { srv.Close(); close(closed) }()
	// Hang guards only, far above any machine's and far below the five
	// minutes of the delayed request and the long polls.
	select {
	case <-closed:
	case <-time.After(time.Minute):
		require.FailNow(t, "Close did not return within a minute with long polls and a delayed request held")
	}
	done := make(chan struct{})
	go func() { clients.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		require.FailNow(t, "the held requests were not released within a minute of Close")
	}
	close(answers)
	// Answered, each: a request Close left to its grace period would have
	// been cut.
	for a := range answers {
		if assert.NoError(t, a.err, "a held request") {
			assert.Equal(t, http.StatusOK, a.status, "a held request was answered %d %s, want 200 (a long poll with the analysis as it stands)", a.status, a.body)
		}
	}

	// Close stopped the analyses' timers, and the long polls', so that
	// none is left to fire.
	assert.Zero(t, clock.armedTimers(), "timers still armed after Close")
	for _, id := range analyses {
		a, ok := srv.Analysis(id)
		assert.True(t, ok && !a.Status.IsTerminal(), "analysis %s is %v after Close: its run went on", id, a)
	}
	tr.CloseIdleConnections()
}

// TestRelCloseOfHandlerLeavesNothingRunning does the same for a server made
// with NewHandler and served by the caller: its Close stops the analyses'
// timers and ends the long polls the caller's server holds.
func TestRelCloseOfHandlerLeavesNothingRunning(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())

	// The run is long enough that none of its timers can fire during the
	// test: after Close, none may be left armed.
	clock := &holdClock{hold: 300 * time.Second, held: make(chan struct{}, 1)}
	srv, err := NewHandler(WithClock(clock), WithAnalysisDuration(10*time.Minute))
	require.NoError(t, err)
	p, err := srv.CreateProfile(DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Handler"})
	require.NoError(t, err)
	it, err := srv.AddTextItem(p.Folders[0].ID, "note", "Full Name: Jane Doe")
	require.NoError(t, err)
	rec := httptest.NewRecorder()
	req, _ := http.NewRequest("POST", "/v1/analyses/"+p.ID+"/analyze", strings.NewReader(`{"targetItems":[{"itemId":"`+it.ID+`"}]}`))
	req.Header.Set("x-api-key", srv.APIKey)
	req.Header.Set("Content-Type", "application/json")
	srv.Handler().ServeHTTP(rec, req)
	require.Equal(t, http.StatusAccepted, rec.Code, "start: %s", rec.Body)
	id := srv.Analyses(p.ID)[0].ID
	require.Equal(t, 2, clock.armedTimers(), "timers armed by the analysis's run")

	poll := httptest.NewRecorder()
	released := make(chan struct{})
	go func() {
		defer close(released)
		req, _ := http.NewRequest("GET", "/v1/analyses/"+id+"?waitForReport=true&timeoutSeconds=300", nil)
		req.Header.Set("x-api-key", srv.APIKey)
		srv.Handler().ServeHTTP(poll, req)
	}()
	waitSignal(t, clock.held, "the long poll held")
	srv.Close()
	select {
	case <-released:
	case <-time.After(time.Minute):
		require.FailNow(t, "Close did not release the long poll within a minute (its timeout is 300s)")
	}
	assert.Equal(t, http.StatusOK, poll.Code, "status of the held long poll")
	// Close stopped the run's timers and the poll's: none is left to move
	// the analysis on.
	assert.Zero(t, clock.armedTimers(), "timers still armed after Close")
	a, _ := srv.Analysis(id)
	assert.False(t, a.Status.IsTerminal(), "analysis %s is %s after Close: its timer still ran", id, a.Status)
}

// TestRelCancelledWaitOnTheMockLeavesNothingRunning cancels the SDK's
// WaitForAnalysis while the mock holds its long poll: the call returns,
// the mock lets go of the request without waiting for its timeout (300s,
// which cannot pass within the minute waited) or for Close, and once the
// server is closed nothing of either side is left.
func TestRelCancelledWaitOnTheMockLeavesNothingRunning(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())

	clock := &holdClock{hold: 300 * time.Second, held: make(chan struct{}, 1), released: make(chan struct{}, 1)}
	srv := New(WithClock(clock), WithManualAnalyses())
	defer srv.Close()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	c := srv.Client(profilesvc.WithHTTPClient(&http.Client{Transport: tr}))
	p, err := srv.CreateProfile(DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Waiting"})
	require.NoError(t, err)
	it, err := srv.AddTextItem(p.Folders[0].ID, "note", "Full Name: Jane Doe")
	require.NoError(t, err)
	id, err := c.StartAnalysis(t.Context(), p.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{it.ID}})
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := c.WaitForAnalysis(ctx, id, &profilesvc.WaitOptions{PollTimeout: 300 * time.Second})
		done <- err
	}()
	waitSignal(t, clock.held, "the long poll held")
	cancel()
	select {
	case err := <-done:
		assert.ErrorIs(t, err, context.Canceled, "WaitForAnalysis")
	case <-time.After(time.Minute):
		require.FailNow(t, "WaitForAnalysis did not return within a minute of the cancel")
	}
	select {
	case <-clock.released:
	case <-time.After(time.Minute):
		require.FailNow(t, "the mock still holds the long poll a minute after the client left")
	}
	a, _ := srv.Analysis(id)
	assert.Equal(t, profilesvc.AnalysisPending, a.Status, "the analysis, want it untouched (pending)")
	tr.CloseIdleConnections()
	srv.Close()
}
