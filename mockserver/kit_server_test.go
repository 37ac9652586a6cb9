package mockserver_test

// The embedding API: New, NewTest, Start, NewHandler, Close and Client.

import (
	"context"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

func TestKitNew(t *testing.T) {
	srv := mockserver.New(openapiChecked(t))
	defer srv.Close()

	assert.Regexp(t, regexp.MustCompile(`^http://127\.0\.0\.1:\d+$`), srv.URL, "URL, want http://127.0.0.1:PORT")
	assert.Regexp(t, uuidPattern, srv.APIKey, "APIKey, want a random (version 4) UUID")
	other := mockserver.New()
	defer other.Close()
	assert.NotEqual(t, srv.APIKey, other.APIKey, "two servers share the API key %s", srv.APIKey)
	assert.NotEqual(t, srv.URL, other.URL, "two servers share the URL %s", srv.URL)

	// Client is pointed at the server with its key, and takes options.
	c := srv.Client(profilesvc.WithUserAgent("kit-test/1"))
	assert.Equal(t, srv.URL, c.BaseURL(), "Client().BaseURL()")
	p, err := c.CreateProfile(t.Context(), mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Through the client"})
	require.NoError(t, err, "CreateProfile through srv.Client")
	_, ok := srv.Profile(p.ID)
	assert.True(t, ok, "the profile the client created is not in the server's state")
	reqs := srv.Requests()
	assert.True(t, len(reqs) == 1 && reqs[0].Header.Get("User-Agent") != "" && strings.HasPrefix(reqs[0].Header.Get("User-Agent"), "kit-test/1 "),
		"the client's options were not applied: requests %+v", reqs)

	// A missing or wrong key gets 401.
	wantError(t, send(t, srv, request{Method: "GET", Path: "/v1/profiles/" + p.ID, Key: noKey}), 401, "UNAUTHORIZED")
	wantError(t, send(t, srv, request{Method: "GET", Path: "/v1/profiles/" + p.ID, Key: "00000000-0000-4000-8000-000000000000"}), 401, "UNAUTHORIZED")

	// Close is idempotent, and the server stops answering.
	srv.Close()
	srv.Close()
	_, err = c.GetProfile(t.Context(), p.ID, profilesvc.WithRetries(0))
	assert.Error(t, err, "GetProfile after Close succeeded")
}

func TestKitWithAPIKey(t *testing.T) {
	srv := mockserver.NewTest(t, mockserver.WithAPIKey("my-fixed-key"))
	require.Equal(t, "my-fixed-key", srv.APIKey, "APIKey")
	wantStatus(t, send(t, srv, request{Method: "GET", Path: "/_mock/workflows", Key: "my-fixed-key"}), 200)
	wantError(t, send(t, srv, request{Method: "GET", Path: "/_mock/workflows", Key: "my-fixed-key-2"}), 401, "UNAUTHORIZED")
	wantError(t, send(t, srv, request{Method: "GET", Path: "/_mock/workflows", Key: "my-fixed-ke"}), 401, "UNAUTHORIZED")
	_, err := srv.Client().CreateProfile(t.Context(), mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "x"})
	require.NoError(t, err, "srv.Client with a fixed key")
}

func TestKitNewTestClosesAtCleanup(t *testing.T) {
	var url string
	t.Run("inner", func(t *testing.T) {
		srv := mockserver.NewTest(t)
		url = srv.URL
		wantStatus(t, do(t, srv, "GET", "/_mock/workflows", nil), 200)
	})
	req, _ := http.NewRequest("GET", url+"/_mock/workflows", nil)
	resp, err := (&http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{}}).Do(req)
	if err == nil {
		resp.Body.Close()
		require.FailNowf(t, "a closed server answers", "the server of a finished test still answers (%d): NewTest must close it at cleanup", resp.StatusCode)
	}
}

