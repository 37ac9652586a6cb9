package mockserver_test

// Attacks of hostile or careless clients on the mock: a flood of keys,
// wrong keys with large bodies, oversize uploads, analyses of a large
// item, heavy metadata, stale reports, strange values. Each fails without
// its fix.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver"
	"github.com/profilesvc/profilesvc-go/mockserver/internal/pdftest"
)

// serveInProcess sends a request to a server's handler, in process, and returns the
// answer.
func serveInProcess(t testing.TB, srv *mockserver.Server, key, method, target string, body io.Reader, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, target, body)
	if key != "" {
		req.Header.Set("x-api-key", key)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	srv.Handler().ServeHTTP(w, req)
	return w
}

// answerError returns the code and message of an error answer.
func answerError(t testing.TB, w *httptest.ResponseRecorder) (string, string) {
	t.Helper()
	var body struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &body), "%d %s", w.Code, w.Body)
	return body.Error.Code, body.Error.Message
}

// randomUUID is a fresh well-formed UUID.
func randomUUID() string {
	h := fmt.Sprintf("%016x%016x", rand.Uint64(), rand.Uint64())
	return h[0:8] + "-" + h[8:12] + "-4" + h[13:16] + "-8" + h[17:20] + "-" + h[20:32]
}

func TestTenants_FloodOfKeysKeepsTheCap(t *testing.T) {
	t.Parallel()
	srv, err := mockserver.NewHandler(mockserver.WithMultiTenant(), mockserver.WithMaxTenants(50))
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	first := randomUUID()
	w := serveInProcess(t, srv, first, "POST", "/v1/workflows/wf_default/profiles", strings.NewReader(`{"name":"first"}`), "Content-Type", "application/json")
	require.Equal(t, http.StatusCreated, w.Code, "%s", w.Body)

	for range 5000 {
		w := serveInProcess(t, srv, randomUUID(), "GET", "/v1/workflows/wf_default/profiles", nil)
		require.Equal(t, http.StatusOK, w.Code, "a new key is answered at once: %s", w.Body)
	}
	// The first key's tenant was the least recently used: evicted with all
	// it held.
	fresh := serveInProcess(t, srv, first, "GET", "/v1/workflows/wf_default/profiles", nil)
	require.Equal(t, http.StatusOK, fresh.Code)
	assert.Contains(t, fresh.Body.String(), `"count":0`, "the evicted tenant's profile is gone")
	assert.NotNil(t, srv.TenantOf(srv.APIKey), "the server's own tenant is never evicted")
}

func TestTenants_ABusyTenantIsNotEvicted(t *testing.T) {
	t.Parallel()
	clock := mockserver.NewFakeClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	srv := mockserver.NewTest(t, mockserver.WithMultiTenant(), mockserver.WithMaxTenants(2), mockserver.WithClock(clock), mockserver.WithManualAnalyses())
	holder := randomUUID()
	c := srv.Client(profilesvc.WithAPIKey(holder))
	p, err := c.CreateProfile(t.Context(), mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "held"})
	require.NoError(t, err)
	it, err := c.CreateTextItem(t.Context(), p.DefaultFolder().ID, "Full Name: Jane", profilesvc.CreateItemParams{})
	require.NoError(t, err)
	id, err := c.StartAnalysis(t.Context(), p.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{it.ID}})
	require.NoError(t, err)
	polled := make(chan error, 1)
	go func() {
		_, err := c.GetAnalysis(t.Context(), id, &profilesvc.GetAnalysisParams{WaitForReport: true, Timeout: time.Minute})
		polled <- err
	}()
	require.NoError(t, clock.BlockUntil(t.Context(), 1), "the long poll is held")

	// Two more keys fill the cap: the holder, busy, stays; the second is
	// evicted by the third; with both left busy or full, a fourth waits.
	second, third := randomUUID(), randomUUID()
	for _, k := range []string{second, third} {
		w := serveInProcess(t, srv, k, "GET", "/v1/workflows/wf_default/profiles", nil)
		require.Equal(t, http.StatusOK, w.Code, "%s", w.Body)
	}
	kept, err := c.GetProfile(t.Context(), p.ID)
	require.NoError(t, err, "the busy tenant was not evicted")
	assert.Equal(t, "held", kept.Name)
	require.NoError(t, srv.TenantOf(holder).CompleteAnalysis(id))
	require.NoError(t, <-polled)
}

