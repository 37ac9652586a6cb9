package mockserver

// Tests of the report endpoint: that it serves what package report renders
// from the analysis and the names around it, for each variant; that two
// servers with the same clock and ID seed serve the same bytes; and the
// report cache. What a report shows, its structure and its metadata are
// tested in package report, on analyses the engine made here
// (TestReportFixtures keeps them current). Every helper here starts with
// "pdfT".

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver/engine"
	"github.com/profilesvc/profilesvc-go/mockserver/internal/pdftest"
	"github.com/profilesvc/profilesvc-go/mockserver/internal/report"
)

// pdfTUpdate rewrites the report package's fixtures from the engine.
var pdfTUpdate = flag.Bool("update", false, "rewrite internal/report/testdata from the engine's analyses")

// pdfTStart is the fake clock's start in every report test.
var pdfTStart = time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)

// pdfTRunTime is how long the fixture's analysis runs on the fake clock:
// long enough for the completed time to differ from the requested one.
const pdfTRunTime = 95 * time.Second

const (
	pdfTProfileName = "Jane Doe 김지은"
	pdfTPassport    = "PASSPORT\nFull Name: Jane Doe\nDate of Birth: 1990-04-12\nPassport Number: X1234567\nExpiry Date: 2031-05-01\nAddress: 12 Harbour Road, Busan\n"
	pdfTStatement   = "BANK STATEMENT\nAccount Holder: Jane Doe\nFull Name: Jane Doe\nAddress: 12 Harbour Road, Busan\nAccount Number: 110-234-567890\nMonthly Income: 4200\n"
	pdfTBill        = "UTILITY BILL\nElectricity\nCustomer Name: Jane Doe\nFull Name: Jane Doe\nAddress: 12 Harbour Road, Busan\nAmount Due: 84.20\n"
)

// pdfTHTTP never follows redirects.
var pdfTHTTP = &http.Client{
	Timeout: 30 * time.Second,
	CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	},
}

// pdfTResp is an answer read in full.
type pdfTResp struct {
	status int
	header http.Header
	body   []byte
}

func (r *pdfTResp) String() string {
	b := r.body
	if len(b) > 400 {
		b = b[:400]
	}
	return fmt.Sprintf("%d %q", r.status, b)
}

// pdfTDo sends a request with the server's API key.
func pdfTDo(t *testing.T, srv *Server, method, path, contentType string, body []byte) *pdfTResp {
	t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, srv.URL+path, rd)
	if err != nil {
		t.Fatalf("building %s %s: %v", method, path, err)
	}
	req.Header.Set("x-api-key", srv.APIKey)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := pdfTHTTP.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the answer to %s %s: %v", method, path, err)
	}
	return &pdfTResp{status: resp.StatusCode, header: resp.Header, body: b}
}

// pdfTWantError checks an error answer's status and code.
func pdfTWantError(t *testing.T, r *pdfTResp, status int, code string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status = %d, want %d; answer %s", r.status, status, r)
	}
	var e struct {
		Error struct {
			Code   string `json:"code"`
			Status int    `json:"status"`
		} `json:"error"`
	}
	if err := json.Unmarshal(r.body, &e); err != nil {
		t.Fatalf("error answer is not JSON: %v; answer %s", err, r)
	}
	if e.Error.Code != code || e.Error.Status != status {
		t.Fatalf("error = %s/%d, want %s/%d; answer %s", e.Error.Code, e.Error.Status, code, status, r)
	}
}

// pdfTStartAnalysis starts an analysis of items over HTTP and returns its
// ID.
func pdfTStartAnalysis(t *testing.T, srv *Server, profileID string, itemIDs ...string) string {
	t.Helper()
	refs := make([]map[string]string, len(itemIDs))
	for i, id := range itemIDs {
		refs[i] = map[string]string{"itemId": id}
	}
	body, _ := json.Marshal(map[string]any{"targetItems": refs})
	r := pdfTDo(t, srv, "POST", "/v1/analyses/"+profileID+"/analyze", "application/json", body)
	if r.status != http.StatusAccepted {
		t.Fatalf("starting the analysis: %s", r)
	}
	var out struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(r.body, &out); err != nil || out.ID == "" {
		t.Fatalf("start answer %s: %v", r, err)
	}
	return out.ID
}

