package mockserver_test

// Tests of the proxy mode: a second mock plays the real service, with an
// analyzer of its own, and the proxy sits between it and the SDK.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/internal/openapicheck"
	"github.com/profilesvc/profilesvc-go/mockserver"
	"github.com/profilesvc/profilesvc-go/mockserver/engine"
)

// upstreamFindings is the result of the "real service"'s own analyzer, so
// that what passes through the proxy is told apart from what the default
// engine makes.
func upstreamFindings(_ context.Context, in engine.Input) (engine.Result, error) {
	return engine.Result{Findings: []profilesvc.Finding{{ID: "af_upstream", Category: "seen by the real service", Result: profilesvc.FindingPassed, Details: "upstream"}}}, nil
}

// newProxyPair starts a mock playing the real service and a proxy to it;
// both close when the test ends.
func newProxyPair(t *testing.T, opts ...mockserver.ProxyOption) (*mockserver.Server, *mockserver.Proxy) {
	t.Helper()
	upstream := newServer(t, mockserver.WithAnalyzer(upstreamFindings))
	p, err := mockserver.NewProxy(upstream.URL, append([]mockserver.ProxyOption{mockserver.WithProxyAPIKey("proxy-key")}, opts...)...)
	require.NoError(t, err, "NewProxy")
	t.Cleanup(p.Close)
	return upstream, p
}

// proxiedClient is an SDK client of the upstream's key, pointed at the
// proxy.
func proxiedClient(upstream *mockserver.Server, p *mockserver.Proxy) *profilesvc.Client {
	return upstream.Client(profilesvc.WithBaseURL(p.URL))
}

func TestProxyPassesAWholeFlowThrough(t *testing.T) {
	t.Parallel()
	upstream, p := newProxyPair(t)
	c := proxiedClient(upstream, p)
	ctx := t.Context()

	profile, err := c.CreateProfile(ctx, mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Through the proxy"})
	require.NoError(t, err, "CreateProfile")
	folder := profile.DefaultFolder().ID
	file, err := c.UploadFile(ctx, folder, strings.NewReader("PASSPORT\nFull Name: Jane Doe\n"), profilesvc.UploadParams{Filename: "passport.txt"})
	require.NoError(t, err, "UploadFile")
	text, err := c.CreateTextItem(ctx, folder, "a note", profilesvc.CreateItemParams{Name: "note"})
	require.NoError(t, err, "CreateTextItem")
	_, err = c.GetProfile(ctx, profile.ID)
	require.NoError(t, err, "GetProfile")

	id, err := c.StartAnalysis(ctx, profile.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{file.ID, text.ID}})
	require.NoError(t, err, "StartAnalysis")
	a, err := c.WaitForAnalysis(ctx, id, nil)
	require.NoError(t, err, "WaitForAnalysis: the long poll is held through the proxy")
	require.Equal(t, profilesvc.AnalysisCompleted, a.Status)
	require.Len(t, a.Findings, 1, "the real service's own findings pass through")
	assert.Equal(t, "upstream", a.Findings[0].Details)

	through := downloadReport(t, c, id)
	direct := downloadReport(t, upstream.Client(), id)
	assert.True(t, bytes.Equal(through, direct), "the report through the proxy differs from the service's: %d and %d bytes", len(through), len(direct))

	_, err = c.GetAnalysis(ctx, "analysis_nobody", nil)
	require.ErrorIs(t, err, profilesvc.ErrAnalysisNotFound, "an error of the service passes through")

	assert.Zero(t, p.Violations().Count, "the mock agrees with its document: %+v", p.Violations().Items)
	conf := p.Conformance()
	byID := map[string]mockserver.OperationConformance{}
	for _, op := range conf.Operations {
		byID[op.OperationID] = op
	}
	assert.Equal(t, mockserver.VerdictConfirmed, byID["createItem"].Verdict, "the inferred upload route is confirmed")
	assert.Equal(t, mockserver.VerdictConfirmed, byID["getProfile"].Verdict)
	assert.Equal(t, mockserver.VerdictUnconfirmed, byID["listAnalyses"].Verdict, "an inferred route the flow did not use")
	assert.Empty(t, byID["getAnalysis"].Verdict, "a published operation has no verdict")
	assert.Positive(t, byID["getAnalysis"].Calls)
	assert.Contains(t, byID["getAnalysis"].ErrorCodes, mockserver.ErrorCodeSeen{Code: "ANALYSIS_NOT_FOUND", Status: 404, Count: 1, Documented: true})

	// The record keeps the requests as the service answered them, with
	// the service's request IDs, and never the key.
	reqs := p.Requests()
	require.NotEmpty(t, reqs)
	ids := map[string]bool{}
	for _, r := range upstream.Requests() {
		ids[r.RequestID] = true
	}
	for _, r := range reqs {
		assert.True(t, ids[r.RequestID], "the proxy's record has %s %s with request ID %s, which the service did not give", r.Method, r.Path, r.RequestID)
	}
	raw, err := json.Marshal(reqs)
	require.NoError(t, err)
	assert.NotContains(t, string(raw), upstream.APIKey, "the key is in the proxy's record")
}