func TestTenants_AllBusyGivesServiceUnavailable(t *testing.T) {
	t.Parallel()
	clock := mockserver.NewFakeClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	srv := mockserver.NewTest(t, mockserver.WithMultiTenant(), mockserver.WithMaxTenants(1), mockserver.WithClock(clock), mockserver.WithManualAnalyses())
	holder := randomUUID()
	c := srv.Client(profilesvc.WithAPIKey(holder))
	p, _ := c.CreateProfile(t.Context(), mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "held"})
	it, _ := c.CreateTextItem(t.Context(), p.DefaultFolder().ID, "x", profilesvc.CreateItemParams{})
	id, err := c.StartAnalysis(t.Context(), p.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{it.ID}})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = c.GetAnalysis(ctx, id, &profilesvc.GetAnalysisParams{WaitForReport: true, Timeout: time.Minute})
	}()
	require.NoError(t, clock.BlockUntil(t.Context(), 1))
	w := serveInProcess(t, srv, randomUUID(), "GET", "/v1/workflows/wf_default/profiles", nil)
	require.Equal(t, http.StatusServiceUnavailable, w.Code)
	code, msg := answerError(t, w)
	assert.Equal(t, profilesvc.CodeServiceUnavailable, code)
	assert.Contains(t, msg, "WithMaxTenants")
	assert.Equal(t, "1", w.Header().Get("Retry-After"))
	cancel()
	<-done
}

func TestRecord_WrongKeysNeverFillTheRecord(t *testing.T) {
	t.Parallel()
	srv, err := mockserver.NewHandler(mockserver.WithRequestRecordBytes(1 << 20))
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	good := serveInProcess(t, srv, srv.APIKey, "POST", "/v1/workflows/wf_default/profiles", strings.NewReader(`{"name":"kept"}`), "Content-Type", "application/json")
	require.Equal(t, http.StatusCreated, good.Code)
	// With their bodies kept, 100 of these would pass the record's 1 MiB
	// and push the real request out.
	body := bytes.Repeat([]byte("x"), 64<<10)
	for range 100 {
		w := serveInProcess(t, srv, "0a0b0c0d-1111-4222-8333-944455556666", "POST", "/v1/workflows/wf_default/profiles", bytes.NewReader(body), "Content-Type", "application/json")
		require.Equal(t, http.StatusUnauthorized, w.Code)
	}
	reqs := srv.Requests()
	require.NotEmpty(t, reqs)
	assert.Equal(t, "kept", func() string {
		var b struct{ Name string }
		_ = json.Unmarshal(reqs[0].Body, &b)
		return b.Name
	}(), "the real request is still in the record")
	for _, r := range reqs[1:] {
		assert.Equal(t, http.StatusUnauthorized, r.Status)
		assert.Nil(t, r.Body, "a request that failed authentication keeps no body")
		assert.Nil(t, r.Header, "nor its headers")
		assert.Equal(t, "POST", r.Method)
		assert.Equal(t, "/v1/workflows/wf_default/profiles", r.Path)
	}
}

func TestRecord_BoundedInBytesAndCountingDrops(t *testing.T) {
	t.Parallel()
	srv, err := mockserver.NewHandler(mockserver.WithRequestRecordBytes(300<<10), mockserver.WithRequestRecordSize(1000))
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	p, err := srv.CreateProfile(mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "record"})
	require.NoError(t, err)
	big, _ := json.Marshal(map[string]any{"type": "text", "name": "big", "content": strings.Repeat("y", 200<<10)})
	for range 10 {
		w := serveInProcess(t, srv, srv.APIKey, "POST", "/v1/folders/"+p.Folders[0].ID+"/items", bytes.NewReader(big), "Content-Type", "application/json")
		require.Equal(t, http.StatusCreated, w.Code, "%s", w.Body)
	}
	reqs := srv.Requests()
	// Each entry keeps 64 KiB of its body: four fit in 300 KiB.
	assert.Len(t, reqs, 4)
	assert.Equal(t, 6, srv.RequestsDropped())
	for _, r := range reqs {
		assert.True(t, r.BodyTruncated)
		assert.Len(t, r.Body, 64<<10)
		assert.EqualValues(t, len(big), r.BodySize, "the whole size of a truncated body")
	}
	w := serveInProcess(t, srv, srv.APIKey, "GET", "/_mock/requests", nil)
	require.Equal(t, http.StatusOK, w.Code)
	var list struct {
		Count   int `json:"count"`
		Dropped int `json:"dropped"`
		Items   []struct {
			BodySize int64 `json:"bodySize"`
		} `json:"items"`
	}
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &list), "%s", w.Body)
	assert.Equal(t, 4, list.Count)
	assert.Equal(t, 6, list.Dropped)
	assert.Len(t, list.Items, 4)
	srv.ClearRequests()
	assert.Zero(t, srv.RequestsDropped())
}

