package mockserver_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

// har is the part of an HTTP Archive the tests read.
type har struct {
	Log struct {
		Version string `json:"version"`
		Entries []struct {
			Request struct {
				Method   string `json:"method"`
				URL      string `json:"url"`
				PostData *struct {
					MimeType string `json:"mimeType"`
					Text     string `json:"text"`
					SHA256   string `json:"_sha256"`
				} `json:"postData"`
			} `json:"request"`
			Response struct {
				Status  int `json:"status"`
				Content struct {
					Size     int64  `json:"size"`
					MimeType string `json:"mimeType"`
					Text     string `json:"text"`
					Encoding string `json:"encoding"`
					SHA256   string `json:"_sha256"`
				} `json:"content"`
			} `json:"response"`
			Profilesvc *struct {
				SHA256 string `json:"sha256"`
				ItemID string `json:"itemId"`
			} `json:"_profilesvc"`
		} `json:"entries"`
	} `json:"log"`
}

func readHAR(t *testing.T, path string) (har, []byte) {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err, "the recording")
	var h har
	require.NoError(t, json.Unmarshal(raw, &h), "the recording is not JSON")
	require.Equal(t, "1.2", h.Log.Version)
	return h, raw
}

func hexSHA(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func TestProxyRecordsAWholeFlow(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "flow.har")
	upstream, p := newProxyPair(t, mockserver.WithProxyRecording(path))
	c := proxiedClient(upstream, p)
	ctx := t.Context()
	profile, err := c.CreateProfile(ctx, mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Recorded"})
	require.NoError(t, err)
	folder := profile.DefaultFolder().ID
	fileBytes := []byte("PASSPORT\nFull Name: Jane Doe\n")
	file, err := c.UploadFile(ctx, folder, strings.NewReader(string(fileBytes)), profilesvc.UploadParams{Filename: "passport.txt"})
	require.NoError(t, err)
	text, err := c.CreateTextItem(ctx, folder, "a note", profilesvc.CreateItemParams{Name: "note"})
	require.NoError(t, err)
	doc, err := c.CreateJSONItem(ctx, folder, map[string]any{"b": 1, "a": "<x>"}, profilesvc.CreateItemParams{Name: "data"})
	require.NoError(t, err)
	id, err := c.StartAnalysis(ctx, profile.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{file.ID, text.ID, doc.ID}})
	require.NoError(t, err)
	_, err = c.WaitForAnalysis(ctx, id, nil)
	require.NoError(t, err)
	pdf := downloadReport(t, c, id)

	// POST /_mock/recording writes it and answers it.
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.URL+"/_mock/recording", nil)
	require.NoError(t, err)
	req.Header.Set("x-api-key", "proxy-key")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	answered, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", answered)

	h, raw := readHAR(t, path)
	assert.JSONEq(t, string(raw), string(answered), "the answer is the file")
	assert.NotContains(t, string(raw), upstream.APIKey, "the key is in the recording")
	assert.Contains(t, string(raw), `"REDACTED"`)

	digests := map[string]string{} // item ID -> digest recorded
	var report bool
	for _, e := range h.Log.Entries {
		if e.Profilesvc != nil {
			digests[e.Profilesvc.ItemID] = e.Profilesvc.SHA256
		}
		if strings.HasSuffix(strings.SplitN(e.Request.URL, "?", 2)[0], "/report") && e.Response.Status == 200 {
			report = true
			assert.Equal(t, "application/pdf", e.Response.Content.MimeType)
			assert.Equal(t, int64(len(pdf)), e.Response.Content.Size)
			assert.Equal(t, hexSHA(pdf), e.Response.Content.SHA256, "the report's digest")
			assert.Empty(t, e.Response.Content.Text, "a report's bytes are kept only with WithProxyRecordBodies")
		}
	}
	assert.True(t, report, "no entry of the report")
	assert.Equal(t, map[string]string{
		file.ID: hexSHA(fileBytes),
		text.ID: hexSHA([]byte("a note")),
		doc.ID:  hexSHA([]byte(`{"a":"<x>","b":1}`)),
	}, digests, "each upload's entry names its item and the digest of its content")
}

