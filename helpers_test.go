package profilesvc

// The helpers the package's internal tests share: a test server that
// records every request, canned answers of the service, SDK calls named
// for tables, fakes, and checks. A helper that one test alone uses stays
// beside that test.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"math/rand/v2"
	"mime"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go/internal/testutil"
)

// ---- The recording test server ----

// testAPIKey is the key the clients of these tests send.
const testAPIKey = "3f0c8a7e-5b1d-4c2e-9a6f-7d8e9f0a1b2c"

// recordedRequest is one request a testServer received.
type recordedRequest struct {
	Method string
	// Path is the decoded path; EscapedPath is the path as it was sent.
	Path        string
	EscapedPath string
	Query       url.Values
	Header      http.Header
	Body        []byte
}

// testServer is an httptest.Server that records every request and answers
// with a handler the test gives.
type testServer struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []recordedRequest
}

// newTestServer starts a server answering with h (after recording the
// request; h reads the body from the record) and closes it when the test
// ends.
func newTestServer(t testing.TB, h http.HandlerFunc) *testServer {
	t.Helper()
	s := &testServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.reqs = append(s.reqs, recordedRequest{
			Method:      r.Method,
			Path:        r.URL.Path,
			EscapedPath: r.URL.EscapedPath(),
			Query:       r.URL.Query(),
			Header:      r.Header.Clone(),
			Body:        body,
		})
		s.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		h(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// requests returns a copy of what the server received so far.
func (s *testServer) requests() []recordedRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]recordedRequest(nil), s.reqs...)
}

// client returns a client of the server with the test key and retry waits
// short enough for tests; opts come last and win.
func (s *testServer) client(t testing.TB, opts ...Option) *Client {
	t.Helper()
	all := append([]Option{
		WithAPIKey(testAPIKey),
		WithBaseURL(s.URL),
		WithRetryWait(time.Millisecond, 5*time.Millisecond),
	}, opts...)
	c, err := NewClient(all...)
	require.NoError(t, err, "NewClient")
	return c
}

// jsonServer answers every request with body as 200 JSON.
func jsonServer(t testing.TB, body []byte) *testServer {
	t.Helper()
	return newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		respond(w, http.StatusOK, string(body))
	})
}

// pdfServer answers every request with pdf and the given
// Content-Disposition (none if empty).
func pdfServer(t *testing.T, pdf []byte, disposition string) *testServer {
	t.Helper()
	return newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		if disposition != "" {
			w.Header().Set("Content-Disposition", disposition)
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(pdf)))
		_, _ = w.Write(pdf)
	})
}

// ---- Answers of the service ----

// Resources as the service sends them.
const (
	// profileJSON is a profile without its folders.
	profileJSON = `{"id":"pf_1","workflowId":"wf_1","name":"Jane","itemsCount":0,"lastAnalysisAt":null,"createdAt":"2025-01-01T00:00:00Z","updatedAt":"2025-01-01T00:00:00Z"}`
	// profileWithFoldersJSON is a profile as created, with its default
	// folder.
	profileWithFoldersJSON = `{"id":"pf_1","workflowId":"wf_1","name":"Jane Doe","itemsCount":0,"lastAnalysisAt":null,` +
		`"folders":[{"id":"fld_1","name":"default","isDefault":true,"itemsCount":0,"createdAt":"2025-03-14T09:26:53Z"}],` +
		`"createdAt":"2025-03-14T09:26:53Z","updatedAt":"2025-03-14T09:26:53Z"}`
	// folderWithItemsJSON is a folder with the summary of its one item.
	folderWithItemsJSON = `{"id":"fld_2","profileId":"pf_1","name":"Bank statements","isDefault":false,"itemsCount":1,` +
		`"createdAt":"2025-03-14T09:26:53Z","updatedAt":"2025-03-14T09:30:00Z",` +
		`"items":[{"id":"item_1","type":"file","name":"a.pdf","contentType":"application/pdf","sizeBytes":10,"createdAt":"2025-03-14T09:30:00Z"}]}`
	// fileItemJSON is an uploaded file of folder fld_2.
	fileItemJSON = `{"id":"item_1","folderId":"fld_2","type":"file","name":"payslip.pdf","content":null,` +
		`"contentType":"application/pdf","sizeBytes":8,"status":"ACTIVE","createdAt":"2025-03-14T09:30:00Z"}`
	// uploadedItemJSON is an uploaded file of folder fd_1.
	uploadedItemJSON = `{"id":"item_1","folderId":"fd_1","type":"file","name":"doc.pdf","content":null,"contentType":"application/pdf","sizeBytes":10,"status":"ACTIVE","createdAt":"2025-01-01T00:00:00Z"}`
	// reportedAnalysisJSON is a completed analysis with its report, in
	// brief.
	reportedAnalysisJSON = `{"id":"analysis_1","profileId":"pf_1","status":"completed","primaryReportId":"rpt_1",` +
		`"requestedAt":"2025-03-14T10:00:00Z","createdAt":"2025-03-14T10:00:00Z"}`
	// completedAnalysisJSON is a small completed analysis with its report,
	// every member present.
	completedAnalysisJSON = `{"id":"analysis_1","profileId":"pf_1","folderId":null,"engineId":null,"playbookId":"PB-1","engine":null,"status":"completed","processingTimeMs":10,"verificationStatus":"pending_review","error":null,"options":null,"clientMetadata":null,"primaryReportId":"rpt_1","requestedAt":"2025-01-01T00:00:00Z","completedAt":"2025-01-01T00:01:00Z","createdAt":"2025-01-01T00:00:00Z"}`
)