// downloadReport downloads an analysis's report in English.
func downloadReport(t *testing.T, c *profilesvc.Client, id string) []byte {
	t.Helper()
	rep, err := c.DownloadReport(t.Context(), id, nil)
	require.NoError(t, err, "DownloadReport")
	defer rep.Body.Close()
	b, err := io.ReadAll(rep.Body)
	require.NoError(t, err)
	return b
}

// breakingUpstream is a mock behind a handler that breaks the document on
// two routes: a folder's items' sizes become strings, and an unknown item
// is answered with a code the document does not list.
func breakingUpstream(t *testing.T) (*mockserver.Server, *httptest.Server) {
	t.Helper()
	srv, err := mockserver.NewHandler()
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	h := srv.Handler()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v1/folders/"):
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			var folder struct {
				Items []map[string]any `json:"items"`
				Rest  map[string]any   `json:"-"`
			}
			body := rec.Body.Bytes()
			var whole map[string]any
			if json.Unmarshal(body, &whole) == nil && json.Unmarshal(body, &folder) == nil {
				for _, it := range folder.Items {
					it["sizeBytes"] = "five"
				}
				whole["items"] = folder.Items
				body, _ = json.Marshal(whole)
			}
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.Header().Del("Content-Length")
			w.WriteHeader(rec.Code)
			_, _ = w.Write(body)
		case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v1/items/"):
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("X-Request-Id", "req_upstream_unlisted")
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"error":{"code":"NO_SUCH_THING","status":404,"message":"no such item"}}`)
		default:
			h.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(hs.Close)
	return srv, hs
}

func TestProxyReportsEachBreakOfTheDocument(t *testing.T) {
	t.Parallel()
	srv, upstream := breakingUpstream(t)
	p, err := mockserver.NewProxy(upstream.URL, mockserver.WithProxyAPIKey("proxy-key"))
	require.NoError(t, err)
	t.Cleanup(p.Close)
	profile, err := srv.CreateProfile(mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "P"})
	require.NoError(t, err)
	folder := profile.Folders[0].ID
	_, err = srv.AddTextItem(folder, "note", "hello")
	require.NoError(t, err)

	status, body := proxyGet(t, p, "/v1/folders/"+folder, srv.APIKey)
	require.Equal(t, http.StatusOK, status, "%s", body)
	assert.Contains(t, string(body), `"sizeBytes":"five"`, "the answer passes through as the service gave it")
	status, _ = proxyGet(t, p, "/v1/items/item_missing", srv.APIKey)
	require.Equal(t, http.StatusNotFound, status)

	vs := p.Violations()
	require.Positive(t, vs.Count)
	var sizeBreak, codeBreak *mockserver.Violation
	for i, v := range vs.Items {
		switch {
		case v.OperationID == "getFolder" && strings.HasSuffix(v.Pointer, "/sizeBytes"):
			sizeBreak = &vs.Items[i]
		case v.OperationID == "getItem" && v.Pointer == "/error/code":
			codeBreak = &vs.Items[i]
		}
	}
	require.NotNil(t, sizeBreak, "no violation names getFolder's sizeBytes: %+v", vs.Items)
	assert.Equal(t, "answer", sizeBreak.In)
	assert.Equal(t, http.StatusOK, sizeBreak.Status)
	assert.NotEmpty(t, sizeBreak.RequestID, "the service's request ID")
	require.NotNil(t, codeBreak, "no violation names getItem's error code: %+v", vs.Items)
	assert.Equal(t, "req_upstream_unlisted", codeBreak.RequestID)

	var getItem mockserver.OperationConformance
	for _, op := range p.Conformance().Operations {
		if op.OperationID == "getItem" {
			getItem = op
		}
	}
	assert.Equal(t, []mockserver.ErrorCodeSeen{{Code: "NO_SUCH_THING", Status: 404, Count: 1, Documented: false}}, getItem.ErrorCodes)
	assert.Equal(t, mockserver.VerdictUnconfirmed, getItem.Verdict, "a 404 with a code of its own is not the route missing")

	// The same, over the control API, with the proxy's key.
	status, raw := proxyGet(t, p, "/_mock/violations", "proxy-key")
	require.Equal(t, http.StatusOK, status, "%s", raw)
	var list mockserver.ViolationList
	require.NoError(t, json.Unmarshal(raw, &list))
	assert.Equal(t, vs.Count, list.Count)
	var table bytes.Buffer
	require.NoError(t, p.Conformance().WriteTable(&table))
	assert.Contains(t, table.String(), "NO_SUCH_THING×1 (not in the document)")
}

// proxyGet sends a GET to the proxy with a key, and returns the answer's
// status and body.
func proxyGet(t *testing.T, p *mockserver.Proxy, path, key string) (int, []byte) {
	t.Helper()
	return proxyDo(t, p, http.MethodGet, path, key)
}

// proxyDo sends a request with no body to the proxy with a key, following
// no redirect, and returns the answer's status and body.
func proxyDo(t *testing.T, p *mockserver.Proxy, method, path, key string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, p.URL+path, nil)
	require.NoError(t, err)
	if key != "" {
		req.Header.Set("x-api-key", key)
	}
	resp, err := noRedirects.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, b
}

// noRedirects is a client that follows no redirect.
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func TestProxyRefutesAMissingInferredRoute(t *testing.T) {
	t.Parallel()
	// A service without the inferred listing of a profile's analyses.
	srv, err := mockserver.NewHandler()
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/analyses") {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"error":{"code":"NOT_FOUND","status":404,"message":"no route"}}`)
			return
		}
		srv.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	p, err := mockserver.NewProxy(hs.URL)
	require.NoError(t, err)
	t.Cleanup(p.Close)
	status, _ := proxyGet(t, p, "/v1/profiles/pf_x/analyses", srv.APIKey)
	require.Equal(t, http.StatusNotFound, status)
	for _, op := range p.Conformance().Operations {
		if op.OperationID == "listAnalyses" {
			assert.Equal(t, mockserver.VerdictRefuted, op.Verdict)
			return
		}
	}
	t.Fatal("no listAnalyses in the conformance")
}