// multipartUpload builds an upload of n bytes of a file.
func multipartUpload(n int) ([]byte, string) {
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	fw, _ := mw.CreateFormFile("file", "big.bin")
	_, _ = fw.Write(bytes.Repeat([]byte{'z'}, n))
	_ = mw.Close()
	return b.Bytes(), mw.FormDataContentType()
}

func TestUploads_DeclaredTooLargeIsRefusedBeforeReading(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t, mockserver.WithMaxUploadSize(1<<20))
	p, _ := srv.CreateProfile(mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "u"})
	// A reader that fails the test if more than the headers' worth of it
	// is read.
	body, ct := multipartUpload(4 << 20)
	cr := &countingReader{r: bytes.NewReader(body)}
	req := httptest.NewRequest("POST", "/v1/folders/"+p.Folders[0].ID+"/items", cr)
	req.ContentLength = int64(len(body))
	req.Header.Set("Content-Type", ct)
	req.Header.Set("x-api-key", srv.APIKey)
	w := httptest.NewRecorder()
	srv.Handler().ServeHTTP(w, req)
	require.Equal(t, http.StatusRequestEntityTooLarge, w.Code, "%s", w.Body)
	// At most what the request record keeps of a body, never the whole.
	assert.LessOrEqual(t, cr.n, int64(128<<10), "read %d bytes of a refused upload", cr.n)
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func TestAnalyses_ShareTheItemsBytes(t *testing.T) {
	// Not parallel: it reads the process's allocation counters.
	srv := mockserver.NewTest(t, mockserver.WithManualAnalyses())
	p, _ := srv.CreateProfile(mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "big"})
	const size = 16 << 20
	it, err := srv.AddFileItem(p.Folders[0].ID, "scan.bin", bytes.Repeat([]byte{0xAB}, size))
	require.NoError(t, err)
	c := srv.Client()
	// One analysis first, outside the count: what the process makes once
	// (the checker of the exchanges, the engine's tables) is not what the
	// analyses copy.
	warm, err := c.StartAnalysis(t.Context(), p.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{it.ID}})
	require.NoError(t, err)
	require.NoError(t, srv.CompleteAnalysis(warm))
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 6 {
		id, err := c.StartAnalysis(t.Context(), p.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{it.ID}})
		require.NoError(t, err)
		require.NoError(t, srv.CompleteAnalysis(id))
	}
	runtime.ReadMemStats(&after)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(size), "six analyses of one item copied its bytes")
}

func TestReports_ReflectTheAnalysisAsItStands(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t, mockserver.WithManualAnalyses())
	c := srv.Client()
	p, _ := c.CreateProfile(t.Context(), mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Old Name"})
	it, _ := c.CreateTextItem(t.Context(), p.DefaultFolder().ID, "PASSPORT\nFull Name: Jane Doe\n", profilesvc.CreateItemParams{})
	id, _ := c.StartAnalysis(t.Context(), p.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{it.ID}})
	require.NoError(t, srv.CompleteAnalysis(id))
	first := reportText(t, c, id)
	assert.Contains(t, first, "Old Name")
	assert.Contains(t, first, "Pending review")

	_, err := c.UpdateProfile(t.Context(), p.ID, profilesvc.UpdateProfileParams{Name: profilesvc.Ptr("New Name")})
	require.NoError(t, err)
	require.NoError(t, srv.SetVerificationStatus(id, profilesvc.VerificationApproved))
	again := reportText(t, c, id)
	assert.Contains(t, again, "New Name")
	assert.NotContains(t, again, "Old Name")
	assert.Contains(t, again, "Approved")
	assert.NotContains(t, again, "Pending review")
}