// tinyPDF is a small PDF document, as DownloadReport expects one.
const tinyPDF = "%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"

// fakePDF returns the bytes of a fake PDF of about n bytes.
func fakePDF(n int) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.7\n")
	for b.Len() < n {
		b.WriteString("0123456789abcdef\n")
	}
	b.WriteString("%%EOF\n")
	return b.Bytes()
}

// analysisJSON is analysis_1 with the given status, report ID and error
// text (empty for null).
func analysisJSON(status AnalysisStatus, reportID, errText string) string {
	a := map[string]any{
		"id": "analysis_1", "profileId": "pf_1", "folderId": nil, "engineId": nil,
		"playbookId": "PB-1", "engine": nil, "status": status, "processingTimeMs": 0,
		"verificationStatus": "pending_review", "error": nil, "options": nil,
		"clientMetadata": nil, "primaryReportId": nil, "requestedAt": "2025-01-01T00:00:00Z",
		"completedAt": nil, "createdAt": "2025-01-01T00:00:00Z",
	}
	if reportID != "" {
		a["primaryReportId"] = reportID
	}
	if errText != "" {
		a["error"] = errText
	}
	b, err := json.Marshal(a)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// pageJSON returns a page of the listing of resources with the given IDs.
func pageJSON(next string, ids ...string) string {
	items := make([]string, len(ids))
	for i, id := range ids {
		items[i] = fmt.Sprintf(`{"id":%q,"name":"entry %s"}`, id, id)
	}
	nc := "null"
	if next != "" {
		nc = fmt.Sprintf("%q", next)
	}
	return fmt.Sprintf(`{"count":%d,"nextCursor":%s,"items":[%s]}`, len(ids), nc, strings.Join(items, ","))
}

// errorBody is the service's error JSON for code and status.
func errorBody(code string, status int, message string) []byte {
	return []byte(`{"error":{"code":"` + code + `","status":` + strconv.Itoa(status) + `,"message":"` + message + `"}}`)
}

// respond writes a JSON answer.
func respond(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

// respondError writes the service's error body.
func respondError(w http.ResponseWriter, status int, code, message string) {
	respond(w, status, string(errorBody(code, status, message)))
}

// ---- Handlers ----

// answerOK answers any call of idempotentCalls and postCalls
// successfully.
func answerOK(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodDelete:
		w.WriteHeader(http.StatusNoContent)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/analyses/pf_1/analyze":
		respond(w, http.StatusAccepted, `{"id":"analysis_1"}`)
	case r.Method == http.MethodPost:
		respond(w, http.StatusCreated, profileJSON)
	default:
		respond(w, http.StatusOK, profileJSON)
	}
}

// answerStatus answers with the service's error body for a status.
func answerStatus(status int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		respondError(w, status, "E"+strconv.Itoa(status), http.StatusText(status))
	}
}

// dropConnection closes the connection without answering.
func dropConnection(w http.ResponseWriter, r *http.Request) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		panic(err)
	}
	_ = conn.Close()
}

// answerInTurn answers the nth request (from 0) with steps[n], and every
// later one with the last step.
func answerInTurn(steps ...http.HandlerFunc) http.HandlerFunc {
	var n atomic.Int32
	return func(w http.ResponseWriter, r *http.Request) {
		i := int(n.Add(1)) - 1
		if i >= len(steps) {
			i = len(steps) - 1
		}
		steps[i](w, r)
	}
}

// answerAnalysis answers with analysis_1 (see analysisJSON).
func answerAnalysis(status AnalysisStatus, reportID, errText string) http.HandlerFunc {
	body := analysisJSON(status, reportID, errText)
	return func(w http.ResponseWriter, r *http.Request) { respond(w, http.StatusOK, body) }
}

