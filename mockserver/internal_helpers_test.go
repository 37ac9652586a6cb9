package mockserver

// The shared helpers of the mock server's internal tests (package
// mockserver): requests to a running server and checks of their answers,
// requests written on raw connections, the documents the engine reads, the fixtures of the report tests, a
// clock that tells a test when the server holds a long poll, a request as
// the middleware's stages see it, and the option by which the external
// tests hear a long poll wait.

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver/engine"
	"github.com/profilesvc/profilesvc-go/mockserver/internal/report"
)

// ---------------------------------------------------------------------
// Requests to a running server.

// rawClient never follows redirects.
var rawClient = &http.Client{
	Timeout: 30 * time.Second,
	CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	},
}

// response is an answer read in full.
type response struct {
	status int
	header http.Header
	body   []byte
}

func (r *response) String() string {
	b := r.body
	if len(b) > 400 {
		b = b[:400]
	}
	return fmt.Sprintf("%d %q", r.status, b)
}

// recorded is the answer a handler wrote to a recorder.
func recorded(rec *httptest.ResponseRecorder) *response {
	return &response{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
}

// send sends a request to srv with the server's API key.
func send(t *testing.T, srv *Server, method, path, contentType string, body []byte) *response {
	t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, srv.URL+path, rd)
	require.NoError(t, err, "building %s %s", method, path)
	req.Header.Set("x-api-key", srv.APIKey)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := rawClient.Do(req)
	require.NoError(t, err, "%s %s", method, path)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err, "reading the answer to %s %s", method, path)
	return &response{status: resp.StatusCode, header: resp.Header, body: b}
}

// wantError checks an error answer's status, its code and the status in
// its body, and that its message names each of msgHas.
func wantError(t *testing.T, r *response, status int, code string, msgHas ...string) {
	t.Helper()
	require.Equal(t, status, r.status, "status of the answer %s", r)
	var e struct {
		Error struct {
			Code    string `json:"code"`
			Status  int    `json:"status"`
			Message string `json:"message"`
		} `json:"error"`
	}
	require.NoError(t, json.Unmarshal(r.body, &e), "the error answer is not JSON: %s", r)
	require.True(t, e.Error.Code == code && e.Error.Status == status, "error = %s/%d, want %s/%d; answer %s", e.Error.Code, e.Error.Status, code, status, r)
	for _, s := range msgHas {
		assert.Contains(t, e.Error.Message, s, "the error's message must name %q", s)
	}
}

// startOverHTTP starts an analysis of items over HTTP and returns its ID.
func startOverHTTP(t *testing.T, srv *Server, profileID string, itemIDs ...string) string {
	t.Helper()
	id, err := startAnalysisOverHTTP(t.Context(), srv, profileID, itemIDs...)
	require.NoError(t, err)
	return id
}

// startAnalysisOverHTTP is startOverHTTP for a caller without a test.
func startAnalysisOverHTTP(ctx context.Context, srv *Server, profileID string, itemIDs ...string) (string, error) {
	refs := make([]map[string]string, len(itemIDs))
	for i, id := range itemIDs {
		refs[i] = map[string]string{"itemId": id}
	}
	body, _ := json.Marshal(map[string]any{"targetItems": refs})
	req, err := http.NewRequestWithContext(ctx, "POST", srv.URL+"/v1/analyses/"+profileID+"/analyze", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("x-api-key", srv.APIKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := rawClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("starting the analysis: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", fmt.Errorf("reading the start answer: %w", err)
	}
	var out struct {
		ID string `json:"id"`
	}
	if resp.StatusCode != http.StatusAccepted || json.Unmarshal(b, &out) != nil || out.ID == "" {
		return "", fmt.Errorf("starting the analysis: %d %q", resp.StatusCode, b)
	}
	return out.ID, nil
}

// ---------------------------------------------------------------------
// Requests on raw connections, for the request targets, methods and
// headers that net/http's client would clean or refuse to send.

// hostileAnswer is an answer read off a raw connection.
type hostileAnswer struct {
	status int
	header http.Header
	body   []byte
}

// hostileRaw writes head (a request line and headers, without the final
// blank line) on a new connection to srv and reads one answer.
func hostileRaw(t testing.TB, srv *Server, method string, head string) hostileAnswer {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	require.NoError(t, err, "dialling the server")
	defer c.Close()
	_, err = io.WriteString(c, head+"\r\nConnection: close\r\n\r\n")
	require.NoError(t, err, "writing the request %q", head)
	resp, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: method})
	require.NoError(t, err, "reading the answer to %q", head)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err, "reading the body of the answer to %q", head)
	return hostileAnswer{resp.StatusCode, resp.Header, b}
}