func TestReports_ConcurrentFirstDownloadsRenderOnce(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t, mockserver.WithManualAnalyses())
	c := srv.Client()
	p, _ := c.CreateProfile(t.Context(), mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Many"})
	it, _ := c.CreateTextItem(t.Context(), p.DefaultFolder().ID, "PASSPORT\nFull Name: Jane Doe\n", profilesvc.CreateItemParams{})
	id, _ := c.StartAnalysis(t.Context(), p.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{it.ID}})
	require.NoError(t, srv.CompleteAnalysis(id))
	var wg sync.WaitGroup
	pdfs := make([][]byte, 50)
	for i := range pdfs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rep, err := c.DownloadReport(t.Context(), id, nil)
			if assert.NoError(t, err) {
				pdfs[i], _ = io.ReadAll(rep.Body)
				rep.Body.Close()
			}
		}()
	}
	wg.Wait()
	for i := range pdfs {
		assert.Equal(t, pdfs[0], pdfs[i], "download %d", i)
	}
}

func reportText(t *testing.T, c *profilesvc.Client, id string) string {
	t.Helper()
	rep, err := c.DownloadReport(t.Context(), id, nil)
	require.NoError(t, err)
	defer rep.Body.Close()
	b, err := io.ReadAll(rep.Body)
	require.NoError(t, err)
	return pdftest.Text(t, b)
}

func TestInconsistencies(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	p, _ := srv.CreateProfile(mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "odd"})
	fid := p.Folders[0].ID
	json := func(s string) (io.Reader, []string) {
		return strings.NewReader(s), []string{"Content-Type", "application/json"}
	}
	t.Run("unknown query parameters are refused everywhere", func(t *testing.T) {
		for _, target := range []string{"/v1/profiles/" + p.ID + "?x=1", "/v1/folders/" + fid + "?x=1", "/v1/items/item_x?x=1", "/_mock/faults?x=1"} {
			w := serveInProcess(t, srv, srv.APIKey, "GET", target, nil)
			require.Equal(t, http.StatusBadRequest, w.Code, "%s: %s", target, w.Body)
			_, msg := answerError(t, w)
			assert.Contains(t, msg, `unknown query parameter "x"`)
		}
		body, h := json(`{"name":"x"}`)
		w := serveInProcess(t, srv, srv.APIKey, "PATCH", "/v1/profiles/"+p.ID+"?x=1", body, h...)
		assert.Equal(t, http.StatusBadRequest, w.Code)
	})
	t.Run("invalid UTF-8 names the field", func(t *testing.T) {
		body, h := json("{\"name\":\"bad \xff name\"}")
		w := serveInProcess(t, srv, srv.APIKey, "PATCH", "/v1/profiles/"+p.ID, body, h...)
		require.Equal(t, http.StatusBadRequest, w.Code)
		code, msg := answerError(t, w)
		assert.Equal(t, profilesvc.CodeValidation, code)
		assert.Contains(t, msg, `field "name" is not valid UTF-8`)
	})
	t.Run("numbers out of range", func(t *testing.T) {
		body, h := json(`{"type":"json","name":"n","content":{"x":1}, "metadata":{"k":1}}`)
		require.Equal(t, http.StatusCreated, serveInProcess(t, srv, srv.APIKey, "POST", "/v1/folders/"+fid+"/items", body, h...).Code)
		body, h = json(`{"targetItems":[{"itemId":"item_x"}],"options":{"n":1e999999}}`)
		w := serveInProcess(t, srv, srv.APIKey, "POST", "/v1/analyses/"+p.ID+"/analyze", body, h...)
		require.Equal(t, http.StatusBadRequest, w.Code)
		_, msg := answerError(t, w)
		assert.Contains(t, msg, "out of range")
	})
	t.Run("no value echoed beyond 100 characters", func(t *testing.T) {
		long := strings.Repeat("9", 500000)
		w := serveInProcess(t, srv, srv.APIKey, "GET", "/v1/profiles/"+p.ID+"/folders?limit="+long, nil)
		require.Equal(t, http.StatusBadRequest, w.Code)
		assert.Less(t, w.Body.Len(), 1000, "the answer echoes the value: %d bytes", w.Body.Len())
	})
	t.Run("a multipart name too long", func(t *testing.T) {
		var b bytes.Buffer
		mw := multipart.NewWriter(&b)
		_ = mw.WriteField("name", strings.Repeat("n", 5000))
		fw, _ := mw.CreateFormFile("file", "f.txt")
		_, _ = fw.Write([]byte("hello"))
		_ = mw.Close()
		w := serveInProcess(t, srv, srv.APIKey, "POST", "/v1/folders/"+fid+"/items", &b, "Content-Type", mw.FormDataContentType())
		require.Equal(t, http.StatusBadRequest, w.Code)
		_, msg := answerError(t, w)
		assert.Contains(t, msg, "too long")
		assert.NotContains(t, msg, "got 4096")
	})
	t.Run("HEAD is answered as GET without a body", func(t *testing.T) {
		get := serveInProcess(t, srv, srv.APIKey, "GET", "/v1/profiles/"+p.ID, nil)
		head := serveInProcess(t, srv, srv.APIKey, "HEAD", "/v1/profiles/"+p.ID, nil)
		require.Equal(t, http.StatusOK, head.Code)
		assert.Equal(t, get.Header().Get("Content-Type"), head.Header().Get("Content-Type"))
		assert.Equal(t, get.Header().Get("Content-Length"), head.Header().Get("Content-Length"))
	})
}

