package mockserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/profilesvc/profilesvc-go"
)

// TestMain runs the package's tests, internal and external (package
// mockserver_test shares this test binary), and then fails the run if any
// goroutine is left behind: an analysis timer that fired after Close, a
// held long poll, a server's connection, or a client's. No goroutine is
// ignored: every test closes its servers and its clients' idle
// connections.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// relHoldClock is the real clock, telling the test each time a timer of
// the given length is set: the long polls' timeouts, so that the test knows
// when the server holds them. It also counts the timers armed and not yet
// fired nor stopped.
type relHoldClock struct {
	realClock
	hold time.Duration
	held chan struct{}
	// released, if set, hears of each such timer stopped: a long poll let
	// go of.
	released chan struct{}

	mu    sync.Mutex
	armed int
}

func (c *relHoldClock) AfterFunc(d time.Duration, f func()) func() bool {
	c.mu.Lock()
	c.armed++
	c.mu.Unlock()
	var once sync.Once
	done := func() {
		once.Do(func() {
			c.mu.Lock()
			c.armed--
			c.mu.Unlock()
		})
	}
	stop := c.realClock.AfterFunc(d, func() { done(); f() })
	counted := func() bool {
		ok := stop()
		if ok {
			done()
		}
		return ok
	}
	if d != c.hold {
		return counted
	}
	relSignal(c.held)
	return func() bool {
		ok := counted()
		relSignal(c.released)
		return ok
	}
}

// armedTimers returns how many timers are armed and have neither fired
// nor been stopped.
func (c *relHoldClock) armedTimers() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.armed
}

// relSignal sends on ch without ever blocking the server: a nil channel,
// or one whose buffer is full, is skipped.
func relSignal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// TestRelCloseLeavesNothingRunning closes a server that holds long polls
// and a delayed request, with analyses scheduled to move on shortly after:
// Close returns promptly, every held request is answered, the analyses
// stay where they were (their timers were stopped), and no goroutine of
// the server or of its clients is left.
func TestRelCloseLeavesNothingRunning(t *testing.T) {
	// Not parallel: goleak looks at every goroutine of the process. Those
	// that exist now (the paused parallel tests, and whatever earlier tests
	// are still winding down) are not this test's.
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())

	const polls = 6
	clock := &relHoldClock{hold: 300 * time.Second, held: make(chan struct{}, polls)}
	srv := New(WithClock(clock), WithAnalysisDuration(800*time.Millisecond))
	tr := &http.Transport{}
	hc := &http.Client{Transport: tr}
	defer tr.CloseIdleConnections()
	send := func(ctx context.Context, method, path, body string) (int, string, error) {
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
		if err != nil {
			t.Fatal(err)
		}
		it, err := srv.AddTextItem(p.Folders[0].ID, "note", "Full Name: Jane Doe")
		if err != nil {
			t.Fatal(err)
		}
		status, body, err := send(t.Context(), "POST", "/v1/analyses/"+p.ID+"/analyze", `{"targetItems":[{"itemId":"`+it.ID+`"}]}`)
		if err != nil || status != http.StatusAccepted {
			t.Fatalf("start: %d %s %v", status, body, err)
		}
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
			status, body, err := send(context.Background(), "GET", "/v1/analyses/"+analyses[i%len(analyses)]+"?waitForReport=true&timeoutSeconds=300", "")
			answers <- answer{status, body, err}
		}()
	}
	for range polls {
		select {
		case <-clock.held:
		case <-time.After(5 * time.Second):
			t.Fatal("the long polls were not all held within 5s")
		}
	}
	if _, err := srv.InjectFault(Fault{Method: "GET", Path: "/v1/profiles/*", Delay: 5 * time.Minute}); err != nil {
		t.Fatal(err)
	}
	clients.Add(1)
	go func() {
		defer clients.Done()
		status, body, err := send(context.Background(), "GET", "/v1/profiles/pf_held", "")
		answers <- answer{status, body, err}
	}()
	time.Sleep(100 * time.Millisecond) // the delayed request reaches its fault

	start := time.Now()
	srv.Close()
	// Not a timing test: a bound far above a busy machine's, far below
	// the five minutes of the delayed request and the long polls.
	if d := time.Since(start); d > time.Minute {
		t.Errorf("Close took %v with long polls and a delayed request held", d)
	}
	done := make(chan struct{})
	go func() { clients.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the held requests were not released within a minute of Close")
	}
	close(answers)
	for a := range answers {
		if a.err == nil && a.status != http.StatusOK {
			t.Errorf("a held request was answered %d %s, want 200 with the analysis as it stands (or a closed connection)", a.status, a.body)
		}
	}

	// The analyses were due to move on within the second: Close stopped
	// their timers, and the long polls', so that none is left to fire.
	if n := clock.armedTimers(); n != 0 {
		t.Errorf("%d timers still armed after Close", n)
	}
	for _, id := range analyses {
		if a, ok := srv.Analysis(id); !ok || a.Status.IsTerminal() {
			t.Errorf("analysis %s is %v after Close: its run went on", id, a)
		}
	}
	tr.CloseIdleConnections()
}