// pdfTReport downloads a report; query is "" or "locale=ko&...".
func pdfTReport(t *testing.T, srv *Server, analysisID, query string) *pdfTResp {
	t.Helper()
	path := "/v1/analyses/" + analysisID + "/report"
	if query != "" {
		path += "?" + query
	}
	return pdfTDo(t, srv, "GET", path, "", nil)
}

// pdfTWantPDF downloads a report and checks that it is a PDF.
func pdfTWantPDF(t *testing.T, srv *Server, analysisID, query string) []byte {
	t.Helper()
	r := pdfTReport(t, srv, analysisID, query)
	if r.status != http.StatusOK {
		t.Fatalf("GET report?%s: %s", query, r)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/pdf" {
		t.Errorf("Content-Type = %q, want application/pdf", ct)
	}
	if cd := r.header.Get("Content-Disposition"); !strings.Contains(cd, "attachment") || !strings.Contains(cd, analysisID) {
		t.Errorf("Content-Disposition = %q, want an attachment named after %s", cd, analysisID)
	}
	if !bytes.HasPrefix(r.body, []byte("%PDF-1.")) || !bytes.Contains(r.body[max(0, len(r.body)-64):], []byte("%%EOF")) {
		t.Fatalf("the report is not a whole PDF: %d bytes starting %q", len(r.body), r.body[:min(16, len(r.body))])
	}
	return r.body
}

// pdfTFixture is a server with a completed analysis of two documents.
type pdfTFixture struct {
	srv      *Server
	clock    *FakeClock
	profile  *profilesvc.Profile
	id       string
	analysis *profilesvc.Analysis
	docs     [][2]string // the documents analysed: names and texts
}

// pdfTDocs are the fixture's documents: a passport and a bank statement,
// each a name and a text.
var pdfTDocs = [][2]string{{"passport.txt", pdfTPassport}, {"bank_statement.txt", pdfTStatement}}

// pdfTNewFixture starts a manual server on a fake clock with a fixed ID
// seed, and runs one analysis of a passport and a bank statement to
// completion over HTTP.
func pdfTNewFixture(t *testing.T, profileName string, opts ...Option) *pdfTFixture {
	t.Helper()
	return pdfTNewFixtureOf(t, profileName, pdfTDocs, opts...)
}

// pdfTNewFixtureOf is pdfTNewFixture with other documents.
func pdfTNewFixtureOf(t *testing.T, profileName string, docs [][2]string, opts ...Option) *pdfTFixture {
	t.Helper()
	clock := NewFakeClock(pdfTStart)
	srv := NewTest(t, append([]Option{WithManualAnalyses(), WithClock(clock), WithIDSeed(42)}, opts...)...)
	p, err := srv.CreateProfile(DefaultWorkflowID, profilesvc.CreateProfileParams{Name: profileName})
	if err != nil {
		t.Fatalf("CreateProfile: %v", err)
	}
	if len(p.Folders) == 0 {
		t.Fatalf("profile %s has no default folder", p.ID)
	}
	fid := p.Folders[0].ID
	var itemIDs []string
	for _, doc := range docs {
		add := srv.AddTextItem
		if pdfTIsImage(doc[0]) {
			add = func(folderID, name, data string) (*profilesvc.Item, error) {
				return srv.AddFileItem(folderID, name, []byte(data))
			}
		}
		it, err := add(fid, doc[0], doc[1])
		if err != nil {
			t.Fatalf("adding %s: %v", doc[0], err)
		}
		itemIDs = append(itemIDs, it.ID)
	}
	id := pdfTStartAnalysis(t, srv, p.ID, itemIDs...)
	if err := srv.StartProcessing(id); err != nil {
		t.Fatalf("StartProcessing: %v", err)
	}
	clock.Advance(pdfTRunTime)
	if err := srv.CompleteAnalysis(id); err != nil {
		t.Fatalf("CompleteAnalysis: %v", err)
	}
	a, ok := srv.Analysis(id)
	if !ok || a.Status != profilesvc.AnalysisCompleted {
		t.Fatalf("analysis %s did not complete: %+v", id, a)
	}
	if a.CompletedAt == nil || !a.CompletedAt.Equal(pdfTStart.Add(pdfTRunTime)) {
		t.Fatalf("completedAt = %v, want %v", a.CompletedAt, pdfTStart.Add(pdfTRunTime))
	}
	if a.RiskAssessment == nil || len(a.Findings) == 0 || len(a.Recommendations) == 0 {
		t.Fatalf("the fixture's analysis needs a risk assessment, findings and recommendations: %+v", a)
	}
	return &pdfTFixture{srv: srv, clock: clock, profile: p, id: id, analysis: a, docs: docs}
}

