package mockserver_test

// A hostile peer against the proxy, its recording and the replay: what
// holds.

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

// serveVia sends one request through the proxy's handler, without a
// connection of the client's.
func serveVia(t *testing.T, p *mockserver.Proxy, method, target, key string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequestWithContext(t.Context(), method, target, nil)
	req.Header.Set("x-api-key", key)
	rec := httptest.NewRecorder()
	p.Handler().ServeHTTP(rec, req)
	return rec
}

func TestHostileProxyKeepsBoundedObservations(t *testing.T) {
	t.Parallel()
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTeapot)
		_, _ = io.WriteString(w, `{"error":{"code":"TEAPOT","status":418,"message":"no"}}`)
	}))
	t.Cleanup(svc.Close)
	p, err := mockserver.NewProxy(svc.URL, mockserver.WithProxyRequestRecord(50, 1<<20))
	require.NoError(t, err)
	t.Cleanup(p.Close)
	// 300 distinct paths no operation has.
	for i := range 300 {
		rec := serveVia(t, p, http.MethodGet, fmt.Sprintf("/v1/nothing-%d/x", i), "k")
		require.Equal(t, http.StatusTeapot, rec.Code)
	}
	conf := p.Conformance()
	assert.Equal(t, 300, conf.Calls)
	assert.Len(t, conf.Unrouted, 100, "the unrouted calls kept are bounded")
	// Each says the answer of a path no operation has should be 404.
	require.Equal(t, 300, p.Violations().Count)
	// 1,500 more violations, of a routed operation (418 is no answer of it).
	for range 1500 {
		serveVia(t, p, http.MethodGet, "/v1/profiles/pf_1", "k")
	}
	vs := p.Violations()
	assert.Equal(t, 1000, vs.Count)
	assert.Len(t, vs.Items, 1000)
	assert.Equal(t, 800, vs.Dropped)
	assert.Equal(t, 1800, p.Conformance().Violations, "the dropped ones are counted")
	assert.Len(t, p.Requests(), 50, "the request record is bounded")
}

func TestHostileServiceBreaksOffAJSONAnswer(t *testing.T) {
	t.Parallel()
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", "1000")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, `{"id":"pf_1","na`)
		w.(http.Flusher).Flush()
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close()
		}
	}))
	t.Cleanup(svc.Close)
	p, err := mockserver.NewProxy(svc.URL)
	require.NoError(t, err)
	t.Cleanup(p.Close)
	status, body := proxyGet(t, p, "/v1/profiles/pf_1", "k")
	require.Equal(t, http.StatusBadGateway, status, "a JSON answer broken off is a 502, not a truncated 200: %s", body)
	assert.Equal(t, mockserver.CodeUpstreamUnavailable, decodeErrorBody(t, body).Code)
}

func TestHostileServiceBreaksOffAReport(t *testing.T) {
	t.Parallel()
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		w.Header().Set("Content-Length", "100000")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, "%PDF-1.7 the beginning")
		w.(http.Flusher).Flush()
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close()
		}
	}))
	t.Cleanup(svc.Close)
	p, err := mockserver.NewProxy(svc.URL)
	require.NoError(t, err)
	t.Cleanup(p.Close)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, p.URL+"/v1/analyses/analysis_1/report", nil)
	require.NoError(t, err)
	req.Header.Set("x-api-key", "k")
	resp, err := noRedirects.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	_, err = io.ReadAll(resp.Body)
	assert.Error(t, err, "a report broken off reaches the client broken, not as a whole short one")
}

func TestHostileTargetWithAPathPrefix(t *testing.T) {
	t.Parallel()
	paths := make(chan string, 1)
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		paths <- r.URL.RequestURI()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"error":{"code":"PROFILE_NOT_FOUND","status":404,"message":"no"}}`)
	}))
	t.Cleanup(svc.Close)
	p, err := mockserver.NewProxy(svc.URL + "/base/")
	require.NoError(t, err)
	t.Cleanup(p.Close)
	status, _ := proxyGet(t, p, "/v1/profiles/pf_1?x=1", "k")
	assert.Equal(t, http.StatusNotFound, status)
	assert.Equal(t, "/base/v1/profiles/pf_1?x=1", <-paths)
	assert.Zero(t, p.Violations().Count, "%+v", p.Violations().Items)
}