func TestKitStart(t *testing.T) {
	srv, err := mockserver.Start("127.0.0.1:0", mockserver.WithAPIKey("k"))
	require.NoError(t, err, "Start")
	defer srv.Close()
	assert.True(t, strings.HasPrefix(srv.URL, "http://127.0.0.1:") && !strings.HasSuffix(srv.URL, ":0"), "URL = %q, want the port picked", srv.URL)
	wantStatus(t, send(t, srv, request{Method: "GET", Path: "/_mock/workflows", Key: "k"}), 200)

	// The address is taken: Start reports it.
	addr := strings.TrimPrefix(srv.URL, "http://")
	s2, err := mockserver.Start(addr)
	if err == nil {
		s2.Close()
	}
	assert.Error(t, err, "Start on a taken address %s succeeded", addr)

	bad := []struct {
		name string
		addr string
		opts []mockserver.Option
	}{
		{"bad address", "127.0.0.1:notaport", nil},
		{"negative duration", "127.0.0.1:0", []mockserver.Option{mockserver.WithAnalysisDuration(-time.Second)}},
		{"nil clock", "127.0.0.1:0", []mockserver.Option{mockserver.WithClock(nil)}},
		{"zero JSON limit", "127.0.0.1:0", []mockserver.Option{mockserver.WithMaxJSONBody(0)}},
		{"zero upload limit", "127.0.0.1:0", []mockserver.Option{mockserver.WithMaxUploadSize(0)}},
		{"negative record size", "127.0.0.1:0", []mockserver.Option{mockserver.WithRequestRecordSize(-1)}},
		{"invalid workflow", "127.0.0.1:0", []mockserver.Option{mockserver.WithWorkflows(mockserver.Workflow{ID: "nope"})}},
		{"invalid seed", "127.0.0.1:0", []mockserver.Option{mockserver.WithSeed(&mockserver.Seed{Profiles: []mockserver.SeedProfile{{Name: ""}}})}},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			s, err := mockserver.Start(tc.addr, tc.opts...)
			if err == nil {
				s.Close()
			}
			require.Error(t, err, "Start succeeded, want an error")
		})
	}

	t.Run("New panics on a bad option", func(t *testing.T) {
		assert.Panics(t, func() {
			s := mockserver.New(mockserver.WithAnalysisDuration(-1))
			s.Close()
		}, "New with a negative duration did not panic")
	})
}

func TestKitNewHandler(t *testing.T) {
	clock := newTimerClock(wallClock{})
	srv, err := mockserver.NewHandler(mockserver.WithManualAnalyses(), mockserver.WithClock(clock), openapiChecked(t))
	require.NoError(t, err, "NewHandler")
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	t.Cleanup(srv.Close) // runs first: releases long polls before ts.Close waits for them
	assert.Empty(t, srv.URL, "URL, want empty for a server that does not listen")
	assert.Regexp(t, uuidPattern, srv.APIKey, "APIKey, want a UUID")

	c, err := profilesvc.NewClient(profilesvc.WithBaseURL(ts.URL), profilesvc.WithAPIKey(srv.APIKey))
	require.NoError(t, err)
	ctx := t.Context()
	p, err := c.CreateProfile(ctx, mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Handler"})
	require.NoError(t, err, "CreateProfile")
	it, err := c.CreateTextItem(ctx, p.DefaultFolder().ID, passportDoc, profilesvc.CreateItemParams{Name: "passport"})
	require.NoError(t, err, "CreateTextItem")
	// The artifact addresses name the address the request reached.
	assert.True(t, strings.HasPrefix(it.URL, ts.URL+"/") && strings.HasPrefix(it.StorageOriginalURL, ts.URL+"/"),
		"url %q and storageOriginalUrl %q: want them under %s", it.URL, it.StorageOriginalURL, ts.URL)
	r := send(t, srv, request{Method: "GET", Base: ts.URL, Path: strings.TrimPrefix(it.StorageOriginalURL, ts.URL)})
	wantStatus(t, r, 200)
	assert.Equal(t, passportDoc, string(r.Body), "what storageOriginalUrl served")
	_, ok := srv.Profile(p.ID)
	assert.True(t, ok, "the kit does not see the profile created over the handler")

	// Close ends a long poll on the handler at once: its 300s, on the
	// real clock, cannot pass within the minute waited for its answer.
	id, err := c.StartAnalysis(ctx, p.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{it.ID}})
	require.NoError(t, err)
	ch := goSend(t, srv, request{Method: "GET", Base: ts.URL, Path: "/v1/analyses/" + id + "?waitForReport=true&timeoutSeconds=300"})
	clock.waitArmed(t, 300*time.Second) // the poll is held
	wantNotAnswered(t, ch)
	srv.Close()
	got := awaitAnswer(t, ch, time.Minute)
	assert.Equal(t, 200, got.Status, "long poll after Close: %s", got)
	srv.Close() // idempotent
}