// Answers with analysis_1 at each stage.
var (
	answerPending    = answerAnalysis(AnalysisPending, "", "")
	answerProcessing = answerAnalysis(AnalysisProcessing, "", "")
	answerDone       = answerAnalysis(AnalysisCompleted, "rpt_1", "")
)

// holdPoll holds the request until the client gives up; after ten
// seconds, a bound no test waits for, it answers processing.
func holdPoll(w http.ResponseWriter, r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-time.After(10 * time.Second):
		respond(w, http.StatusOK, analysisJSON(AnalysisProcessing, "", ""))
	}
}

// holdRequest holds a request for d, as a slow service does, or until the
// client abandons it; it reports whether the client did.
func holdRequest(r *http.Request, d time.Duration) bool {
	select {
	case <-r.Context().Done():
		return true
	case <-time.After(d):
		return false
	}
}

// answerCreatedItem answers with the created item.
func answerCreatedItem(w http.ResponseWriter, r *http.Request) {
	respond(w, http.StatusCreated, uploadedItemJSON)
}

// ---- The network ----

// countingTransport counts the attempts a client makes.
type countingTransport struct {
	base http.RoundTripper
	n    atomic.Int32
}

func (c *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.base.RoundTrip(req)
}

// closedAddr returns a local address that refuses connections.
func closedAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return addr
}

// untrustedTLSServer starts a TLS server whose certificate no client
// trusts; its handshake errors are not logged.
func untrustedTLSServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		respond(w, http.StatusOK, `{}`)
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

// ---- SDK calls for tables ----

// sdkCall is one SDK call, named for the test.
type sdkCall struct {
	name string
	call func(ctx context.Context, c *Client) error
}

// idempotentCalls are calls of the methods that may be retried after an
// ambiguous failure; answerOK answers them.
var idempotentCalls = []sdkCall{
	{"GetProfile", func(ctx context.Context, c *Client) error {
		_, err := c.GetProfile(ctx, "pf_1")
		return err
	}},
	{"UpdateProfile", func(ctx context.Context, c *Client) error {
		_, err := c.UpdateProfile(ctx, "pf_1", UpdateProfileParams{Name: Ptr("Jane")})
		return err
	}},
	{"DeleteProfile", func(ctx context.Context, c *Client) error {
		return c.DeleteProfile(ctx, "pf_1")
	}},
}

// postCalls are calls that POST; answerOK answers them.
var postCalls = []sdkCall{
	{"CreateProfile", func(ctx context.Context, c *Client) error {
		_, err := c.CreateProfile(ctx, "wf_1", CreateProfileParams{Name: "Jane"})
		return err
	}},
	{"StartAnalysis", func(ctx context.Context, c *Client) error {
		_, err := c.StartAnalysis(ctx, "pf_1", StartAnalysisParams{ItemIDs: []string{"item_1"}})
		return err
	}},
}

// ---- Waiting for a call ----

// Functions a call waits in, as a stack trace names them: the retry's
// backoff (go-retryablehttp's loop) and the SDK's own pauses of
// WaitForAnalysis.
const (
	inRetryBackoff = "github.com/hashicorp/go-retryablehttp.(*Client).Do"
	inWaitPause    = "github.com/profilesvc/profilesvc-go.sleep"
)

// inBackground runs f on a goroutine of its own and returns that
// goroutine's ID, for awaitParked, and a channel that receives f's error.
func inBackground(f func() error) (string, <-chan error) {
	ids := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		ids <- goroutineID()
		done <- f()
	}()
	return <-ids, done
}

// goroutineID returns the ID of the calling goroutine, as runtime.Stack
// names it ("goroutine 42 [running]:").
func goroutineID() string {
	buf := make([]byte, 64)
	return strings.Fields(string(buf[:runtime.Stack(buf, false)]))[1]
}

// awaitParked returns once goroutine id is blocked in a select of fn (see
// inRetryBackoff and inWaitPause): the call it runs is then inside that
// wait. The SDK announces none of its waits, and the moment between the
// last answer and the wait is too short to hit by timing, so the event
// watched for is the runtime's own account of the goroutine. It fails
// the test after a minute, a bound far above any machine's, so that a
// call that never waits there fails rather than hangs.
func awaitParked(t *testing.T, id, fn string) {
	t.Helper()
	header := "goroutine " + id + " [select"
	deadline := time.Now().Add(time.Minute)
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n == len(buf) {
			buf = make([]byte, 2*len(buf))
			continue
		}
		for _, g := range strings.Split(string(buf[:n]), "\n\n") {
			head, frames, _ := strings.Cut(g, "\n")
			if strings.HasPrefix(head, header) && strings.HasPrefix(frames, fn+"(") {
				return
			}
		}
		if time.Now().After(deadline) {
			require.FailNow(t, fmt.Sprintf("goroutine %s did not wait in %s within a minute", id, fn))
		}
		runtime.Gosched()
	}
}

