package mockserver_test

// The proxy, its recording and the replay against hostile peers: a
// service that compresses, echoes the key, stalls or answers before it has
// read the request; a recording that rewrites IDs loosely, breaks the
// document or finds its file planted.

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

const hostileKey = "9f1c2d3e-4b5a-6978-8a9b-0c1d2e3f4a5b"

// gzipping wraps h as most real services (and every CDN) are: an answer
// is gzip-compressed when the request accepts it.
func gzipping(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			h.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		_, _ = zw.Write(rec.Body.Bytes())
		_ = zw.Close()
		w.Header().Del("Content-Length")
		w.Header().Set("Content-Encoding", "gzip")
		w.WriteHeader(rec.Code)
		_, _ = w.Write(buf.Bytes())
	})
}

// TestProxyUndoesCompression: a client's Accept-Encoding is not
// forwarded; the proxy's transport asks for gzip itself and undoes it, so
// that a service that compresses its answers has them checked and
// recorded as the JSON they are, with no false violation.
func TestProxyUndoesCompression(t *testing.T) {
	t.Parallel()
	srv, err := mockserver.NewHandler()
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	upstream := httptest.NewServer(gzipping(srv.Handler()))
	t.Cleanup(upstream.Close)
	path := filepath.Join(t.TempDir(), "gz.har")
	p, err := mockserver.NewProxy(upstream.URL, mockserver.WithProxyRecording(path))
	require.NoError(t, err)
	t.Cleanup(p.Close)
	profile, err := srv.CreateProfile(mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Compressed"})
	require.NoError(t, err)

	// The SDK through the proxy: it works (net/http decompresses for it).
	c := srv.Client(profilesvc.WithBaseURL(p.URL))
	got, err := c.GetProfile(t.Context(), profile.ID)
	require.NoError(t, err, "the SDK gets its answer through the proxy")
	require.Equal(t, profile.ID, got.ID)

	assert.Zero(t, p.Violations().Count, "a conforming, gzip-compressed answer is reported as a violation: %+v", p.Violations().Items)
	h, _ := func() (har, []byte) { _, err := p.WriteRecording(); require.NoError(t, err); return readHAR(t, path) }()
	require.NotEmpty(t, h.Log.Entries)
	text := h.Log.Entries[len(h.Log.Entries)-1].Response.Content.Text
	assert.True(t, json.Valid([]byte(text)), "the recording holds the compressed bytes as the answer's text: %q", text[:min(len(text), 40)])
}

// TestProxyRecordingFindsTheKeyInACompressedBody: an answer the service
// compresses is recorded undone, so that the key is searched for in its
// bytes (kept with WithProxyRecordBodies) and never reaches the file.
func TestProxyRecordingFindsTheKeyInACompressedBody(t *testing.T) {
	t.Parallel()
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		_, _ = io.WriteString(zw, "%PDF-1.7 owner key: "+r.Header.Get("x-api-key"))
		_ = zw.Close()
		w.Header().Set("Content-Type", "application/pdf")
		w.Header().Set("Content-Encoding", "gzip")
		_, _ = w.Write(buf.Bytes())
	}))
	t.Cleanup(echo.Close)
	path := filepath.Join(t.TempDir(), "leak.har")
	p, err := mockserver.NewProxy(echo.URL, mockserver.WithProxyRecording(path), mockserver.WithProxyRecordBodies())
	require.NoError(t, err)
	t.Cleanup(p.Close)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, p.URL+"/v1/analyses/analysis_1/report", nil)
	require.NoError(t, err)
	req.Header.Set("x-api-key", hostileKey)
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := noRedirects.Do(req)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	_, err = p.WriteRecording()
	require.NoError(t, err)
	h, _ := readHAR(t, path)
	require.Len(t, h.Log.Entries, 1)
	c := h.Log.Entries[0].Response.Content
	require.Equal(t, "base64", c.Encoding)
	raw, err := base64.StdEncoding.DecodeString(c.Text)
	require.NoError(t, err)
	assert.True(t, bytes.HasPrefix(raw, []byte("%PDF-1.7 owner key: ")), "the body is recorded undone: %q", raw)
	assert.NotContains(t, string(raw), hostileKey, "the key is in the recording")
	assert.Contains(t, string(raw), "REDACTED")
}