func TestKitClose(t *testing.T) {
	t.Run("releases a long poll promptly", func(t *testing.T) {
		// On a fake clock the poll's 300s never pass: only Close can end
		// it, and a poll Close left to its grace period would be cut
		// rather than answered.
		clock := mockserver.NewFakeClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
		srv := mockserver.New(mockserver.WithManualAnalyses(), mockserver.WithClock(clock), openapiChecked(t))
		defer srv.Close()
		pid, _, iid := addProfileWithItem(t, srv.Tenant, "Jane Doe")
		id := startAnalysis(t, srv, pid, iid)
		ch := longPoll(t, srv, context.Background(), "/v1/analyses/"+id+"?waitForReport=true&timeoutSeconds=300")
		blockUntil(t, clock, 1) // the poll is held: its timeout is the only timer
		wantNotAnswered(t, ch)

		done := make(chan struct{})
		go func() { srv.Close(); close(done) }()
		select {
		case <-done:
		case <-time.After(time.Minute):
			require.FailNow(t, "Close did not return within a minute with a long poll held")
		}
		got := awaitAnswer(t, ch, time.Minute)
		require.Equal(t, 200, got.Status, "the held long poll got %s, want 200 with the analysis as it stands", got)
		var a profilesvc.Analysis
		decode(t, got, &a)
		assert.True(t, a.ID == id && a.Status == profilesvc.AnalysisPending, "the held long poll answered %s %s, want %s pending", a.ID, a.Status, id)

		again := make(chan struct{})
		go func() { srv.Close(); close(again) }()
		select {
		case <-again:
		case <-time.After(time.Minute):
			require.FailNow(t, "a second Close did not return within a minute")
		}
	})

	t.Run("releases a delayed request promptly", func(t *testing.T) {
		clock := newTimerClock(wallClock{})
		srv := mockserver.New(mockserver.WithClock(clock), openapiChecked(t))
		defer srv.Close()
		// Five minutes, on the real clock, cannot pass within the minute
		// waited here: only Close can end the delay.
		_, err := srv.InjectFault(mockserver.Fault{Path: "/v1/profiles/*", Delay: 5 * time.Minute})
		require.NoError(t, err)
		ch := make(chan error, 1)
		go func() {
			req, _ := http.NewRequest("GET", srv.URL+"/v1/profiles/pf_x", nil)
			req.Header.Set("x-api-key", srv.APIKey)
			resp, err := http.DefaultClient.Do(req)
			if err == nil {
				resp.Body.Close()
			}
			ch <- err
		}()
		clock.waitArmed(t, 5*time.Minute) // the request is held by its delay
		done := make(chan struct{})
		go func() { srv.Close(); close(done) }()
		select {
		case <-done:
		case <-time.After(time.Minute):
			require.FailNow(t, "Close did not return within a minute with a delayed request held")
		}
		clock.waitStopped(t, 5*time.Minute) // the delay let go of
		select {
		case err := <-ch:
			// Answered: a request Close left to its grace period would be
			// cut.
			assert.NoError(t, err, "the delayed request, released by Close")
		case <-time.After(time.Minute):
			require.FailNow(t, "the delayed request was not released by Close")
		}
	})

	t.Run("does not wait for a connection that sent nothing", func(t *testing.T) {
		// A client's transport may open a connection it then keeps unused
		// (racing dials of concurrent requests do this): Close must not
		// wait for it, as httptest.Server.Close does not.
		srv := mockserver.New(mockserver.WithTLS())
		defer srv.Close()
		wantQuietConnClosed(t, srv, dialQuiet(t, srv))
	})

	t.Run("Shutdown", func(t *testing.T) {
		srv := mockserver.New()
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		assert.NoError(t, srv.Shutdown(ctx), "Shutdown")
		srv.Close() // after Shutdown: a no-op
	})
}