// awaitSignal returns once ch is closed; it fails the test after a
// minute, a bound far above any machine's, so that an event that never
// comes fails the test rather than hangs it.
func awaitSignal(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(time.Minute):
		require.FailNow(t, fmt.Sprintf("no %s within a minute", what))
	}
}

// awaitDone returns what done receives; it fails the test after a minute,
// a bound far above any machine's, so that a call that does not return
// fails rather than hangs.
func awaitDone(t *testing.T, done <-chan error, what string) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Minute):
		require.FailNow(t, fmt.Sprintf("%s did not return within a minute", what))
		return nil
	}
}

// ManualDeadlineContext is a context whose deadline the test reaches by
// hand: Deadline reports a time, but Done closes only when Expire is
// called, so that a test of what happens at a deadline waits for no
// clock. It is exported for the package's external tests too.
type ManualDeadlineContext struct {
	context.Context
	deadline time.Time
	done     chan struct{}
}

// NewManualDeadlineContext returns a context of parent whose deadline
// reads in from now, and that ends only when Expire is called.
func NewManualDeadlineContext(parent context.Context, in time.Duration) *ManualDeadlineContext {
	return &ManualDeadlineContext{Context: parent, deadline: time.Now().Add(in), done: make(chan struct{})}
}

// Deadline reports the deadline given to NewManualDeadlineContext.
func (c *ManualDeadlineContext) Deadline() (time.Time, bool) { return c.deadline, true }

// Done is closed by Expire.
func (c *ManualDeadlineContext) Done() <-chan struct{} { return c.done }

// Err is context.DeadlineExceeded once Expire was called, else nil.
func (c *ManualDeadlineContext) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

// Expire reaches the deadline.
func (c *ManualDeadlineContext) Expire() { close(c.done) }

// ---- Checks ----

// assertLongPolls checks that every request was a long poll of
// analysis_1.
func assertLongPolls(t *testing.T, reqs []recordedRequest) {
	t.Helper()
	for i, r := range reqs {
		assert.Equal(t, http.MethodGet, r.Method, "request %d", i)
		assert.Equal(t, "/v1/analyses/analysis_1", r.Path, "request %d", i)
		assert.Equal(t, "true", r.Query.Get("waitForReport"), "request %d", i)
		secs, err := strconv.Atoi(r.Query.Get("timeoutSeconds"))
		if assert.NoError(t, err, "request %d: timeoutSeconds %q", i, r.Query.Get("timeoutSeconds")) {
			assert.GreaterOrEqual(t, secs, 10, "request %d", i)
			assert.LessOrEqual(t, secs, 300, "request %d", i)
		}
	}
}

// namedSentinel names a sentinel error for readable failures.
type namedSentinel struct {
	name string
	err  error
}

// allSentinels is every sentinel the package exports.
var allSentinels = []namedSentinel{
	{"ErrUnauthorized", ErrUnauthorized},
	{"ErrInvalidItemIDs", ErrInvalidItemIDs},
	{"ErrReportNotAvailable", ErrReportNotAvailable},
	{"ErrCannotModifyDefaultFolder", ErrCannotModifyDefaultFolder},
	{"ErrCannotDeleteDefaultFolder", ErrCannotDeleteDefaultFolder},
	{"ErrProfileNotFound", ErrProfileNotFound},
	{"ErrFolderNotFound", ErrFolderNotFound},
	{"ErrItemNotFound", ErrItemNotFound},
	{"ErrAnalysisNotFound", ErrAnalysisNotFound},
	{"ErrAnalysisInProgress", ErrAnalysisInProgress},
	{"ErrValidation", ErrValidation},
	{"ErrWorkflowNotFound", ErrWorkflowNotFound},
	{"ErrMethodNotAllowed", ErrMethodNotAllowed},
	{"ErrUnsupportedMediaType", ErrUnsupportedMediaType},
	{"ErrPayloadTooLarge", ErrPayloadTooLarge},
	{"ErrRateLimited", ErrRateLimited},
	{"ErrServiceUnavailable", ErrServiceUnavailable},
	{"ErrNotFound", ErrNotFound},
	{"ErrServer", ErrServer},
	{"ErrAnalysisFailed", ErrAnalysisFailed},
	{"ErrWaitTimeout", ErrWaitTimeout},
	{"ErrInvalidID", ErrInvalidID},
	{"ErrNotPDF", ErrNotPDF},
	{"ErrRequestTimeout", ErrRequestTimeout},
	{"ErrOutcomeUnknown", ErrOutcomeUnknown},
}