// TestProxyRecordingNeverHoldsTheKey records the exchanges of a service
// that echoes the caller's key everywhere it can: in the answer's headers,
// its body in several cases and escapes, and a redirect's Location; and
// requests that carry it in the query and the body.
func TestProxyRecordingNeverHoldsTheKey(t *testing.T) {
	t.Parallel()
	const key = "5e3c0f2a-9b1d-4c7e-8a6f-1d2e3f4a5b6c"
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k := r.Header.Get("x-api-key")
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("X-Echo", k)
		w.Header().Set("X-Echo-Upper", strings.ToUpper(k))
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Has("redirect") {
			w.Header().Set("Location", "https://elsewhere.example/?k="+url.QueryEscape(k))
			w.WriteHeader(http.StatusFound)
			return
		}
		escaped := ""
		for _, c := range k {
			escaped += `\u00` + hex.EncodeToString([]byte{byte(c)})
		}
		pct := ""
		for _, c := range []byte(strings.ToUpper(k)) {
			pct += "%" + strings.ToLower(hex.EncodeToString([]byte{c}))
		}
		_, _ = io.WriteString(w, `{"key":"`+k+`","upper":"`+strings.ToUpper(k)+`","escaped":"`+escaped+`","pct":"`+pct+`","sent":`+string(body)+`,"query":"`+r.URL.RawQuery+`"}`)
	}))
	t.Cleanup(echo.Close)
	path := filepath.Join(t.TempDir(), "echo.har")
	p, err := mockserver.NewProxy(echo.URL, mockserver.WithProxyRecording(path), mockserver.WithProxyRecordBodies())
	require.NoError(t, err)
	t.Cleanup(p.Close)
	for _, target := range []string{"/v1/profiles/pf_1?token=" + url.QueryEscape(key), "/v1/profiles/pf_1?redirect=1", "/v1/profiles/" + strings.ToUpper(key)} {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPatch, p.URL+target, strings.NewReader(`{"name":"`+key+`"}`))
		require.NoError(t, err)
		req.Header.Set("x-api-key", key)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Note", "key="+key)
		resp, err := noRedirects.Do(req)
		require.NoError(t, err)
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(target, "redirect") {
			assert.Contains(t, string(got), key, "the client gets the service's answer as it is")
		}
	}
	_, err = p.WriteRecording()
	require.NoError(t, err)
	_, raw := readHAR(t, path)
	// Nor does what the proxy keeps in memory and serves.
	kept, err := json.Marshal([]any{p.Requests(), p.Violations(), p.Conformance()})
	require.NoError(t, err)
	require.Positive(t, p.Violations().Count, "the echoing service's answers break the document")
	raw = append(raw, kept...)
	lower := strings.ToLower(string(raw))
	for _, form := range []string{key, strings.ReplaceAll(key, "-", "%2d"), strings.ReplaceAll(key, "-", "%2D")} {
		assert.NotContains(t, lower, strings.ToLower(form), "the key is in the recording as %q", form)
	}
	assert.NotContains(t, lower, "5e3c0f2a", "a piece of the key is in the recording")
	assert.NotContains(t, lower, "%35%45%33%43", "the key percent-escaped is in the recording")
	assert.NotContains(t, lower, `\\u0035\\u0065`, "the key JSON-escaped is in the recording")
	assert.Contains(t, string(raw), "REDACTED")
}

func TestProxyRecordingOptions(t *testing.T) {
	t.Parallel()
	_, err := mockserver.NewProxy("http://127.0.0.1:1", mockserver.WithProxyRecordBodies())
	assert.ErrorContains(t, err, "needs WithProxyRecording")
	_, err = mockserver.NewProxy("http://127.0.0.1:1", mockserver.WithProxyRecording(filepath.Join(t.TempDir(), "no", "such", "dir.har")))
	assert.Error(t, err, "a recording in a directory that does not exist")
	p, err := mockserver.NewProxy("http://127.0.0.1:1")
	require.NoError(t, err)
	t.Cleanup(p.Close)
	_, err = p.WriteRecording()
	assert.Error(t, err, "no recording")
	status, body := proxyPost(t, p, "/_mock/recording", "")
	assert.Equal(t, http.StatusUnauthorized, status, "%s", body)
	status, body = proxyPost(t, p, "/_mock/recording", p.APIKey)
	assert.Equal(t, http.StatusConflict, status)
	assert.Equal(t, mockserver.CodeNotRecording, decodeErrorBody(t, body).Code)
}

// proxyPost sends a POST with no body to the proxy.
func proxyPost(t *testing.T, p *mockserver.Proxy, path, key string) (int, []byte) {
	t.Helper()
	return proxyDo(t, p, http.MethodPost, path, key)
}
