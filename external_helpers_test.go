package profilesvc_test

// The helpers the package's external tests share: the end-to-end tests
// against the mock, the benchmarks and the checks of the README. A helper
// that one test alone uses stays beside that test.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

// passportText is a passport as a text item: the mock's engine finds a
// full name and a date of birth in it.
const passportText = "PASSPORT\nFull Name: Jane Doe\nDate of Birth: 1990-04-12\nPassport Number: X1234567\nExpiry Date: 2031-05-01\n"

// newFakeClock returns a clock for the mock that moves only when the test
// moves it.
func newFakeClock() *mockserver.FakeClock {
	return mockserver.NewFakeClock(time.Date(2030, 3, 1, 9, 0, 0, 0, time.UTC))
}

// awaitTimers returns once at least n timers wait on clock: the mock holds
// a long poll (its timeout is such a timer) or has armed an analysis's
// run. It fails the test after a minute, a bound far above any machine's,
// so that a timer never armed fails the test rather than hangs it.
func awaitTimers(t *testing.T, clock *mockserver.FakeClock, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	require.NoError(t, clock.BlockUntil(ctx, n))
}

// requireAPIError checks that err is an *APIError matching the sentinel,
// with the status, the code and a message, and returns it.
func requireAPIError(t *testing.T, err error, sentinel error, status int, code string) *profilesvc.APIError {
	t.Helper()
	require.Error(t, err, "no error, want %v (%d %s)", sentinel, status, code)
	assert.ErrorIs(t, err, sentinel)
	var apiErr *profilesvc.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, status, apiErr.StatusCode, "APIError status")
	assert.Equal(t, code, apiErr.Code, "APIError code")
	assert.NotEmpty(t, strings.TrimSpace(apiErr.Message), "APIError without a message: %+v", apiErr)
	return apiErr
}