func TestProxyAnswersForAServiceThatIsNotThere(t *testing.T) {
	t.Parallel()
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	p, err := mockserver.NewProxy(gone.URL)
	require.NoError(t, err)
	t.Cleanup(p.Close)
	status, body := proxyGet(t, p, "/v1/profiles/pf_1", "the-callers-key")
	require.Equal(t, http.StatusBadGateway, status)
	e := decodeErrorBody(t, body)
	assert.Equal(t, mockserver.CodeUpstreamUnavailable, e.Code)
	assert.Equal(t, http.StatusBadGateway, e.Status)
	assert.NotContains(t, string(body), "the-callers-key")
	reqs := p.Requests()
	require.Len(t, reqs, 1, "the request is recorded with the proxy's answer")
	assert.Equal(t, http.StatusBadGateway, reqs[0].Status)
}

func TestProxyTimesOutAServiceThatDoesNotAnswer(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	hung := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(hung.Close)
	t.Cleanup(func() { close(release) })
	p, err := mockserver.NewProxy(hung.URL, mockserver.WithProxyTimeout(50*time.Millisecond))
	require.NoError(t, err)
	t.Cleanup(p.Close)
	status, body := proxyGet(t, p, "/v1/analyses/analysis_1?waitForReport=true&timeoutSeconds=10", "k")
	require.Equal(t, http.StatusGatewayTimeout, status, "%s", body)
	assert.Equal(t, mockserver.CodeUpstreamTimeout, decodeErrorBody(t, body).Code)
}

