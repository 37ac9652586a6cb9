package mockserver_test

// The embedding API: New, NewTest, Start, NewHandler, Close and Client;
// the public health route, TLS and CORS.

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

func TestKitNew(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
	srv := mockserver.NewTest(t, mockserver.WithAPIKey("my-fixed-key"))
	require.Equal(t, "my-fixed-key", srv.APIKey, "APIKey")
	wantStatus(t, send(t, srv, request{Method: "GET", Path: "/_mock/workflows", Key: "my-fixed-key"}), 200)
	wantError(t, send(t, srv, request{Method: "GET", Path: "/_mock/workflows", Key: "my-fixed-key-2"}), 401, "UNAUTHORIZED")
	wantError(t, send(t, srv, request{Method: "GET", Path: "/_mock/workflows", Key: "my-fixed-ke"}), 401, "UNAUTHORIZED")
	_, err := srv.Client().CreateProfile(t.Context(), mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "x"})
	require.NoError(t, err, "srv.Client with a fixed key")
}

func TestKitNewTestClosesAtCleanup(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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

// ---------------------------------------------------------------------
// The public health route, TLS and CORS.

func TestKitHealth(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	for _, key := range []string{noKey, "wrong-key", ""} {
		r := send(t, srv, request{Method: "GET", Path: "/_mock/health", Key: key})
		if diff := cmp.Diff(map[string]any{"status": "ok", "version": profilesvc.Version}, jsonObject(t, r, 200)); diff != "" {
			t.Errorf("GET /_mock/health with key %q (-want +got):\n%s", key, diff)
		}
		assert.Regexp(t, requestIDPattern, r.Header.Get("X-Request-Id"), "the health answer's request ID")
	}
	assert.Empty(t, srv.Requests(), "health checks are not recorded")
	wantError(t, send(t, srv, request{Method: "POST", Path: "/_mock/health", Key: noKey}), 405, "METHOD_NOT_ALLOWED")
}

func TestKitWithTLS(t *testing.T) {
	t.Parallel()
	srv := newServer(t, mockserver.WithTLS())
	require.True(t, strings.HasPrefix(srv.URL, "https://127.0.0.1:"), "URL %q: want https", srv.URL)
	cert := srv.Certificate()
	require.NotNil(t, cert, "Certificate() of a TLS server")

	p, err := srv.Client(profilesvc.WithMaxRetries(0)).CreateProfile(t.Context(), mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Over TLS"})
	require.NoError(t, err, "CreateProfile through Client()")
	_, ok := srv.Profile(p.ID)
	assert.True(t, ok, "the profile created over TLS")

	hc := srv.HTTPClient()
	t.Cleanup(hc.CloseIdleConnections)
	resp, err := hc.Get(srv.URL + "/_mock/health")
	require.NoError(t, err, "HTTPClient()")
	_ = resp.Body.Close()
	require.NotNil(t, resp.TLS, "the answer came without TLS")
	require.NotEmpty(t, resp.TLS.PeerCertificates)
	assert.True(t, resp.TLS.PeerCertificates[0].Equal(cert), "Certificate() is not the certificate served")
	assert.Contains(t, string(mockserver.CertificatePEM(cert)), "-----BEGIN CERTIFICATE-----", "CertificatePEM")

	t.Run("a client that does not trust it", func(t *testing.T) {
		tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: x509.NewCertPool(), MinVersion: tls.VersionTLS12}}
		t.Cleanup(tr.CloseIdleConnections)
		_, err := (&http.Client{Transport: tr}).Get(srv.URL + "/_mock/health")
		var verr *tls.CertificateVerificationError
		require.ErrorAs(t, err, &verr, "a client without the certificate")
		var unknown x509.UnknownAuthorityError
		assert.ErrorAs(t, err, &unknown, "the error of a client without the certificate")

		c, err := profilesvc.NewClient(profilesvc.WithBaseURL(srv.URL), profilesvc.WithAPIKey(srv.APIKey), profilesvc.WithMaxRetries(0),
			profilesvc.WithHTTPClient(&http.Client{Transport: tr}))
		require.NoError(t, err)
		_, err = c.GetProfile(t.Context(), p.ID)
		assert.ErrorAs(t, err, &verr, "the SDK without the certificate")
	})

	t.Run("plain HTTP has none", func(t *testing.T) {
		assert.Nil(t, newServer(t).Certificate(), "Certificate() of a plain HTTP server")
	})
}