// newProfileWithItem creates a profile with the passport as a text item
// through the SDK.
func newProfileWithItem(t *testing.T, c *profilesvc.Client) (*profilesvc.Profile, *profilesvc.Item) {
	t.Helper()
	ctx := t.Context()
	p, err := c.CreateProfile(ctx, mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Jane Doe"})
	require.NoError(t, err, "CreateProfile")
	it, err := c.CreateTextItem(ctx, p.DefaultFolder().ID, passportText, profilesvc.CreateItemParams{Name: "passport"})
	require.NoError(t, err, "CreateTextItem")
	return p, it
}

// requestsTo returns the requests of a method and path the mock recorded.
func requestsTo(srv *mockserver.Server, method, path string) []mockserver.RecordedRequest {
	var out []mockserver.RecordedRequest
	for _, r := range srv.Requests() {
		if r.Method == method && r.Path == path {
			out = append(out, r)
		}
	}
	return out
}

// fencedBlocks returns the fenced code blocks of a language in Markdown
// text.
func fencedBlocks(text, lang string) []string {
	var out []string
	for _, part := range strings.Split(text, "```"+lang+"\n")[1:] {
		if end := strings.Index(part, "```"); end >= 0 {
			out = append(out, part[:end])
		}
	}
	return out
}

// ---- The benchmarks' fixture ----

// typicalDocuments are the documents of a typical analysis: a passport, a
// bank statement and a utility bill, by file name.
var typicalDocuments = [][2]string{
	{"passport.txt", "PASSPORT\nFull Name: Jane Doe\nDate of Birth: 1990-04-12\nPassport Number: X1234567\nExpiry Date: 2031-05-01\nAddress: 12 Harbour Road, Busan\n"},
	{"bank_statement.txt", "BANK STATEMENT\nAccount Holder: Jane Doe\nFull Name: Jane Doe\nAddress: 12 Harbour Road, Busan\nAccount Number: 110-234-567890\nMonthly Income: 4200\n"},
	{"utility_bill.txt", "UTILITY BILL\nElectricity\nCustomer Name: Jane Doe\nFull Name: Jane Doe\nAddress: 12 Harbour Road, Busan\nAmount Due: 84.20\n"},
}

// keepAliveTransport is the keep-alive transport both sides of a
// comparison get, each its own instance with the same settings.
func keepAliveTransport() *http.Transport {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns = 64
	tr.MaxIdleConnsPerHost = 64
	return tr
}

// getAnalysisFixture is a mock with one completed analysis, an SDK client
// and a bare client for it.
type getAnalysisFixture struct {
	srv  *mockserver.Server
	id   string
	url  string // GET /v1/analyses/{id}
	sdk  *profilesvc.Client
	bare *http.Client
	ua   string
}

// newGetAnalysisFixture starts a manual mock, runs a typical analysis to
// completion and warms both clients' connections. Everything is closed
// when the benchmark ends.
func newGetAnalysisFixture(b *testing.B) *getAnalysisFixture {
	b.Helper()
	srv := mockserver.New(mockserver.WithManualAnalyses())
	b.Cleanup(srv.Close)
	sdkTr, bareTr := keepAliveTransport(), keepAliveTransport()
	b.Cleanup(sdkTr.CloseIdleConnections)
	b.Cleanup(bareTr.CloseIdleConnections)

	p, err := srv.CreateProfile(mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Jane Doe"})
	require.NoError(b, err, "CreateProfile")
	fid := p.DefaultFolder().ID
	var ids []string
	for _, doc := range typicalDocuments {
		it, err := srv.AddTextItem(fid, doc[0], doc[1])
		require.NoError(b, err, "AddTextItem")
		ids = append(ids, it.ID)
	}
	sdk := srv.Client(profilesvc.WithHTTPClient(&http.Client{Transport: sdkTr}))
	ctx := context.Background()
	id, err := sdk.StartAnalysis(ctx, p.ID, profilesvc.StartAnalysisParams{ItemIDs: ids})
	require.NoError(b, err, "StartAnalysis")
	require.NoError(b, srv.CompleteAnalysis(id), "CompleteAnalysis")
	f := &getAnalysisFixture{
		srv:  srv,
		id:   id,
		url:  srv.URL + "/v1/analyses/" + id,
		sdk:  sdk,
		bare: &http.Client{Transport: bareTr},
		ua:   "profilesvc-go/" + profilesvc.Version + " bench",
	}
	for range 10 {
		require.NoError(b, f.getSDK(ctx))
		require.NoError(b, f.getBare(ctx))
	}
	return f
}

// getSDK reads the analysis through the SDK.
func (f *getAnalysisFixture) getSDK(ctx context.Context) error {
	a, err := f.sdk.GetAnalysis(ctx, f.id, nil)
	if err != nil {
		return fmt.Errorf("sdk: %w", err)
	}
	if a.ID != f.id || a.Status != profilesvc.AnalysisCompleted {
		return fmt.Errorf("sdk: got analysis %q %s, want %q completed", a.ID, a.Status, f.id)
	}
	return nil
}

// getBare reads the analysis with net/http and json.Unmarshal, sending the
// headers the SDK sends.
func (f *getAnalysisFixture) getBare(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("x-api-key", f.srv.APIKey)
	req.Header.Set("User-Agent", f.ua)
	req.Header.Set("Accept", "application/json")
	resp, err := f.bare.Do(req)
	if err != nil {
		return fmt.Errorf("bare: %w", err)
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return fmt.Errorf("bare: reading the answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("bare: status %d: %.200s", resp.StatusCode, body)
	}
	var a profilesvc.Analysis
	if err := json.Unmarshal(body, &a); err != nil {
		return fmt.Errorf("bare: decoding: %w", err)
	}
	if a.ID != f.id || a.Status != profilesvc.AnalysisCompleted {
		return fmt.Errorf("bare: got analysis %q %s, want %q completed", a.ID, a.Status, f.id)
	}
	return nil
}