// assertMatchesOnly checks that err matches exactly the sentinels in
// want, and no other sentinel of the package.
func assertMatchesOnly(t *testing.T, err error, want ...error) {
	t.Helper()
	for _, s := range allSentinels {
		expected := slices.Contains(want, s.err)
		assert.Equal(t, expected, errors.Is(err, s.err), "errors.Is(%v, %s)", err, s.name)
	}
}

// newDebugLogger returns a debug-level JSON logger writing to a buffer.
func newDebugLogger() (*slog.Logger, *testutil.LockedBuffer) {
	buf := &testutil.LockedBuffer{}
	return slog.New(slog.NewJSONHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug})), buf
}

// assertLogLinesWithout checks that every line is JSON and that none
// holds secret.
func assertLogLinesWithout(t *testing.T, logs, secret string) {
	t.Helper()
	for _, line := range strings.Split(strings.TrimSpace(logs), "\n") {
		var v map[string]any
		assert.NoError(t, json.Unmarshal([]byte(line), &v), "log line %q", line)
		assert.NotContains(t, line, secret)
	}
}

// ---- JSON and golden files ----

// readGolden returns the bytes of testdata/name.
func readGolden(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err, "reading golden file")
	return b
}

// analysisFromGolden decodes the analysis of a golden file through
// GetAnalysis.
func analysisFromGolden(t *testing.T, file string) *Analysis {
	t.Helper()
	srv := jsonServer(t, readGolden(t, file))
	a, err := srv.client(t).GetAnalysis(context.Background(), "analysis_x", nil)
	require.NoError(t, err, "GetAnalysis")
	return a
}

// jsonValue decodes JSON text for comparison; empty text is nil, like
// null.
func jsonValue(b []byte) any {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return "invalid JSON: " + err.Error() + ": " + string(b)
	}
	return v
}

// dropNulls removes, recursively, the members of objects whose value is
// null, so that an absent member and a null one compare equal.
func dropNulls(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			if e != nil {
				out[k] = dropNulls(e)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = dropNulls(e)
		}
		return out
	}
	return v
}

// jsonDiff reports how got differs from want as JSON values; with
// nullIsAbsent, a null member and an absent one are the same.
func jsonDiff(t testing.TB, want, got []byte, nullIsAbsent bool) string {
	t.Helper()
	var w, g any
	require.NoError(t, json.Unmarshal(want, &w), "want is not JSON")
	require.NoError(t, json.Unmarshal(got, &g), "got is not JSON:\n%s", got)
	if nullIsAbsent {
		w, g = dropNulls(w), dropNulls(g)
	}
	return cmp.Diff(w, g)
}

// ---- Endpoint cases ----

// userAgentPattern is the form of the SDK's User-Agent header.
var userAgentPattern = regexp.MustCompile(`^profilesvc-go/\d+\.\d+\.\d+ go/\S+$`)

// endpointCase is one call of an endpoint and what the service must
// receive.
type endpointCase struct {
	name string
	// status, contentType and resp make the answer: default 200,
	// application/json.
	status      int
	contentType string
	resp        string
	header      map[string]string
	call        func(ctx context.Context, c *Client) (any, error)

	method string
	path   string // as sent, escaped
	query  url.Values
	accept string // default application/json
	// body is the JSON the request must carry, compared as a value; empty
	// for a request without a body.
	body   string
	upload *wantUpload
	// check looks at what the call returned.
	check func(t *testing.T, got any)
}

// wantUpload is the multipart/form-data body an upload must send.
type wantUpload struct {
	filename    string
	contentType string
	data        []byte
	// name is the "name" field; absent when empty.
	name string
	// metadata is the JSON of the "metadata" field; absent when empty.
	metadata string
	// streamed: the reader cannot be rewound or measured, so the body is
	// sent chunked; otherwise the request carries its Content-Length.
	streamed bool
}