// TestErrors_AHugeNumberIsNotEchoedWhole sends numbers of 500,000 digits
// where the mock cannot read them: the error names the field, and shows
// the value clipped, never whole.
func TestErrors_AHugeNumberIsNotEchoedWhole(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	_, folder := createProfile(t, srv, "Numbers")
	huge := strings.Repeat("7", 500_000)
	for _, tt := range []struct {
		name, method, path, body, field string
	}{
		{"a JSON item's content", "POST", "/v1/folders/" + folder + "/items", `{"type":"json","name":"n","content":{"n":` + huge + `}}`, "content"},
		{"a profile's metadata", "POST", "/v1/workflows/wf_default/profiles", `{"name":"n","metadata":{"n":` + huge + `}}`, "metadata"},
		{"a number where a string goes", "POST", "/v1/workflows/wf_default/profiles", `{"name":` + huge + `}`, "name"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := serveInProcess(t, srv, srv.APIKey, tt.method, tt.path, strings.NewReader(tt.body), "Content-Type", "application/json")
			require.Equal(t, 400, w.Code, "%.300s", w.Body)
			_, msg := answerError(t, w)
			assert.Contains(t, msg, tt.field, "the message names the field")
			assert.Less(t, len(msg), 400, "the message of a number of 500,000 digits: %.500s", msg)
		})
	}
}

// TestCORS_OriginsAsBrowsersSendThem allows origins given with spaces
// around them, in capitals and with a default port: each matches the
// origin a browser sends; an origin of another form fails the start.
func TestCORS_OriginsAsBrowsersSendThem(t *testing.T) {
	t.Parallel()
	srv := newServer(t, mockserver.WithCORS("https://a.example", " https://B.Example:443 ", " http://c.example:8080"))
	for _, origin := range []string{"https://a.example", "https://b.example", "HTTPS://A.EXAMPLE", "http://c.example:8080"} {
		h := http.Header{"Origin": {origin}, "Access-Control-Request-Method": {"POST"}}
		pre := send(t, srv, request{Method: "OPTIONS", Path: "/v1/workflows/wf_default/profiles", Key: noKey, Header: h})
		assert.Equal(t, 204, pre.Status, "a preflight from %s: %s", origin, pre)
		assert.Equal(t, origin, pre.Header.Get("Access-Control-Allow-Origin"), "a preflight from %s", origin)
	}
	for _, origin := range []string{"https://b.example:8443", "http://a.example", "https://c.example:8080"} {
		h := http.Header{"Origin": {origin}, "Access-Control-Request-Method": {"POST"}}
		pre := send(t, srv, request{Method: "OPTIONS", Path: "/v1/workflows/wf_default/profiles", Key: noKey, Header: h})
		assert.Equal(t, 403, pre.Status, "a preflight from %s, not allowed: %s", origin, pre)
	}
	for _, bad := range []string{"a.example", "https://a.example/app", "ftp://a.example", "https://user@a.example", "http://bücher.example", "http://a.example:99999", ","} {
		_, err := mockserver.Start("127.0.0.1:0", mockserver.WithCORS(bad))
		assert.Error(t, err, "WithCORS(%q)", bad)
	}
}