// decodeErrorBody decodes the service's error body.
func decodeErrorBody(t *testing.T, body []byte) (e struct {
	Code    string `json:"code"`
	Status  int    `json:"status"`
	Message string `json:"message"`
}) {
	t.Helper()
	var b struct {
		Error json.RawMessage `json:"error"`
	}
	require.NoError(t, json.Unmarshal(body, &b), "%s", body)
	require.NoError(t, json.Unmarshal(b.Error, &e), "%s", body)
	require.NotEmpty(t, e.Message)
	return e
}

func TestProxyFollowsNoRedirect(t *testing.T) {
	t.Parallel()
	var away atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { away.Add(1) }))
	t.Cleanup(other.Close)
	redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.RequestURI(), http.StatusTemporaryRedirect)
	}))
	t.Cleanup(redirecting.Close)
	p, err := mockserver.NewProxy(redirecting.URL)
	require.NoError(t, err)
	t.Cleanup(p.Close)
	status, _ := proxyGet(t, p, "/v1/profiles/pf_1", "k")
	assert.Equal(t, http.StatusTemporaryRedirect, status, "the redirect is passed back, not followed")
	assert.Zero(t, away.Load(), "the other origin got a request")
}

func TestProxyVerifiesTheServicesCertificate(t *testing.T) {
	t.Parallel()
	upstream := newServer(t, mockserver.WithTLS())
	p, err := mockserver.NewProxy(upstream.URL)
	require.NoError(t, err)
	t.Cleanup(p.Close)
	status, body := proxyGet(t, p, "/v1/profiles/pf_1", upstream.APIKey)
	require.Equal(t, http.StatusBadGateway, status, "a certificate of no known authority is refused: %s", body)
	assert.Contains(t, decodeErrorBody(t, body).Message, "certificate")

	trusting, err := mockserver.NewProxy(upstream.URL, mockserver.WithProxyCAs(upstream.Certificate()))
	require.NoError(t, err)
	t.Cleanup(trusting.Close)
	status, body = proxyGet(t, trusting, "/v1/profiles/pf_1", upstream.APIKey)
	require.Equal(t, http.StatusNotFound, status, "with the service's CA, the service answers: %s", body)
	assert.Equal(t, "PROFILE_NOT_FOUND", decodeErrorBody(t, body).Code)
}

func TestProxyControlRoutes(t *testing.T) {
	t.Parallel()
	upstream, p := newProxyPair(t)
	control, err := openapicheck.NewMockControl()
	require.NoError(t, err)
	tests := []struct {
		name, method, path, key string
		wantStatus              int
		wantCode                string
	}{
		{"health needs no key", "GET", "/_mock/health", "", 200, ""},
		// The public routes answer as a simulating mock's do.
		{"health with a query", "GET", "/_mock/health?verbose=1", "", 400, profilesvc.CodeValidation},
		{"health, posted", "POST", "/_mock/health", "", 405, profilesvc.CodeMethodNotAllowed},
		{"health, HEAD", "HEAD", "/_mock/health", "", 200, ""},
		{"the service's document", "GET", "/_mock/openapi.yaml", "", 200, ""},
		{"the record with the proxy's key", "GET", "/_mock/requests", "proxy-key", 200, ""},
		{"the record with the service's key", "GET", "/_mock/requests", upstream.APIKey, 401, profilesvc.CodeUnauthorized},
		{"violations", "GET", "/_mock/violations", "proxy-key", 200, ""},
		{"conformance", "GET", "/_mock/conformance", "proxy-key", 200, ""},
		{"conformance without a key", "GET", "/_mock/conformance", "", 401, profilesvc.CodeUnauthorized},
		{"a reset", "POST", "/_mock/reset", "proxy-key", 409, mockserver.CodeProxyMode},
		{"a fault", "POST", "/_mock/faults", "proxy-key", 409, mockserver.CodeProxyMode},
		{"completing an analysis", "POST", "/_mock/analyses/analysis_1/complete", "proxy-key", 409, mockserver.CodeProxyMode},
		{"the workflows", "GET", "/_mock/workflows", "proxy-key", 409, mockserver.CodeProxyMode},
		{"no such control route", "GET", "/_mock/nothing", "proxy-key", 404, profilesvc.CodeNotFound},
		{"a path outside the service's", "GET", "/storage/items/item_1/original", upstream.APIKey, 404, profilesvc.CodeNotFound},
		{"clearing the record", "DELETE", "/_mock/requests", "proxy-key", 204, ""},
		{"a recording it does not keep", "POST", "/_mock/recording", "proxy-key", 409, mockserver.CodeNotRecording},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequestWithContext(t.Context(), tt.method, p.URL+tt.path, nil)
			require.NoError(t, err)
			if tt.key != "" {
				req.Header.Set("x-api-key", tt.key)
			}
			resp, err := noRedirects.Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			require.Equal(t, tt.wantStatus, resp.StatusCode, "%s", body)
			assert.NotEmpty(t, resp.Header.Get("X-Request-Id"))
			if strings.HasPrefix(tt.path, "/_mock/") && tt.wantCode != profilesvc.CodeNotFound {
				// The proxy's control answers are those of the control
				// API's document.
				err := control.Check(t.Context(), openapicheck.Exchange{Method: tt.method, URL: tt.path, Header: req.Header,
					Status: resp.StatusCode, ResponseHeader: resp.Header, ResponseBody: body})
				if !errors.Is(err, openapicheck.ErrNotInDocument) {
					assert.NoError(t, err, "the answer disagrees with api/mock-control.yaml")
				}
			}
			if tt.wantCode != "" {
				assert.Equal(t, tt.wantCode, decodeErrorBody(t, body).Code)
			}
		})
	}
	assert.Empty(t, upstream.Requests(), "no control request reached the service")
}