// runEndpointCases runs each case against a server that answers as the
// case says, and checks the one request the service received and what
// the call returned.
func runEndpointCases(t *testing.T, cases []endpointCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
				for k, v := range tc.header {
					w.Header().Set(k, v)
				}
				status := tc.status
				if status == 0 {
					status = http.StatusOK
				}
				if status == http.StatusNoContent {
					w.WriteHeader(status)
					return
				}
				ct := tc.contentType
				if ct == "" {
					ct = "application/json"
				}
				w.Header().Set("Content-Type", ct)
				w.WriteHeader(status)
				_, _ = io.WriteString(w, tc.resp)
			})
			c := srv.client(t, WithMaxRetries(0))
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()

			got, err := tc.call(ctx, c)
			require.NoError(t, err, "call")
			reqs := srv.requests()
			require.Len(t, reqs, 1, "the service received %d requests, want 1", len(reqs))
			checkRequest(t, tc, reqs[0])
			tc.check(t, got)
		})
	}
}

// checkID returns a check that the result's ID field is id.
func checkID(id string) func(t *testing.T, got any) {
	return func(t *testing.T, got any) {
		t.Helper()
		var gotID string
		switch v := got.(type) {
		case *Profile:
			gotID = v.ID
		case *Folder:
			gotID = v.ID
		case *Item:
			gotID = v.ID
		case *Analysis:
			gotID = v.ID
		case string:
			gotID = v
		default:
			require.FailNow(t, "unexpected result", "%T", got)
		}
		assert.Equal(t, id, gotID, "returned ID")
	}
}

// checkPage returns a check that the result is a page holding ids and
// next.
func checkPage[T any](next string, ids ...string) func(t *testing.T, got any) {
	return func(t *testing.T, got any) {
		t.Helper()
		p, ok := got.(*Page[T])
		require.True(t, ok, "unexpected result %T", got)
		var gotIDs []string
		for _, e := range p.Items {
			var probe struct {
				ID string `json:"id"`
			}
			b, err := json.Marshal(e)
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(b, &probe))
			gotIDs = append(gotIDs, probe.ID)
		}
		if diff := cmp.Diff(ids, gotIDs); diff != "" {
			t.Errorf("page entries mismatch (-want +got):\n%s", diff)
		}
		assert.Equal(t, len(ids), p.Count, "page count")
		assert.Equal(t, next, p.NextCursor, "page nextCursor")
	}
}

// checkNil checks that a call with no result returned nothing.
func checkNil(t *testing.T, got any) {
	t.Helper()
	assert.True(t, got == nil, "returned %v, want nothing", got)
}

// checkJSONBody compares a request's body with the JSON want, by value.
func checkJSONBody(t *testing.T, want string, got []byte) {
	t.Helper()
	var w, g any
	require.NoError(t, json.Unmarshal([]byte(want), &w), "bad expected body in test")
	require.NoError(t, json.Unmarshal(got, &g), "request body is not JSON: %q", got)
	if diff := cmp.Diff(w, g); diff != "" {
		t.Errorf("request body mismatch (-want +got):\n%s", diff)
	}
}

// checkUpload parses a multipart/form-data request body and compares it
// with want: the file part and exactly the fields want names.
func checkUpload(t *testing.T, want *wantUpload, contentType string, body []byte) {
	t.Helper()
	mediaType, params, err := mime.ParseMediaType(contentType)
	require.True(t, err == nil && mediaType == "multipart/form-data" && params["boundary"] != "",
		"Content-Type = %q, want multipart/form-data with a boundary", contentType)
	mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
	fields := map[string]string{}
	var sawFile bool
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		require.NoError(t, err, "reading multipart body")
		data, err := io.ReadAll(part)
		require.NoError(t, err, "reading part %q", part.FormName())
		if part.FormName() == "file" {
			assert.False(t, sawFile, "two file parts")
			sawFile = true
			assert.Equal(t, want.filename, part.FileName(), "file part filename")
			assert.Equal(t, want.contentType, part.Header.Get("Content-Type"), "file part Content-Type")
			assert.True(t, bytes.Equal(data, want.data), "file part bytes = %q, want %q", data, want.data)
			continue
		}
		_, dup := fields[part.FormName()]
		assert.False(t, dup, "field %q sent twice", part.FormName())
		assert.Empty(t, part.FileName(), "field %q carries a filename", part.FormName())
		fields[part.FormName()] = string(data)
	}
	require.True(t, sawFile, "no part named file")
	wantFields := map[string]string{}
	if want.name != "" {
		wantFields["name"] = want.name
	}
	if want.metadata != "" {
		wantFields["metadata"] = fields["metadata"] // compared as JSON below
		var w, g any
		require.NoError(t, json.Unmarshal([]byte(want.metadata), &w), "bad expected metadata in test")
		if assert.NoError(t, json.Unmarshal([]byte(fields["metadata"]), &g), "metadata field is not JSON: %q", fields["metadata"]) {
			if assert.IsType(t, map[string]any{}, g, "metadata field %q is not a JSON object", fields["metadata"]) {
				if diff := cmp.Diff(w, g); diff != "" {
					t.Errorf("metadata field mismatch (-want +got):\n%s", diff)
				}
			}
		}
	}
	if diff := cmp.Diff(wantFields, fields); diff != "" {
		t.Errorf("multipart fields mismatch (-want +got):\n%s", diff)
	}
}