// TestHostileEchoesAreRedacted: a key split across two chunks of a JSON
// answer, JSON-escaped with upper-case hex, percent-escaped in a
// Set-Cookie, in a Location: none reaches the recording.
func TestHostileEchoesAreRedacted(t *testing.T) {
	t.Parallel()
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k := r.Header.Get("x-api-key")
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Set-Cookie", "session="+strings.ToUpper(hex.EncodeToString([]byte(k)))+"; k="+k)
		w.Header().Add("Set-Cookie", "pct="+percentAll(k))
		w.Header().Set("Location", "/v1/x?k="+k)
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, `{"a":"`+k[:10])
		w.(http.Flusher).Flush()
		var esc strings.Builder
		for _, c := range []byte(strings.ToUpper(k)) {
			fmt.Fprintf(&esc, `\u00%02X`, c)
		}
		_, _ = io.WriteString(w, k[10:]+`","b":"`+esc.String()+`"}`)
	}))
	t.Cleanup(svc.Close)
	path := filepath.Join(t.TempDir(), "echo.har")
	p, err := mockserver.NewProxy(svc.URL, mockserver.WithProxyRecording(path))
	require.NoError(t, err)
	t.Cleanup(p.Close)
	status, body := proxyGet(t, p, "/v1/profiles/pf_1", hostileKey)
	require.Equal(t, http.StatusOK, status)
	require.Contains(t, string(body), hostileKey)
	data, err := p.WriteRecording()
	require.NoError(t, err)
	lower := strings.ToLower(string(data))
	assert.NotContains(t, lower, hostileKey)
	assert.NotContains(t, lower, strings.ToLower(percentAll(hostileKey)))
	assert.NotContains(t, lower, `\\u0039\\u0046`)
}