// pdfTIsImage reports whether a fixture's document is a PNG image, which
// is uploaded as a file; the others are text items.
func pdfTIsImage(name string) bool { return strings.HasSuffix(name, ".png") }

// pdfTMismatchDocs are documents that disagree: a passport that has
// expired, a bank statement with another date of birth, a utility bill
// that agrees with the passport, and a photograph no text can be read
// from.
var pdfTMismatchDocs = [][2]string{
	{"passport.txt", "PASSPORT\nFull Name: Kim Min-jun\nDate of Birth: 1988-11-02\nNationality: Korean\nPassport Number: M12345678\nExpiry Date: 2020-05-01\n"},
	{"bank_statement.txt", "BANK STATEMENT\nAccount Holder: Kim Min-jun\nDate of Birth: 1989-11-02\nAddress: 7 Sejong-daero, Seoul\nAccount Number: 110-234-567890\n"},
	{"utility_bill.txt", "UTILITY BILL\nElectricity\nCustomer Name: Kim Min-jun\nDate of Birth: 02/11/1988\nAddress: 7 Sejong-daero, Seoul\n"},
	{"selfie.png", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00"},
}

// pdfTReportDataOf is what the report of the fixture's analysis must
// show: the analysis, its profile's name, the default workflow, the
// default engine's risk thresholds, the documents as uploaded (text
// items, created at the clock's start) with the size and digest of their
// text, and the facts the engine gives of the analysis's input.
func pdfTReportDataOf(t *testing.T, f *pdfTFixture, locale string, raw bool) report.Data {
	t.Helper()
	d := report.Data{Analysis: *f.analysis, ProfileName: f.profile.Name, WorkflowID: DefaultWorkflowID,
		WorkflowName: DefaultWorkflow().Name, Locale: locale, RawData: raw,
		MediumRiskFrom: engine.MediumRiskFrom, HighRiskFrom: engine.HighRiskFrom}
	if len(f.analysis.TargetItems) != len(f.docs) {
		t.Fatalf("the analysis has %d target items, the fixture %d documents", len(f.analysis.TargetItems), len(f.docs))
	}
	for i, ti := range f.analysis.TargetItems {
		sum := sha256.Sum256([]byte(f.docs[i][1]))
		typ, ct := profilesvc.ItemText, "text/plain"
		if pdfTIsImage(f.docs[i][0]) {
			typ, ct = profilesvc.ItemFile, "image/png"
		}
		d.Documents = append(d.Documents, report.Document{ItemID: ti.ItemID, Name: f.docs[i][0], Type: typ,
			ContentType: ct, UploadedAt: pdfTStart, Size: int64(len(f.docs[i][1])), SHA256: hex.EncodeToString(sum[:])})
	}
	f.srv.store.tenantMu.Lock()
	in := f.srv.store.st.analyses[f.id].input
	f.srv.store.tenantMu.Unlock()
	in.AnalysisID = f.id
	res, err := engine.Default(t.Context(), in)
	if err != nil {
		t.Fatalf("engine.Default: %v", err)
	}
	d.Facts = res.Facts
	return d
}

// TestPDFReportVariants downloads the four variants of a real analysis's
// report and checks that each is what package report renders from the
// analysis, its profile's name and its workflow, in the variant's
// language, with or without raw data; likewise for a profile whose name
// has characters the report's font lacks, and control characters.
func TestPDFReportVariants(t *testing.T) {
	queries := func(locales ...string) []string {
		var out []string
		for _, locale := range locales {
			for _, raw := range []bool{false, true} {
				out = append(out, fmt.Sprintf("locale=%s&includeRawData=%v", locale, raw))
			}
		}
		return out
	}
	for _, tc := range []struct {
		name, profileName string
		queries           []string
	}{
		{"default", pdfTProfileName, queries("en", "ko")},
		{"characters the font lacks", "Zoë Müller-Núñez 김민수 😀 𠀀 م\x00\x07 end", []string{"locale=en&includeRawData=true", "locale=ko&includeRawData=true"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := pdfTNewFixture(t, tc.profileName)
			seen := map[string]string{}
			for _, q := range tc.queries {
				t.Run(q, func(t *testing.T) {
					got := pdfTWantPDF(t, f.srv, f.id, q)
					query, err := url.ParseQuery(q)
					if err != nil {
						t.Fatal(err)
					}
					want, err := report.Render(pdfTReportDataOf(t, f, query.Get("locale"), query.Get("includeRawData") == "true"))
					if err != nil {
						t.Fatalf("report.Render: %v", err)
					}
					if !bytes.Equal(got, want) {
						t.Fatalf("the served report differs from report.Render's: %d and %d bytes, first difference at byte %d",
							len(got), len(want), pdfTFirstDiff(got, want))
					}
					if other, ok := seen[string(got)]; ok {
						t.Errorf("variant %s gives the same bytes as %s", q, other)
					}
					seen[string(got)] = q
				})
			}
		})
	}
}

// pdfTFixtureFile names a fixture of package report.
func pdfTFixtureFile(name string) string {
	return filepath.Join("internal", "report", "testdata", name)
}

// TestReportFixtures checks that the analyses whose reports package report
// tests are the ones the engine makes today, as report.Data in JSON; with
// -update, it rewrites them.
func TestReportFixtures(t *testing.T) {
	for _, fx := range []struct {
		file string
		data func(t *testing.T) report.Data
	}{
		// The analysis of a passport and a bank statement that the report
		// tests here run, and most of package report's.
		{"analysis.json", func(t *testing.T) report.Data {
			return pdfTReportDataOf(t, pdfTNewFixture(t, pdfTProfileName), "", false)
		}},
		// A typical analysis, for package report's benchmark: a passport,
		// a bank statement and a utility bill.
		{"typical.json", func(t *testing.T) report.Data {
			f := pdfTNewFixtureOf(t, "Jane Doe", append(slices.Clone(pdfTDocs), [2]string{"utility_bill.txt", pdfTBill}))
			return pdfTReportDataOf(t, f, "", false)
		}},
		// An analysis whose documents disagree, one of them expired and
		// one unreadable: failed checks, marked values, invalid
		// documents.
		{"mismatch.json", func(t *testing.T) report.Data {
			return pdfTReportDataOf(t, pdfTNewFixtureOf(t, "김민준 Kim Min-jun", pdfTMismatchDocs), "", false)
		}},
	} {
		t.Run(fx.file, func(t *testing.T) {
			got, err := json.MarshalIndent(fx.data(t), "", "\t")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			path := pdfTFixtureFile(fx.file)
			if *pdfTUpdate {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (go test ./mockserver -run TestReportFixtures -update writes it)", err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("the engine's analysis differs from %s (-fixture +engine); if the change is intended, "+
					"rewrite it with go test ./mockserver -run TestReportFixtures -update:\n%s", path, diff)
			}
		})
	}
}