// checkRequest compares what the service received with what the case says
// it must.
func checkRequest(t *testing.T, tc endpointCase, got recordedRequest) {
	t.Helper()
	assert.Equal(t, tc.method, got.Method, "method")
	assert.Equal(t, tc.path, got.EscapedPath, "path")
	if diff := cmp.Diff(tc.query, got.Query, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("query mismatch (-want +got):\n%s", diff)
	}

	h := got.Header
	if diff := cmp.Diff([]string{testAPIKey}, h.Values("X-Api-Key")); diff != "" {
		t.Errorf("x-api-key mismatch (-want +got):\n%s", diff)
	}
	wantAccept := tc.accept
	if wantAccept == "" {
		wantAccept = "application/json"
	}
	assert.Equal(t, wantAccept, h.Get("Accept"), "Accept")
	assert.Regexp(t, userAgentPattern, h.Get("User-Agent"), "User-Agent")

	switch {
	case tc.upload != nil:
		checkUpload(t, tc.upload, h.Get("Content-Type"), got.Body)
		cl := h.Get("Content-Length")
		if tc.upload.streamed {
			assert.Empty(t, cl, "Content-Length for a reader of unknown size, want a chunked body")
		} else {
			assert.Equal(t, fmt.Sprint(len(got.Body)), cl, "Content-Length")
		}
	case tc.body != "":
		if diff := cmp.Diff([]string{"application/json"}, h.Values("Content-Type")); diff != "" {
			t.Errorf("Content-Type mismatch (-want +got):\n%s", diff)
		}
		checkJSONBody(t, tc.body, got.Body)
	default:
		v, ok := h["Content-Type"]
		assert.False(t, ok, "Content-Type = %q on a request without a body", v)
		assert.Empty(t, got.Body, "body of a request without one")
	}
}

// writeTempFile writes data to a new file named name and returns its path.
func writeTempFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, data, 0o600))
	return p
}

// ---- Uploads ----

// randomBytes returns n random bytes, the same on every run.
func randomBytes(n int) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.UintN(256))
	}
	return b
}

// formPart is one part of a multipart body.
type formPart struct {
	FileName    string
	ContentType string
	Data        []byte
}

// formParts parses a recorded multipart request into its parts by form
// name.
func formParts(t *testing.T, r recordedRequest) map[string]formPart {
	t.Helper()
	mediaType, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	require.NoError(t, err)
	require.Equal(t, "multipart/form-data", mediaType)
	mr := multipart.NewReader(bytes.NewReader(r.Body), params["boundary"])
	parts := map[string]formPart{}
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		data, err := io.ReadAll(p)
		require.NoError(t, err)
		parts[p.FormName()] = formPart{FileName: p.FileName(), ContentType: p.Header.Get("Content-Type"), Data: data}
	}
	return parts
}

// openTempFile writes content to a new file, document.pdf, and opens it;
// the file is closed when the test ends.
func openTempFile(t *testing.T, content []byte) *os.File {
	t.Helper()
	path := filepath.Join(t.TempDir(), "document.pdf")
	require.NoError(t, os.WriteFile(path, content, 0o600))
	f, err := os.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	return f
}

// readerSource is a reader given to UploadFile, with the bytes the
// service should receive.
type readerSource struct {
	name string
	make func(t *testing.T, content []byte) (io.Reader, []byte)
}

// seekableSources are readers UploadFile can rewind and send again.
var seekableSources = []readerSource{
	{"bytes.Reader", func(t *testing.T, content []byte) (io.Reader, []byte) {
		return bytes.NewReader(content), content
	}},
	{"partly read bytes.Reader", func(t *testing.T, content []byte) (io.Reader, []byte) {
		r := bytes.NewReader(content)
		_, err := r.Read(make([]byte, 100))
		require.NoError(t, err)
		return r, content[100:]
	}},
	{"strings.Reader", func(t *testing.T, content []byte) (io.Reader, []byte) {
		return strings.NewReader(string(content)), content
	}},
	{"bytes.Buffer", func(t *testing.T, content []byte) (io.Reader, []byte) {
		return bytes.NewBuffer(append([]byte(nil), content...)), content
	}},
	{"os.File", func(t *testing.T, content []byte) (io.Reader, []byte) {
		return openTempFile(t, content), content
	}},
	{"os.File at an offset", func(t *testing.T, content []byte) (io.Reader, []byte) {
		f := openTempFile(t, content)
		_, err := f.Seek(1000, io.SeekStart)
		require.NoError(t, err)
		return f, content[1000:]
	}},
}