// hostileReq sends "METHOD target HTTP/1.1" with the server's key.
func hostileReq(t testing.TB, srv *Server, method, target string) hostileAnswer {
	t.Helper()
	return hostileRaw(t, srv, method, method+" "+target+" HTTP/1.1\r\nHost: mock\r\nX-Api-Key: "+srv.APIKey)
}

// hostileErr decodes the service's error body; ok is false if the body is
// not one (not JSON, or without an error, a code or a message).
func hostileErr(a hostileAnswer) (code string, status int, ok bool) {
	var e struct {
		Error *struct {
			Code    string `json:"code"`
			Status  int    `json:"status"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(a.body, &e) != nil || e.Error == nil || e.Error.Code == "" || e.Error.Message == "" {
		return "", 0, false
	}
	return e.Error.Code, e.Error.Status, true
}

// ---------------------------------------------------------------------
// Documents the engine reads (package engine's tests have them too).

const (
	passportText = "PASSPORT\nFull Name: Jane Doe\nDate of Birth: 1990-04-12\nPassport Number: X1234567\nExpiry Date: 2031-05-01\nNationality: Canadian\n"
	bankText     = "Bank statement\nAccount holder: Jane Doe\nAddress: 12 Elm Street, Springfield\nDate of birth: 12/04/1990\nAccount number: 12345678\n"
)

// startScripted starts an analysis of one text item on srv and returns its
// ID: the item's name, text and metadata may hold the engine's mock:
// scripts.
func startScripted(t *testing.T, srv *Server, name, text string, metadata map[string]any) string {
	t.Helper()
	p, err := srv.CreateProfile(DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Scripted"})
	require.NoError(t, err)
	content, _ := json.Marshal(text)
	it, err := srv.AddItem(p.Folders[0].ID, SeedItem{Type: profilesvc.ItemText, Name: name, Content: content, Metadata: metadata})
	require.NoError(t, err)
	id, e := srv.startAnalysis(p.ID, []string{it.ID}, nil, nil)
	require.Nil(t, e, "startAnalysis")
	return id
}

// ---------------------------------------------------------------------
// The fixtures of the report tests.

// fixtureStart is the fake clock's start in every report and PDF test.
var fixtureStart = time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)

// fixtureRunTime is how long the fixture's analysis runs on the fake
// clock: long enough for the completed time to differ from the requested
// one.
const fixtureRunTime = 95 * time.Second

const (
	fixtureProfileName = "Jane Doe 김지은"
	fixturePassport    = "PASSPORT\nFull Name: Jane Doe\nDate of Birth: 1990-04-12\nPassport Number: X1234567\nExpiry Date: 2031-05-01\nAddress: 12 Harbour Road, Busan\n"
	fixtureStatement   = "BANK STATEMENT\nAccount Holder: Jane Doe\nFull Name: Jane Doe\nAddress: 12 Harbour Road, Busan\nAccount Number: 110-234-567890\nMonthly Income: 4200\n"
	fixtureBill        = "UTILITY BILL\nElectricity\nCustomer Name: Jane Doe\nFull Name: Jane Doe\nAddress: 12 Harbour Road, Busan\nAmount Due: 84.20\n"
)

// fixtureDocs are the fixture's documents: a passport and a bank
// statement, each a name and a text.
var fixtureDocs = [][2]string{{"passport.txt", fixturePassport}, {"bank_statement.txt", fixtureStatement}}

// reportFixture is a server with a completed analysis of two documents.
type reportFixture struct {
	srv      *Server
	clock    *FakeClock
	profile  *profilesvc.Profile
	id       string
	analysis *profilesvc.Analysis
	docs     [][2]string // the documents analysed: names and texts
}

// newReportFixture starts a manual server on a fake clock with a fixed ID
// seed, and runs one analysis of a passport and a bank statement to
// completion over HTTP.
func newReportFixture(t *testing.T, profileName string, opts ...Option) *reportFixture {
	t.Helper()
	return newReportFixtureOf(t, profileName, fixtureDocs, opts...)
}

// newReportFixtureOf is newReportFixture with other documents.
func newReportFixtureOf(t *testing.T, profileName string, docs [][2]string, opts ...Option) *reportFixture {
	t.Helper()
	clock := NewFakeClock(fixtureStart)
	srv := NewTest(t, append([]Option{WithManualAnalyses(), WithClock(clock), WithIDSeed(42)}, opts...)...)
	f, err := fillReportFixture(t.Context(), srv, clock, profileName, docs)
	require.NoError(t, err, "the report fixture")
	return f
}

// fillReportFixture makes the profile, the documents and the completed
// analysis of a report fixture on srv, a manual server on clock.
func fillReportFixture(ctx context.Context, srv *Server, clock *FakeClock, profileName string, docs [][2]string) (*reportFixture, error) {
	p, err := srv.CreateProfile(DefaultWorkflowID, profilesvc.CreateProfileParams{Name: profileName})
	if err != nil {
		return nil, fmt.Errorf("CreateProfile: %w", err)
	}
	if len(p.Folders) == 0 {
		return nil, fmt.Errorf("profile %s has no default folder", p.ID)
	}
	fid := p.Folders[0].ID
	var itemIDs []string
	for _, doc := range docs {
		add := srv.AddTextItem
		if fixtureIsImage(doc[0]) {
			add = func(folderID, name, data string) (*profilesvc.Item, error) {
				return srv.AddFileItem(folderID, name, []byte(data))
			}
		}
		it, err := add(fid, doc[0], doc[1])
		if err != nil {
			return nil, fmt.Errorf("adding %s: %w", doc[0], err)
		}
		itemIDs = append(itemIDs, it.ID)
	}
	id, err := startAnalysisOverHTTP(ctx, srv, p.ID, itemIDs...)
	if err != nil {
		return nil, err
	}
	if err := srv.StartProcessing(id); err != nil {
		return nil, fmt.Errorf("StartProcessing: %w", err)
	}
	clock.Advance(fixtureRunTime)
	if err := srv.CompleteAnalysis(id); err != nil {
		return nil, fmt.Errorf("CompleteAnalysis: %w", err)
	}
	a, ok := srv.Analysis(id)
	switch end := fixtureStart.Add(fixtureRunTime); {
	case !ok || a.Status != profilesvc.AnalysisCompleted:
		return nil, fmt.Errorf("analysis %s did not complete: %+v", id, a)
	case a.CompletedAt == nil || !a.CompletedAt.Equal(end):
		return nil, fmt.Errorf("completedAt = %v, want %v", a.CompletedAt, end)
	case a.RiskAssessment == nil || len(a.Findings) == 0 || len(a.Recommendations) == 0:
		return nil, fmt.Errorf("the fixture's analysis needs a risk assessment, findings and recommendations: %+v", a)
	}
	return &reportFixture{srv: srv, clock: clock, profile: p, id: id, analysis: a, docs: docs}, nil
}

// sharedFixture is the report fixture of fixtureProfileName and the
// passport and bank statement, made once for the tests that only read it
// and download its reports: its server renders each variant once, and
// serves it from its cache after. TestMain closes it.
var sharedFixture struct {
	once     sync.Once
	srv      *Server
	f        *reportFixture
	err      error
	mu       sync.Mutex
	problems []error // exchanges that disagree with api/openapi.yaml
}

// sharedReportFixture returns the shared report fixture. When t ends, it
// fails t on any exchange of the fixture's server that has disagreed
// with api/openapi.yaml, as NewTest's servers do.
func sharedReportFixture(t *testing.T) *reportFixture {
	t.Helper()
	s := &sharedFixture
	s.once.Do(func() {
		clock := NewFakeClock(fixtureStart)
		s.srv = New(WithManualAnalyses(), WithClock(clock), WithIDSeed(42), WithOpenAPICheck(func(err error) {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.problems = append(s.problems, err)
		}))
		s.f, s.err = fillReportFixture(context.Background(), s.srv, clock, fixtureProfileName, fixtureDocs)
	})
	require.NoError(t, s.err, "the shared report fixture")
	t.Cleanup(func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, err := range s.problems {
			t.Errorf("the shared report fixture's exchange disagrees with api/openapi.yaml: %v", err)
		}
	})
	return s.f
}

// closeSharedFixture closes the shared report fixture's server, if it was
// made.
func closeSharedFixture() {
	if sharedFixture.srv != nil {
		sharedFixture.srv.Close()
	}
}

// fixtureIsImage reports whether a fixture's document is a PNG image,
// which is uploaded as a file; the others are text items.
func fixtureIsImage(name string) bool { return strings.HasSuffix(name, ".png") }

// fixtureMismatchDocs are documents that disagree: a passport that has
// expired, a bank statement with another date of birth, a utility bill
// that agrees with the passport, and a photograph no text can be read
// from.
var fixtureMismatchDocs = [][2]string{
	{"passport.txt", "PASSPORT\nFull Name: Kim Min-jun\nDate of Birth: 1988-11-02\nNationality: Korean\nPassport Number: M12345678\nExpiry Date: 2020-05-01\n"},
	{"bank_statement.txt", "BANK STATEMENT\nAccount Holder: Kim Min-jun\nDate of Birth: 1989-11-02\nAddress: 7 Sejong-daero, Seoul\nAccount Number: 110-234-567890\n"},
	{"utility_bill.txt", "UTILITY BILL\nElectricity\nCustomer Name: Kim Min-jun\nDate of Birth: 02/11/1988\nAddress: 7 Sejong-daero, Seoul\n"},
	{"selfie.png", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00"},
}

// reportDataOf is what the report of the fixture's analysis must show: the
// analysis, its profile's name, the default workflow, the default
// engine's risk thresholds, the documents as uploaded (created at the
// clock's start) with the size and digest of their bytes, and the facts
// the engine gives of the analysis's input.
func reportDataOf(t *testing.T, f *reportFixture, locale string, raw bool) report.Data {
	t.Helper()
	d := report.Data{Analysis: *f.analysis, ProfileName: f.profile.Name, WorkflowID: DefaultWorkflowID,
		WorkflowName: DefaultWorkflow().Name, Locale: locale, RawData: raw,
		MediumRiskFrom: engine.MediumRiskFrom, HighRiskFrom: engine.HighRiskFrom}
	require.Len(t, f.analysis.TargetItems, len(f.docs), "the analysis's target items, against the fixture's documents")
	for i, ti := range f.analysis.TargetItems {
		sum := sha256.Sum256([]byte(f.docs[i][1]))
		typ, ct := profilesvc.ItemText, "text/plain"
		if fixtureIsImage(f.docs[i][0]) {
			typ, ct = profilesvc.ItemFile, "image/png"
		}
		d.Documents = append(d.Documents, report.Document{ItemID: ti.ItemID, Name: f.docs[i][0], Type: typ,
			ContentType: ct, UploadedAt: fixtureStart, Size: int64(len(f.docs[i][1])), SHA256: hex.EncodeToString(sum[:])})
	}
	f.srv.store.tenantMu.Lock()
	in := f.srv.store.st.analyses[f.id].input
	f.srv.store.tenantMu.Unlock()
	in.AnalysisID = f.id
	res, err := engine.Default(t.Context(), in)
	require.NoError(t, err, "engine.Default")
	d.Facts = res.Facts
	return d
}

// getReport downloads a report; query is "" or "locale=ko&...".
func getReport(t *testing.T, srv *Server, analysisID, query string) *response {
	t.Helper()
	path := "/v1/analyses/" + analysisID + "/report"
	if query != "" {
		path += "?" + query
	}
	return send(t, srv, "GET", path, "", nil)
}

// wantPDF downloads a report and checks that it is a PDF.
func wantPDF(t *testing.T, srv *Server, analysisID, query string) []byte {
	t.Helper()
	r := getReport(t, srv, analysisID, query)
	require.Equal(t, http.StatusOK, r.status, "GET report?%s: %s", query, r)
	assert.Equal(t, "application/pdf", r.header.Get("Content-Type"), "Content-Type")
	cd := r.header.Get("Content-Disposition")
	assert.True(t, strings.Contains(cd, "attachment") && strings.Contains(cd, analysisID), "Content-Disposition = %q, want an attachment named after %s", cd, analysisID)
	require.True(t, bytes.HasPrefix(r.body, []byte("%PDF-1.")) && bytes.Contains(r.body[max(0, len(r.body)-64):], []byte("%%EOF")),
		"the report is not a whole PDF: %d bytes starting %q", len(r.body), r.body[:min(16, len(r.body))])
	return r.body
}

// firstDiff is the offset of the first byte where a and b differ.
func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// ---------------------------------------------------------------------
// Clocks.

// holdClock is the real clock, telling the test each time a timer of the
// given length is set: the long polls' timeouts, so that the test knows
// when the server holds them. It also counts the timers armed and not yet
// fired nor stopped.
type holdClock struct {
	realClock
	hold time.Duration
	held chan struct{}
	// released, if set, hears of each such timer stopped: a long poll let
	// go of.
	released chan struct{}

	mu    sync.Mutex
	armed int
}

func (c *holdClock) AfterFunc(d time.Duration, f func()) func() bool {
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
	signal(c.held)
	return func() bool {
		ok := counted()
		signal(c.released)
		return ok
	}
}

// armedTimers returns how many timers are armed and have neither fired
// nor been stopped.
func (c *holdClock) armedTimers() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.armed
}

// signal sends on ch without ever blocking the server: a nil channel, or
// one whose buffer is full, is skipped.
func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// waitSignal waits for a signal on ch, failing the test with what if none
// comes within a generous bound.
func waitSignal(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(time.Minute):
		require.FailNowf(t, "no signal", "%s within a minute", what)
	}
}

// ---------------------------------------------------------------------
// A request as the middleware's stages see it.

// newExchange gives r the exchange ServeHTTP would, writing to a
// recorder, and puts it in r's context under exchangeKey{}; it returns
// the exchange, the request that carries it and the recorder.
func newExchange(srv *Server, r *http.Request) (*exchange, *http.Request, *httptest.ResponseRecorder) {
	rec := httptest.NewRecorder()
	x := &exchange{ResponseWriter: rec, srv: srv, requestID: srv.reqIDs.next("req_"), start: time.Now()}
	return x, r.WithContext(context.WithValue(r.Context(), exchangeKey{}, x)), rec
}

// probe is the next handler of a stage under test: it notes that it ran,
// and then does what it is given, if anything.
type probe struct {
	ran   bool
	serve func(w http.ResponseWriter, r *http.Request)
}

func (p *probe) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.ran = true
	if p.serve != nil {
		p.serve(w, r)
	}
}

// newHandlerServer makes a server that does not listen, for the tests
// that call its handlers directly; it is closed when the test ends.
func newHandlerServer(t *testing.T, opts ...Option) *Server {
	t.Helper()
	srv, err := NewHandler(opts...)
	require.NoError(t, err, "NewHandler")
	t.Cleanup(srv.Close)
	return srv
}

// ---------------------------------------------------------------------
// For the external tests (package mockserver_test, which shares this
// test binary).

// WithPollWaits has the server signal on waits, without ever blocking it,
// each time a long poll has read its analysis, found it not done, and
// waits for the analysis's next change. A poll that has seen a change
// signals again once it has let the change pass; one that answered does
// not. Give waits room for every wait the test does not receive.
func WithPollWaits(waits chan struct{}) Option {
	return func(c *config) { c.pollWaiting = func() { signal(waits) } }
}