// TestPDFReportByteIdentical checks that a report depends on nothing but
// the analysis: two servers with the same clock, ID seed and requests give
// the same bytes (package report checks that rendering twice does too).
func TestPDFReportByteIdentical(t *testing.T) {
	a := pdfTNewFixture(t, pdfTProfileName)
	b := pdfTNewFixture(t, pdfTProfileName)
	if a.id != b.id || a.profile.ID != b.profile.ID {
		t.Fatalf("the two servers' IDs differ (%s/%s, %s/%s): WithIDSeed is not deterministic", a.id, b.id, a.profile.ID, b.profile.ID)
	}
	seen := map[string]string{}
	for _, loc := range []string{"en", "ko"} {
		for _, raw := range []bool{false, true} {
			q := fmt.Sprintf("locale=%s&includeRawData=%v", loc, raw)
			t.Run(q, func(t *testing.T) {
				pa := pdfTWantPDF(t, a.srv, a.id, q)
				pb := pdfTWantPDF(t, b.srv, b.id, q)
				if !bytes.Equal(pa, pb) {
					t.Fatalf("the two servers' reports differ: %d and %d bytes, first difference at byte %d", len(pa), len(pb), pdfTFirstDiff(pa, pb))
				}
				if other, ok := seen[string(pa)]; ok {
					t.Errorf("variant %s gives the same bytes as %s", q, other)
				}
				seen[string(pa)] = q
			})
		}
	}
}

func pdfTFirstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestPDFReportCache checks that a variant is rendered once and served
// from the cache, that deleting the analysis deletes its reports, and that
// an analysis that has not completed has none.
func TestPDFReportCache(t *testing.T) {
	t.Run("cached per variant, deleted with the analysis", func(t *testing.T) {
		f := pdfTNewFixture(t, pdfTProfileName)
		cached := func() map[reportVariant][]byte {
			f.srv.store.tenantMu.Lock()
			defer f.srv.store.tenantMu.Unlock()
			rec := f.srv.store.st.analyses[f.id]
			if rec == nil {
				return nil
			}
			out := map[reportVariant][]byte{}
			for k, v := range rec.reports {
				out[k] = v.pdf
			}
			return out
		}
		f.srv.store.tenantMu.Lock()
		rec := f.srv.store.st.analyses[f.id]
		f.srv.store.tenantMu.Unlock()
		if n := len(cached()); n != 0 {
			t.Fatalf("%d reports cached before any download", n)
		}
		first := pdfTWantPDF(t, f.srv, f.id, "locale=en")
		c := cached()
		if len(c) != 1 || !bytes.Equal(c[reportVariant{locale: "en"}], first) {
			t.Fatalf("after one download the cache holds %d reports (%v), want the en one", len(c), pdfTKeys(c))
		}
		// The default variant is en without raw data: the same report.
		for _, q := range []string{"locale=en", "", "includeRawData=false", "locale=en&includeRawData=false"} {
			if again := pdfTWantPDF(t, f.srv, f.id, q); !bytes.Equal(again, first) {
				t.Errorf("download ?%s differs from the first download", q)
			}
		}
		ko := pdfTWantPDF(t, f.srv, f.id, "locale=ko&includeRawData=true")
		if bytes.Equal(ko, first) {
			t.Errorf("the ko report with raw data is the en one")
		}
		c = cached()
		if len(c) != 2 || !bytes.Equal(c[reportVariant{locale: "ko", rawData: true}], ko) {
			t.Fatalf("after two variants the cache holds %v", pdfTKeys(c))
		}

		r := pdfTDo(t, f.srv, "DELETE", "/v1/analyses/"+f.id, "", nil)
		if r.status != http.StatusNoContent {
			t.Fatalf("DELETE analysis: %s", r)
		}
		for _, q := range []string{"locale=en", "locale=ko&includeRawData=true", "locale=ko"} {
			pdfTWantError(t, pdfTReport(t, f.srv, f.id, q), http.StatusNotFound, profilesvc.CodeAnalysisNotFound)
		}
		f.srv.store.tenantMu.Lock()
		left := len(rec.reports)
		f.srv.store.tenantMu.Unlock()
		if left != 0 {
			t.Errorf("the deleted analysis still holds %d reports", left)
		}
	})

	t.Run("not available before completion", func(t *testing.T) {
		clock := NewFakeClock(pdfTStart)
		srv := NewTest(t, WithManualAnalyses(), WithClock(clock), WithIDSeed(7))
		p, err := srv.CreateProfile(DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Pending and failed"})
		if err != nil {
			t.Fatal(err)
		}
		it, err := srv.AddTextItem(p.Folders[0].ID, "passport.txt", pdfTPassport)
		if err != nil {
			t.Fatal(err)
		}
		id := pdfTStartAnalysis(t, srv, p.ID, it.ID)
		for _, step := range []struct {
			name string
			move func() error
		}{
			{"pending", func() error { return nil }},
			{"processing", func() error { return srv.StartProcessing(id) }},
			{"failed", func() error { return srv.FailAnalysis(id, "the documents were unreadable") }},
		} {
			t.Run(step.name, func(t *testing.T) {
				if err := step.move(); err != nil {
					t.Fatalf("moving the analysis to %s: %v", step.name, err)
				}
				if a, _ := srv.Analysis(id); a == nil || string(a.Status) != step.name {
					t.Fatalf("analysis status = %v, want %s", a, step.name)
				}
				for _, q := range []string{"", "locale=ko&includeRawData=true"} {
					pdfTWantError(t, pdfTReport(t, srv, id, q), http.StatusBadRequest, profilesvc.CodeReportNotAvailable)
				}
			})
		}
		t.Run("unknown analysis", func(t *testing.T) {
			pdfTWantError(t, pdfTReport(t, srv, "analysis_doesnotexist", ""), http.StatusNotFound, profilesvc.CodeAnalysisNotFound)
		})
	})
}

func pdfTKeys(m map[reportVariant][]byte) []reportVariant {
	out := make([]reportVariant, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestPDFReportOfAnotherAnalyzer checks that the Korean report of an
// analysis another analyzer made says in Korean what the engine wrote and
// shows the rest as given: an analyzer that runs the engine and changes
// one finding, and one that writes its own result.
func TestPDFReportOfAnotherAnalyzer(t *testing.T) {
	const changed = "Checked by the test's own analyzer."
	for _, tc := range []struct {
		name     string
		analyzer Analyzer
		want     []string
		not      []string
	}{
		{"the engine's result, one finding changed", func(ctx context.Context, in AnalysisInput) (AnalysisResult, error) {
			res, err := engine.Default(ctx, in)
			for i := range res.Findings {
				if res.Findings[i].Category == "check_document_expiry" {
					res.Findings[i].Details = changed
				}
			}
			return res, err
		}, []string{changed, "신원 교차 확인", "한 문서에만 나타난 항목:", "문서 2건을 검토하고 결정을 정리했습니다."},
			[]string{"Reviewed 2 documents"}},
		{"a result of its own", func(context.Context, AnalysisInput) (AnalysisResult, error) {
			return AnalysisResult{RiskAssessment: profilesvc.RiskAssessment{RiskScore: 5, RiskFactors: []string{"a factor of the test's"}},
				Findings:        []profilesvc.Finding{{Category: "custom_check", Result: profilesvc.FindingPassed, Details: changed, SortOrder: 1}},
				Recommendations: []profilesvc.Recommendation{{Content: "Nothing to do.", Priority: 3, SortOrder: 1}}}, nil
		}, []string{changed, "• a factor of the test's", "Custom check", "Nothing to do.", "passport.txt", "bank_statement.txt"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := pdfTNewFixture(t, pdfTProfileName, WithAnalyzer(tc.analyzer))
			text := pdftest.Norm(pdftest.Transcript(t, pdfTWantPDF(t, f.srv, f.id, "locale=ko")))
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("the Korean report lacks %q", w)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(text, n) {
					t.Errorf("the Korean report has %q", n)
				}
			}
		})
	}
}