// ---- Reports ----

// closeRecorder is a report body that records whether it was closed.
type closeRecorder struct {
	io.Reader
	closed atomic.Bool
}

func (c *closeRecorder) Close() error {
	c.closed.Store(true)
	return nil
}

// dirEntries lists the names in dir.
func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// ---- Fakes ----

// startService is a fake of the service's analysis routes for one profile,
// pf_1, with the one-running-analysis rule, whose answers to start
// requests can be lost on purpose.
type startService struct {
	mu       sync.Mutex
	analyses []Analysis // oldest first
	// lose says what happens to start request number n (from 1): "" to
	// answer it, "after" to act on it and then close the connection
	// unanswered, "before" to close it without acting, "hold" to act and
	// then never answer.
	lose func(n int) string
	// listStatus, if not 0, is the error status of the listing.
	listStatus int
	starts     int
}

func (s *startService) handle(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/analyses/pf_1/analyze":
		s.start(w, r)
	case r.Method == http.MethodGet && r.URL.Path == "/v1/profiles/pf_1/analyses":
		s.list(w)
	default:
		respondError(w, http.StatusNotFound, CodeNotFound, "no route")
	}
}

func (s *startService) start(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.starts++
	how := ""
	if s.lose != nil {
		how = s.lose(s.starts)
	}
	if how == "before" {
		s.mu.Unlock()
		dropConnection(w, r)
		return
	}
	for _, a := range s.analyses {
		if !a.Status.IsTerminal() {
			s.mu.Unlock()
			if how != "" {
				dropConnection(w, r)
				return
			}
			respondError(w, http.StatusConflict, CodeAnalysisInProgress, "an analysis is running")
			return
		}
	}
	var body startAnalysisBody
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		s.mu.Unlock()
		respondError(w, http.StatusBadRequest, CodeValidation, err.Error())
		return
	}
	a := Analysis{ID: fmt.Sprintf("analysis_%d", len(s.analyses)+1), ProfileID: "pf_1", Status: AnalysisPending,
		RequestedAt: time.Now().UTC(), CreatedAt: time.Now().UTC()}
	for _, ref := range body.TargetItems {
		a.TargetItems = append(a.TargetItems, TargetItem{ItemID: ref.ItemID})
	}
	s.analyses = append(s.analyses, a)
	s.mu.Unlock()
	switch how {
	case "after":
		dropConnection(w, r)
	case "hold":
		<-r.Context().Done()
	default:
		respond(w, http.StatusAccepted, `{"id":"`+a.ID+`"}`)
	}
}

func (s *startService) list(w http.ResponseWriter) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.listStatus != 0 {
		respondError(w, s.listStatus, CodeNotFound, "no such route")
		return
	}
	items := slices.Clone(s.analyses)
	slices.Reverse(items)
	b, _ := json.Marshal(Page[Analysis]{Count: len(items), Items: items})
	respond(w, http.StatusOK, string(b))
}

// running adds an analysis that is already running, of the given items,
// requested at the given time.
func (s *startService) running(requestedAt time.Time, items ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := Analysis{ID: fmt.Sprintf("analysis_%d", len(s.analyses)+1), ProfileID: "pf_1", Status: AnalysisProcessing,
		RequestedAt: requestedAt, CreatedAt: requestedAt}
	for _, id := range items {
		a.TargetItems = append(a.TargetItems, TargetItem{ItemID: id})
	}
	s.analyses = append(s.analyses, a)
}

func (s *startService) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.analyses)
}

// middlewareLog is a Middleware that appends what it saw to a shared list,
// under a lock: attempts may come from any goroutine.
type middlewareLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *middlewareLog) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, s)
}

func (l *middlewareLog) get() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...)
}

// named returns a middleware that logs "name>" before and "<name STATUS"
// after the rest of the chain.
func (l *middlewareLog) named(name string) Middleware {
	return func(req *http.Request, next MiddlewareNext) (*http.Response, error) {
		l.add(name + ">")
		resp, err := next(req)
		if err != nil {
			l.add("<" + name + " error")
			return resp, err
		}
		l.add("<" + name + " " + resp.Status[:3])
		return resp, err
	}
}