func TestKitCORS(t *testing.T) {
	t.Parallel()
	const app, other = "https://app.test", "https://evil.test"
	allowed := newServer(t, mockserver.WithCORS(app))
	anyOrigin := newServer(t, mockserver.WithCORS("*"))
	plain := newServer(t)
	// preflight sends a browser's preflight of a POST with the headers
	// asked for (none: no Access-Control-Request-Headers).
	preflightAsking := func(t *testing.T, srv *mockserver.Server, origin, headers string) *response {
		t.Helper()
		h := http.Header{"Origin": {origin}, "Access-Control-Request-Method": {"POST"}}
		if headers != "" {
			h.Set("Access-Control-Request-Headers", headers)
		}
		return send(t, srv, request{Method: "OPTIONS", Path: "/v1/workflows/wf_default/profiles", Key: noKey, Header: h})
	}
	preflight := func(t *testing.T, srv *mockserver.Server, origin string) *response {
		t.Helper()
		return preflightAsking(t, srv, origin, "X-Api-Key, Content-Type")
	}
	real := func(t *testing.T, srv *mockserver.Server, origin string) *response {
		t.Helper()
		r := send(t, srv, request{Method: "POST", Path: "/v1/workflows/wf_default/profiles", JSON: map[string]any{"name": "From a browser"},
			Header: http.Header{"Origin": {origin}}})
		wantStatus(t, r, 201)
		return r
	}
	// list splits a header of comma-separated names, lower-cased.
	list := func(h http.Header, name string) []string {
		var out []string
		for _, v := range h.Values(name) {
			for _, s := range strings.Split(v, ",") {
				out = append(out, strings.ToLower(strings.TrimSpace(s)))
			}
		}
		return out
	}

	for _, tt := range []struct {
		name   string
		srv    *mockserver.Server
		origin string
	}{
		{"an allowed origin", allowed, app},
		{"any origin with *", anyOrigin, other},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pre := preflight(t, tt.srv, tt.origin)
			wantNoContent(t, pre)
			assert.Contains(t, []string{tt.origin, "*"}, pre.Header.Get("Access-Control-Allow-Origin"), "preflight: Access-Control-Allow-Origin")
			assert.Contains(t, list(pre.Header, "Access-Control-Allow-Methods"), "post", "preflight: Access-Control-Allow-Methods")
			headers := list(pre.Header, "Access-Control-Allow-Headers")
			assert.True(t, slices.Contains(headers, "x-api-key") && slices.Contains(headers, "content-type"), "preflight: Access-Control-Allow-Headers = %v", headers)
			headers = list(preflightAsking(t, tt.srv, tt.origin, "").Header, "Access-Control-Allow-Headers")
			assert.Contains(t, headers, "x-api-key", "preflight asking no headers: Access-Control-Allow-Headers")

			r := real(t, tt.srv, tt.origin)
			assert.Contains(t, []string{tt.origin, "*"}, r.Header.Get("Access-Control-Allow-Origin"), "request: Access-Control-Allow-Origin")
			exposed := list(r.Header, "Access-Control-Expose-Headers")
			assert.True(t, slices.Contains(exposed, "content-disposition") && slices.Contains(exposed, "x-request-id"), "request: Access-Control-Expose-Headers = %v", exposed)
		})
	}

	t.Run("an origin not allowed", func(t *testing.T) {
		pre := preflight(t, allowed, other)
		wantErrorShape(t, pre)
		assert.Equal(t, 403, pre.Status, "preflight from an origin not allowed")
		assert.Empty(t, pre.Header.Get("Access-Control-Allow-Origin"), "preflight: Access-Control-Allow-Origin")
		assert.Empty(t, real(t, allowed, other).Header.Get("Access-Control-Allow-Origin"), "request: Access-Control-Allow-Origin")
	})

	t.Run("without WithCORS", func(t *testing.T) {
		// The answers are those of the same requests without an Origin.
		pre := preflight(t, plain, app)
		bare := send(t, plain, request{Method: "OPTIONS", Path: "/v1/workflows/wf_default/profiles", Key: noKey})
		assert.Equal(t, bare.Status, pre.Status, "a preflight without WithCORS, against an OPTIONS request: %s", pre)
		assert.Equal(t, bare.Header.Values("Vary"), pre.Header.Values("Vary"), "Vary of a preflight without WithCORS")
		r := real(t, plain, app)
		assert.Empty(t, r.Header.Values("Vary"), "Vary of a request without WithCORS")
		for _, r := range []*response{pre, r} {
			for k := range r.Header {
				assert.False(t, strings.HasPrefix(strings.ToLower(k), "access-control-"), "header %s set without WithCORS", k)
			}
		}
	})
}