func percentAll(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

// TestHostileShortKeyHeaderIsStillRedacted: a key under 8 bytes is not
// searched for in bodies (by design), but its header is replaced whole.
func TestHostileShortKeyHeaderIsStillRedacted(t *testing.T) {
	t.Parallel()
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"echo":"`+r.Header.Get("x-api-key")+`"}`)
	}))
	t.Cleanup(svc.Close)
	path := filepath.Join(t.TempDir(), "short.har")
	p, err := mockserver.NewProxy(svc.URL, mockserver.WithProxyRecording(path))
	require.NoError(t, err)
	t.Cleanup(p.Close)
	proxyGet(t, p, "/v1/profiles/pf_1", "Zq7#kw")
	_, err = p.WriteRecording()
	require.NoError(t, err)
	h, raw := readHAR(t, path)
	require.Len(t, h.Log.Entries, 1)
	assert.NotContains(t, string(raw), "Zq7#kw\",\n", "the header is redacted whole")
	assert.Contains(t, string(raw), "\"X-Api-Key\",\n              \"value\": \"REDACTED\"", "the header is redacted whole")
	assert.Contains(t, h.Log.Entries[0].Response.Content.Text, "Zq7#kw", "by design: a short key echoed in a body is kept (documented)")
}

func TestHostileRecordingDirectoryRemoved(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "rec")
	require.NoError(t, os.Mkdir(dir, 0o700))
	path := filepath.Join(dir, "s.har")
	p, err := mockserver.NewProxy("http://127.0.0.1:1", mockserver.WithProxyRecording(path))
	require.NoError(t, err)
	require.NoError(t, os.RemoveAll(dir))
	_, err = p.WriteRecording()
	assert.ErrorIs(t, err, mockserver.ErrRecordingNotSaved)
	err = p.Shutdown(t.Context())
	assert.ErrorIs(t, err, mockserver.ErrRecordingNotSaved)
	_, statErr := os.Stat(path + ".part")
	assert.True(t, errors.Is(statErr, os.ErrNotExist))

	// The recording's path turned into a directory after the start.
	dir2 := t.TempDir()
	path2 := filepath.Join(dir2, "s.har")
	p2, err := mockserver.NewProxy("http://127.0.0.1:1", mockserver.WithProxyRecording(path2))
	require.NoError(t, err)
	t.Cleanup(p2.Close)
	require.NoError(t, os.Mkdir(path2, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(path2, "x"), []byte("x"), 0o600))
	_, err = p2.WriteRecording()
	assert.ErrorIs(t, err, mockserver.ErrRecordingNotSaved)
	_, statErr = os.Stat(path2 + ".part")
	assert.True(t, errors.Is(statErr, os.ErrNotExist), "no .part left behind")
}

func TestHostileReplayFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	huge := filepath.Join(dir, "huge.har")
	f, err := os.Create(huge)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(mockserver.MaxReplayFileSize+1))
	require.NoError(t, f.Close())
	_, err = mockserver.NewHandler(mockserver.WithReplayFile(huge))
	assert.Error(t, err, "a recording over 1 GiB is refused")

	deep := filepath.Join(dir, "deep.har")
	require.NoError(t, os.WriteFile(deep, []byte(`{"log":{"entries":[`+strings.Repeat("[", 100000)), 0o600))
	_, err = mockserver.NewHandler(mockserver.WithReplayFile(deep))
	assert.ErrorContains(t, err, "not an HTTP Archive")

	// A deep value inside an analysis's text.
	text := `{\"id\":\"a_1\",\"status\":\"completed\",\"extractedData\":` + strings.Repeat("[", 20000) + `}`
	deepText := filepath.Join(dir, "deeptext.har")
	require.NoError(t, os.WriteFile(deepText, []byte(`{"log":{"entries":[{"request":{"method":"GET","url":"http://s/v1/analyses/a_1"},"response":{"status":200,"content":{"text":"`+text+`"}}}]}}`), 0o600))
	_, err = mockserver.NewHandler(mockserver.WithReplayFile(deepText))
	assert.ErrorContains(t, err, "entries[0].response.content.text")

	// A recorded failure with no error, and an item listed twice.
	fail := writeReplayHARStatus(t, "failed", []replayItem{{"item_1", "eps"}, {"item_1", "eps"}})
	srv := newServer(t, mockserver.WithReplayFile(fail), mockserver.WithReplayStrict())
	a := replayOver(t, srv, "eps", "eps")
	assert.Equal(t, profilesvc.AnalysisFailed, a.Status)
	require.NotNil(t, a.Error)
	assert.NotEmpty(t, *a.Error)
}

func writeReplayHARStatus(t *testing.T, status string, items []replayItem) string {
	t.Helper()
	path := writeReplayHAR(t, "analysis_9", "pf_9", items, `[]`)
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	raw = []byte(strings.Replace(string(raw), `\"status\":\"completed\"`, `\"status\":\"`+status+`\",\"error\":null`, 1))
	require.NoError(t, os.WriteFile(path, raw, 0o600))
	return path
}

// TestHostileConcurrentTraffic runs clients through one proxy while its
// control routes and its recording are read, cleared and written: run
// with -race.
func TestHostileConcurrentTraffic(t *testing.T) {
	t.Parallel()
	upstream := newServer(t, mockserver.WithAnalyzer(upstreamFindings))
	path := filepath.Join(t.TempDir(), "c.har")
	p, err := mockserver.NewProxy(upstream.URL, mockserver.WithProxyAPIKey("proxy-key"), mockserver.WithProxyRecording(path))
	require.NoError(t, err)
	t.Cleanup(p.Close)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var wg sync.WaitGroup
	for i := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := proxiedClient(upstream, p)
			for j := range 5 {
				pf, err := c.CreateProfile(ctx, mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: fmt.Sprintf("c%d-%d", i, j)})
				if !assert.NoError(t, err) {
					return
				}
				it, err := c.CreateTextItem(ctx, pf.DefaultFolder().ID, "text", profilesvc.CreateItemParams{Name: "t"})
				if !assert.NoError(t, err) {
					return
				}
				_, err = c.GetItem(ctx, it.ID)
				assert.NoError(t, err)
			}
		}()
	}
	controlDone := make(chan struct{})
	go func() {
		defer close(controlDone)
		hc := newHTTPClient(t)
		for ctx.Err() == nil {
			for _, rq := range [][2]string{{"GET", "/_mock/violations"}, {"GET", "/_mock/conformance"}, {"GET", "/_mock/requests"}, {"DELETE", "/_mock/requests"}, {"POST", "/_mock/recording"}} {
				req, _ := http.NewRequestWithContext(ctx, rq[0], p.URL+rq[1], nil)
				req.Header.Set("x-api-key", "proxy-key")
				resp, err := hc.Do(req)
				if err != nil {
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			_, _ = p.WriteRecording()
			_ = p.Conformance()
		}
	}()
	wg.Wait()
	cancel()
	<-controlDone
	require.NoError(t, p.Shutdown(context.Background()))
	h, _ := readHAR(t, path)
	assert.Len(t, h.Log.Entries, 6*5*3)
}

// TestHostileSlowClientCannotHoldHeaders: a client that never finishes
// its headers is cut by the read-header timeout; the listener still
// serves others meanwhile.
func TestHostileSlowClientDoesNotBlockOthers(t *testing.T) {
	t.Parallel()
	upstream, p := newProxyPair(t)
	var conns []net.Conn
	for range 20 {
		c, err := net.Dial("tcp", strings.TrimPrefix(p.URL, "http://"))
		require.NoError(t, err)
		_, _ = io.WriteString(c, "GET /v1/profiles/pf_1 HTTP/1.1\r\nHost: x\r\nX-Slow: ")
		conns = append(conns, c)
	}
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
	})
	status, _ := proxyGet(t, p, "/v1/profiles/pf_missing", upstream.APIKey)
	assert.Equal(t, http.StatusNotFound, status)
}

// TestHostileHTTP2ServiceAndHEAD: a service over HTTP/2 with a private
// CA, asked with HEAD and GET: passed through, no violation.
func TestHostileHTTP2ServiceAndHEAD(t *testing.T) {
	t.Parallel()
	srv, err := mockserver.NewHandler()
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	protos := make(chan int, 4)
	hs := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		protos <- r.ProtoMajor
		srv.Handler().ServeHTTP(w, r)
	}))
	hs.EnableHTTP2 = true
	hs.StartTLS()
	t.Cleanup(hs.Close)
	p, err := mockserver.NewProxy(hs.URL, mockserver.WithProxyCAs(hs.Certificate()))
	require.NoError(t, err)
	t.Cleanup(p.Close)
	profile, err := srv.CreateProfile(mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "H2"})
	require.NoError(t, err)
	status, body := proxyGet(t, p, "/v1/profiles/"+profile.ID, srv.APIKey)
	require.Equal(t, http.StatusOK, status, "%s", body)
	assert.Equal(t, 2, <-protos, "the service is spoken to over HTTP/2")
	req, err := http.NewRequestWithContext(t.Context(), http.MethodHead, p.URL+"/v1/profiles/"+profile.ID, nil)
	require.NoError(t, err)
	req.Header.Set("x-api-key", srv.APIKey)
	resp, err := noRedirects.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Zero(t, p.Violations().Count, "%+v", p.Violations().Items)
}