// TestProxyRecordingRedactsHeaderNames: a service that echoes the key
// as the name of a header has it redacted there too.
func TestProxyRecordingRedactsHeaderNames(t *testing.T) {
	t.Parallel()
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Token-"+r.Header.Get("x-api-key"), "1")
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{}`)
	}))
	t.Cleanup(echo.Close)
	path := filepath.Join(t.TempDir(), "names.har")
	p, err := mockserver.NewProxy(echo.URL, mockserver.WithProxyRecording(path))
	require.NoError(t, err)
	t.Cleanup(p.Close)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, p.URL+"/v1/profiles/pf_1", nil)
	require.NoError(t, err)
	req.Header.Set("x-api-key", hostileKey)
	resp, err := noRedirects.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	data, err := p.WriteRecording()
	require.NoError(t, err)
	assert.NotContains(t, strings.ToLower(string(data)), hostileKey, "the key is in the recording, as a header's name")
}

// TestProxyRecordAndViolationsHoldNoKey: GET /_mock/requests and GET
// /_mock/violations hold no trace of the caller's key, in the query, a
// header or the body.
func TestProxyRecordAndViolationsHoldNoKey(t *testing.T) {
	t.Parallel()
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTeapot) // a status no operation lists: a violation
		_, _ = io.WriteString(w, `{"error":{"code":"TEAPOT","status":418,"message":"no"}}`)
	}))
	t.Cleanup(svc.Close)
	p, err := mockserver.NewProxy(svc.URL, mockserver.WithProxyAPIKey("proxy-key"))
	require.NoError(t, err)
	t.Cleanup(p.Close)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPatch, p.URL+"/v1/profiles/pf_1?api_key="+hostileKey, strings.NewReader(`{"name":"`+hostileKey+`"}`))
	require.NoError(t, err)
	req.Header.Set("x-api-key", hostileKey)
	req.Header.Set("Authorization", "Bearer "+hostileKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := noRedirects.Do(req)
	require.NoError(t, err)
	resp.Body.Close()

	_, requests := proxyGet(t, p, "/_mock/requests", "proxy-key")
	assert.NotContains(t, string(requests), hostileKey, "GET /_mock/requests holds the caller's key")
	_, violations := proxyGet(t, p, "/_mock/violations", "proxy-key")
	require.Contains(t, string(violations), `"count":`)
	assert.NotContains(t, string(violations), hostileKey, "GET /_mock/violations holds the caller's key")
}

// TestProxyTimesOutAnAnswerThatStalls: the proxy's timeout covers the
// reading of what the check needs of an answer: a service that begins a
// JSON answer and stalls gets the client a 504, not a wait without end.
func TestProxyTimesOutAnAnswerThatStalls(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	stalling := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, `{"id":`)
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(stalling.Close)
	t.Cleanup(func() { close(release) })
	p, err := mockserver.NewProxy(stalling.URL, mockserver.WithProxyTimeout(50*time.Millisecond))
	require.NoError(t, err)
	t.Cleanup(p.Close)
	// A hang guard a hundred times the proxy's timeout.
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.URL+"/v1/profiles/pf_1", nil)
	require.NoError(t, err)
	req.Header.Set("x-api-key", "k")
	resp, err := noRedirects.Do(req)
	if resp != nil {
		resp.Body.Close()
	}
	require.NoError(t, err, "the client got nothing at all from the proxy (not even a 504) within 100 times its timeout")
	assert.Equal(t, http.StatusGatewayTimeout, resp.StatusCode)
}

// TestProxyAnswerBeforeTheBodyEnds: a service that answers before it has
// read the request's body (a 413) has its answer checked and recorded
// while the transport may still be sending the body: under -race, no
// data race.
func TestProxyAnswerBeforeTheBodyEnds(t *testing.T) {
	t.Parallel()
	early := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Connection", "close")
		w.WriteHeader(http.StatusRequestEntityTooLarge)
		_, _ = io.WriteString(w, `{"error":{"code":"PAYLOAD_TOO_LARGE","status":413,"message":"too large"}}`)
	}))
	t.Cleanup(early.Close)
	p, err := mockserver.NewProxy(early.URL)
	require.NoError(t, err)
	t.Cleanup(p.Close)
	hc := newHTTPClient(t)
	for range 20 {
		pr, pw := io.Pipe()
		go func() {
			chunk := bytes.Repeat([]byte("x"), 64<<10)
			for range 64 {
				if _, err := pw.Write(chunk); err != nil {
					return
				}
			}
			_ = pw.Close()
		}()
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, p.URL+"/v1/folders/fld_1/items", pr)
		require.NoError(t, err)
		req.Header.Set("x-api-key", "k")
		req.Header.Set("Content-Type", "application/octet-stream")
		resp, err := hc.Do(req)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		_ = pr.CloseWithError(io.ErrClosedPipe)
	}
	_ = p.Requests()
}

// TestReplayRewritesWholeIDsOnly: a recorded ID is rewritten where it
// stands whole, never inside another ("item_1" inside "item_10").
func TestReplayRewritesWholeIDsOnly(t *testing.T) {
	t.Parallel()
	path := writeReplayHAR(t, "analysis_1", "pf_1", []replayItem{{"item_1", "alpha"}, {"item_10", "beta"}},
		`[{"id":"af_1","category":"c","result":"passed","details":"checked item_10 against item_1","sortOrder":0}]`)
	srv := newServer(t, mockserver.WithReplayFile(path), mockserver.WithReplayStrict())
	a := replayOver(t, srv, "alpha", "beta")
	require.Equal(t, profilesvc.AnalysisCompleted, a.Status, "%v", a.Error)
	require.Len(t, a.Findings, 1)
	want := "checked " + a.TargetItems[1].ItemID + " against " + a.TargetItems[0].ItemID
	assert.Equal(t, want, a.Findings[0].Details, "item_10 is rewritten as item_1's ID followed by 0")
}

// TestReplayLeavesWordsAlone: a recorded ID that is not of the service's
// form (a plain word) is not rewritten in the result's text.
func TestReplayLeavesWordsAlone(t *testing.T) {
	t.Parallel()
	path := writeReplayHAR(t, "analysis_1", "passed", []replayItem{{"item_1", "gamma"}},
		`[{"id":"af_1","category":"c","result":"passed","details":"all passed","sortOrder":0}]`)
	srv := newServer(t, mockserver.WithReplayFile(path), mockserver.WithReplayStrict())
	a := replayOver(t, srv, "gamma")
	require.Equal(t, profilesvc.AnalysisCompleted, a.Status, "%v", a.Error)
	require.Len(t, a.Findings, 1)
	assert.Equal(t, profilesvc.FindingPassed, a.Findings[0].Result, "the finding's result was rewritten as an ID")
	assert.Equal(t, "all passed", a.Findings[0].Details)
}

// TestReplayRefusesAResultThatBreaksTheDocument: a recording whose
// analysis the document refuses (a finding's result out of its enum) is
// refused at start, naming the entry and the field, so that a replaying
// mock never answers what the service could not.
func TestReplayRefusesAResultThatBreaksTheDocument(t *testing.T) {
	t.Parallel()
	path := writeReplayHAR(t, "analysis_1", "pf_1", []replayItem{{"item_1", "delta"}},
		`[{"id":"af_1","category":"c","result":"NOT-A-RESULT","details":"x","sortOrder":0}]`)
	_, err := mockserver.NewHandler(mockserver.WithReplayFile(path))
	require.ErrorContains(t, err, "entries[1].response.content.text: the analysis disagrees with api/openapi.yaml: /findings/0/result")
}

type replayItem struct{ id, text string }

// writeReplayHAR writes a recording of one completed analysis over text
// items, with findings as given.
func writeReplayHAR(t *testing.T, analysisID, profileID string, items []replayItem, findings string) string {
	t.Helper()
	var entries []string
	var targets []string
	for _, it := range items {
		entries = append(entries, `{"request":{"method":"POST","url":"https://svc.example/v1/folders/fld_1/items"},"response":{"status":201,"content":{"mimeType":"application/json","text":"{}"}},"_profilesvc":{"sha256":"`+hexSHA([]byte(it.text))+`","itemId":"`+it.id+`"}}`)
		targets = append(targets, `{"itemId":"`+it.id+`","name":"n","type":"text","sourceRef":null}`)
	}
	analysis := `{"id":"` + analysisID + `","profileId":"` + profileID + `","status":"completed","targetItems":[` + strings.Join(targets, ",") + `],"findings":` + findings + `}`
	text, err := json.Marshal(analysis)
	require.NoError(t, err)
	entries = append(entries, `{"request":{"method":"GET","url":"https://svc.example/v1/analyses/`+analysisID+`"},"response":{"status":200,"content":{"mimeType":"application/json","text":`+string(text)+`}}}`)
	path := filepath.Join(t.TempDir(), "hostile.har")
	require.NoError(t, os.WriteFile(path, []byte(`{"log":{"version":"1.2","entries":[`+strings.Join(entries, ",")+`]}}`), 0o600))
	return path
}

// replayOver runs an analysis over text items of the given texts, in
// order, and returns it ended.
func replayOver(t *testing.T, srv *mockserver.Server, texts ...string) *profilesvc.Analysis {
	t.Helper()
	c := srv.Client()
	profile, err := c.CreateProfile(t.Context(), mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Replayed"})
	require.NoError(t, err)
	var ids []string
	for i, text := range texts {
		it, err := c.CreateTextItem(t.Context(), profile.DefaultFolder().ID, text, profilesvc.CreateItemParams{Name: "n" + string(rune('a'+i))})
		require.NoError(t, err)
		ids = append(ids, it.ID)
	}
	id, err := c.StartAnalysis(t.Context(), profile.ID, profilesvc.StartAnalysisParams{ItemIDs: ids})
	require.NoError(t, err)
	return waitEnded(t, c, id)
}

// TestProxyRecordingIgnoresAPlantedPartFile: the recording is written to
// a file made for the write, never through a link left where a
// temporary file might be expected.
func TestProxyRecordingIgnoresAPlantedPartFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim.txt")
	require.NoError(t, os.WriteFile(victim, []byte("precious"), 0o644))
	path := filepath.Join(dir, "session.har")
	require.NoError(t, os.Symlink(victim, path+".part"))
	p, err := mockserver.NewProxy("http://127.0.0.1:1", mockserver.WithProxyRecording(path))
	require.NoError(t, err)
	t.Cleanup(p.Close)
	_, err = p.WriteRecording()
	require.NoError(t, err)
	got, err := os.ReadFile(victim)
	require.NoError(t, err)
	assert.Equal(t, "precious", string(got), "the file the planted FILE.part points to was overwritten with the recording")
}