// TestRelCloseOfHandlerLeavesNothingRunning does the same for a server made
// with NewHandler and served by the caller: its Close stops the analyses'
// timers and ends the long polls the caller's server holds.
func TestRelCloseOfHandlerLeavesNothingRunning(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())

	clock := &relHoldClock{hold: 300 * time.Second, held: make(chan struct{}, 1)}
	srv, err := NewHandler(WithClock(clock), WithAnalysisDuration(600*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	p, err := srv.CreateProfile(DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Handler"})
	if err != nil {
		t.Fatal(err)
	}
	it, err := srv.AddTextItem(p.Folders[0].ID, "note", "Full Name: Jane Doe")
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	req, _ := http.NewRequest("POST", "/v1/analyses/"+p.ID+"/analyze", strings.NewReader(`{"targetItems":[{"itemId":"`+it.ID+`"}]}`))
	req.Header.Set("x-api-key", srv.APIKey)
	req.Header.Set("Content-Type", "application/json")
	srv.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusAccepted {
		t.Fatalf("start: %d %s", rec.Code, rec.Body)
	}
	id := srv.Analyses(p.ID)[0].ID

	poll := httptest.NewRecorder()
	released := make(chan struct{})
	go func() {
		defer close(released)
		req, _ := http.NewRequest("GET", "/v1/analyses/"+id+"?waitForReport=true&timeoutSeconds=300", nil)
		req.Header.Set("x-api-key", srv.APIKey)
		srv.Handler().ServeHTTP(poll, req)
	}()
	select {
	case <-clock.held:
	case <-time.After(5 * time.Second):
		t.Fatal("the long poll was not held within 5s")
	}
	srv.Close()
	select {
	case <-released:
	case <-time.After(2 * time.Second):
		t.Fatal("Close did not release the long poll within 2s")
	}
	if poll.Code != http.StatusOK {
		t.Errorf("the held long poll got %d, want 200", poll.Code)
	}
	time.Sleep(800 * time.Millisecond)
	if a, _ := srv.Analysis(id); a.Status.IsTerminal() {
		t.Errorf("analysis %s is %s after Close: its timer still ran", id, a.Status)
	}
}

// TestRelCancelledWaitOnTheMockLeavesNothingRunning cancels the SDK's
// WaitForAnalysis while the mock holds its long poll: the call returns at
// once, the mock lets go of the request without waiting for its timeout or
// for Close, and once the server is closed nothing of either side is left.
func TestRelCancelledWaitOnTheMockLeavesNothingRunning(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())

	clock := &relHoldClock{hold: 300 * time.Second, held: make(chan struct{}, 1), released: make(chan struct{}, 1)}
	srv := New(WithClock(clock), WithManualAnalyses())
	defer srv.Close()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	c := srv.Client(profilesvc.WithHTTPClient(&http.Client{Transport: tr}))
	p, err := srv.CreateProfile(DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Waiting"})
	if err != nil {
		t.Fatal(err)
	}
	it, err := srv.AddTextItem(p.Folders[0].ID, "note", "Full Name: Jane Doe")
	if err != nil {
		t.Fatal(err)
	}
	id, err := c.StartAnalysis(t.Context(), p.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{it.ID}})
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := c.WaitForAnalysis(ctx, id, &profilesvc.WaitOptions{PollTimeout: 300 * time.Second})
		done <- err
	}()
	select {
	case <-clock.held:
	case <-time.After(5 * time.Second):
		t.Fatal("the long poll was not held within 5s")
	}
	cancelled := time.Now()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("WaitForAnalysis = %v, want context.Canceled", err)
		}
		if d := time.Since(cancelled); d > time.Second {
			t.Errorf("WaitForAnalysis returned %v after the cancel", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("WaitForAnalysis did not return within 5s of the cancel")
	}
	select {
	case <-clock.released:
	case <-time.After(2 * time.Second):
		t.Fatal("the mock still holds the long poll 2s after the client left")
	}
	if a, _ := srv.Analysis(id); a.Status != profilesvc.AnalysisPending {
		t.Errorf("the analysis is %s, want it untouched (pending)", a.Status)
	}
	tr.CloseIdleConnections()
	srv.Close()
}