func TestSimulationHasNoProxyObservations(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	for _, path := range []string{"/_mock/violations", "/_mock/conformance"} {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+path, nil)
		require.NoError(t, err)
		req.Header.Set("x-api-key", srv.APIKey)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.Equal(t, http.StatusConflict, resp.StatusCode, "%s: %s", path, body)
		assert.Equal(t, mockserver.CodeNotAProxy, decodeErrorBody(t, body).Code)
	}
}

// TestProxyStreams shows that the proxy holds neither an upload nor an
// answer whole: the service reads the first part of an upload while the
// client has not sent the rest, and the client reads the first part of an
// answer while the service has not written the rest.
func TestProxyStreams(t *testing.T) {
	t.Parallel()
	gotFirst := make(chan struct{})
	sentFirst := make(chan struct{})
	finish := make(chan struct{})
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		buf := make([]byte, 5)
		if _, err := io.ReadFull(r.Body, buf); err != nil {
			return
		}
		close(gotFirst) // the first part came before the client sent the rest
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/pdf")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, "%PDF-first")
		w.(http.Flusher).Flush()
		close(sentFirst)
		select {
		case <-finish:
		case <-r.Context().Done():
		}
		_, _ = io.WriteString(w, " and the rest")
	}))
	t.Cleanup(svc.Close)
	p, err := mockserver.NewProxy(svc.URL)
	require.NoError(t, err)
	t.Cleanup(p.Close)

	pr, pw := io.Pipe()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, p.URL+"/v1/folders/fld_1/items", pr)
	require.NoError(t, err)
	req.Header.Set("x-api-key", "k")
	type result struct {
		resp *http.Response
		err  error
	}
	done := make(chan result, 1)
	go func() {
		resp, err := noRedirects.Do(req)
		done <- result{resp, err}
	}()
	_, err = pw.Write([]byte("first"))
	require.NoError(t, err)
	select {
	case <-gotFirst:
	case <-t.Context().Done():
		t.Fatal("the service did not get the upload's first part before the rest was sent")
	}
	require.NoError(t, pw.Close())
	r := <-done
	require.NoError(t, r.err)
	defer r.resp.Body.Close()
	<-sentFirst
	first := make([]byte, len("%PDF-first"))
	_, err = io.ReadFull(r.resp.Body, first)
	require.NoError(t, err, "the answer's first part reached the client before the service wrote the rest")
	assert.Equal(t, "%PDF-first", string(first))
	close(finish)
	rest, err := io.ReadAll(r.resp.Body)
	require.NoError(t, err)
	assert.Equal(t, " and the rest", string(rest))
}

func TestNewProxyRefusesABadTarget(t *testing.T) {
	t.Parallel()
	for _, target := range []string{"", "ftp://example.com", "http://", "https://user:pw@example.com", "https://example.com/?q=1", "://x"} {
		_, err := mockserver.NewProxy(target)
		assert.Error(t, err, "target %q", target)
	}
	_, err := mockserver.NewProxy("http://127.0.0.1:1", mockserver.WithProxyTimeout(0))
	assert.Error(t, err)
	assert.False(t, errors.Is(err, context.Canceled))
}
