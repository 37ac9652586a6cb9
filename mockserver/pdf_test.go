package mockserver

// Tests of the PDF reports: structure (pdfcpu, strict mode), text
// (ledongthuc/pdf, which decodes gopdf's CID fonts through their ToUnicode
// maps), characters the font lacks, determinism, metadata, page size and
// the report cache. Every helper here starts with "pdfT".

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	lpdf "github.com/ledongthuc/pdf"
	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver/engine"
	"github.com/profilesvc/profilesvc-go/mockserver/internal/reportfont"
)

// pdfTStart is the fake clock's start in every report test.
var pdfTStart = time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)

// pdfTRunTime is how long the fixture's analysis runs on the fake clock:
// long enough for the completed time to differ from the requested one.
const pdfTRunTime = 95 * time.Second

const (
	pdfTProfileName = "Jane Doe 김지은"
	pdfTPassport    = "PASSPORT\nFull Name: Jane Doe\nDate of Birth: 1990-04-12\nPassport Number: X1234567\nExpiry Date: 2031-05-01\nAddress: 12 Harbour Road, Busan\n"
	pdfTStatement   = "BANK STATEMENT\nAccount Holder: Jane Doe\nFull Name: Jane Doe\nAddress: 12 Harbour Road, Busan\nAccount Number: 110-234-567890\nMonthly Income: 4200\n"
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
}

// pdfTNewFixture starts a manual server on a fake clock with a fixed ID
// seed, and runs one analysis of a passport and a bank statement to
// completion over HTTP.
func pdfTNewFixture(t *testing.T, profileName string, opts ...Option) *pdfTFixture {
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
	passport, err := srv.AddTextItem(fid, "passport.txt", pdfTPassport)
	if err != nil {
		t.Fatalf("AddTextItem: %v", err)
	}
	statement, err := srv.AddTextItem(fid, "bank_statement.txt", pdfTStatement)
	if err != nil {
		t.Fatalf("AddTextItem: %v", err)
	}
	id := pdfTStartAnalysis(t, srv, p.ID, passport.ID, statement.ID)
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
	return &pdfTFixture{srv: srv, clock: clock, profile: p, id: id, analysis: a}
}

// pdfTReportDataOf builds the reportData of an analysis the way the
// handler does.
func pdfTReportDataOf(f *pdfTFixture, locale string, raw bool) reportData {
	return reportData{analysis: *f.analysis, profileName: f.profile.Name, workflowID: DefaultWorkflowID,
		workflowName: DefaultWorkflow().Name, locale: locale, rawData: raw}
}

var pdfTConfigOnce sync.Once

// pdfTStrictConfig is pdfcpu's configuration for strict validation, with
// no configuration directory written to the user's home.
func pdfTStrictConfig() *model.Configuration {
	pdfTConfigOnce.Do(api.DisableConfigDir)
	conf := model.NewDefaultConfiguration()
	conf.ValidationMode = model.ValidationStrict
	conf.Cmd = model.VALIDATE
	return conf
}

// pdfTValidate reads a PDF with pdfcpu and validates it in strict mode, as
// api.Validate does, returning the validated context.
func pdfTValidate(t *testing.T, pdf []byte) *model.Context {
	t.Helper()
	conf := pdfTStrictConfig()
	if conf.ValidationMode != model.ValidationStrict {
		t.Fatalf("validation mode %s, want strict", conf.ValidationModeString())
	}
	ctx, err := api.ReadContext(bytes.NewReader(pdf), conf)
	if err != nil {
		t.Fatalf("pdfcpu cannot read the PDF: %v", err)
	}
	if err := api.ValidateContext(ctx); err != nil {
		t.Fatalf("pdfcpu strict validation: %v", err)
	}
	if ctx.PageCount < 1 {
		t.Fatalf("pdfcpu counts %d pages", ctx.PageCount)
	}
	return ctx
}

// pdfTPages extracts each page's text with ledongthuc/pdf.
func pdfTPages(t *testing.T, pdf []byte) []string {
	t.Helper()
	r, err := lpdf.NewReader(bytes.NewReader(pdf), int64(len(pdf)))
	if err != nil {
		t.Fatalf("ledongthuc/pdf cannot read the PDF: %v", err)
	}
	pages := make([]string, r.NumPage())
	for i := range pages {
		p := r.Page(i + 1)
		if p.V.IsNull() {
			t.Fatalf("page %d is missing", i+1)
		}
		s, err := p.GetPlainText(nil)
		if err != nil {
			t.Fatalf("extracting the text of page %d: %v", i+1, err)
		}
		pages[i] = s
	}
	return pages
}

// pdfTNorm collapses every run of white space, line breaks included, to
// one space, so that text wrapped across lines still matches.
func pdfTNorm(s string) string { return strings.Join(strings.Fields(s), " ") }

// pdfTText is the normalised text of every page.
func pdfTText(t *testing.T, pdf []byte) string {
	t.Helper()
	return pdfTNorm(strings.Join(pdfTPages(t, pdf), "\n"))
}

// pdfTWantText checks that the normalised text holds each of want.
func pdfTWantText(t *testing.T, text string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, pdfTNorm(w)) {
			t.Errorf("the report's text lacks %q", w)
		}
	}
}

// pdfTNoText checks that the normalised text holds none of unwanted.
func pdfTNoText(t *testing.T, text string, unwanted ...string) {
	t.Helper()
	for _, w := range unwanted {
		if strings.Contains(text, w) {
			t.Errorf("the report's text has %q, which it should not", w)
		}
	}
}

// pdfTWantA4 checks every page's size.
func pdfTWantA4(t *testing.T, ctx *model.Context) {
	t.Helper()
	dims, err := ctx.PageDims()
	if err != nil {
		t.Fatalf("page dimensions: %v", err)
	}
	if len(dims) != ctx.PageCount {
		t.Fatalf("%d page dimensions for %d pages", len(dims), ctx.PageCount)
	}
	for i, d := range dims {
		if d.Width != 595 || d.Height != 842 {
			t.Errorf("page %d is %vx%v points, want A4 595x842", i+1, d.Width, d.Height)
		}
	}
}

// pdfTFooter is the page-number footer of page i of n.
func pdfTFooter(locale string, i, n int) string {
	if locale == "ko" {
		return fmt.Sprintf("%d / %d 페이지", i, n)
	}
	return fmt.Sprintf("Page %d of %d", i, n)
}

// pdfTWantFooters checks that every page carries its own page number, and
// only its own.
func pdfTWantFooters(t *testing.T, pages []string, locale string) {
	t.Helper()
	n := len(pages)
	for i, p := range pages {
		p = " " + pdfTNorm(p) + " "
		if !strings.Contains(p, " "+pdfTFooter(locale, i+1, n)+" ") {
			t.Errorf("page %d lacks its footer %q; its text ends %q", i+1, pdfTFooter(locale, i+1, n), p[max(0, len(p)-160):])
		}
		for j := 1; j <= n; j++ {
			if j != i+1 && strings.Contains(p, " "+pdfTFooter(locale, j, n)+" ") {
				t.Errorf("page %d carries the footer of page %d", i+1, j)
			}
		}
	}
}

// pdfTLocale is what a locale's report must say.
type pdfTLocale struct {
	name      string
	labels    []string          // section labels
	levels    map[string]string // risk level words
	riskLevel string            // the badge's label
	appendix  string            // title of the raw-data appendix
	dateOf    func(time.Time) string
	foreign   []string // labels of the other locale, which must not appear
}

var pdfTLocales = []pdfTLocale{
	{
		name:      "en",
		labels:    []string{"Document Analysis Report", "Risk assessment", "Review result", "Findings", "Recommendations", "Extracted values", "Document validations", "Audit trail"},
		levels:    map[string]string{"low": "Low", "medium": "Medium", "high": "High"},
		riskLevel: "Risk level",
		appendix:  "Appendix: raw data",
		dateOf:    func(t time.Time) string { return t.UTC().Format("2 January 2006, 15:04 UTC") },
		foreign:   []string{"위험 평가", "검사 결과", "권고 사항", "감사 기록", "페이지"},
	},
	{
		name:      "ko",
		labels:    []string{"문서 분석 보고서", "위험 평가", "검토 결과", "검사 결과", "권고 사항", "추출된 값", "문서 유효성", "감사 기록"},
		levels:    map[string]string{"low": "낮음", "medium": "보통", "high": "높음"},
		riskLevel: "위험 수준",
		appendix:  "부록: 원시 데이터",
		dateOf: func(t time.Time) string {
			t = t.UTC()
			return fmt.Sprintf("%d년 %d월 %d일 %02d:%02d UTC", t.Year(), int(t.Month()), t.Day(), t.Hour(), t.Minute())
		},
		foreign: []string{"Risk assessment", "Findings", "Recommendations", "Audit trail", "Page 1 of"},
	},
}

// TestPDFReportVariants checks the four variants of a real analysis's
// report: valid in strict mode, A4, numbered, and saying what the analysis
// says in the variant's language.
func TestPDFReportVariants(t *testing.T) {
	f := pdfTNewFixture(t, pdfTProfileName)
	a := f.analysis
	firstRec := a.Recommendations[0]
	for _, r := range a.Recommendations {
		if r.Priority < firstRec.Priority || r.Priority == firstRec.Priority && r.SortOrder < firstRec.SortOrder {
			firstRec = r
		}
	}
	var expiry *profilesvc.Finding
	for i := range a.Findings {
		if a.Findings[i].Category == "check_document_expiry" {
			expiry = &a.Findings[i]
		}
	}
	if expiry == nil {
		t.Fatalf("the default engine made no check_document_expiry finding: %+v", a.Findings)
	}
	pageCounts := map[string]int{}
	for _, loc := range pdfTLocales {
		for _, raw := range []bool{false, true} {
			name := fmt.Sprintf("%s/raw=%v", loc.name, raw)
			t.Run(name, func(t *testing.T) {
				pdf := pdfTWantPDF(t, f.srv, f.id, fmt.Sprintf("locale=%s&includeRawData=%v", loc.name, raw))
				ctx := pdfTValidate(t, pdf)
				pdfTWantA4(t, ctx)
				pages := pdfTPages(t, pdf)
				if len(pages) != ctx.PageCount {
					t.Fatalf("ledongthuc/pdf reads %d pages, pdfcpu %d", len(pages), ctx.PageCount)
				}
				pageCounts[name] = ctx.PageCount
				pdfTWantFooters(t, pages, loc.name)

				text := pdfTNorm(strings.Join(pages, "\n"))
				pdfTWantText(t, text, loc.labels...)
				pdfTWantText(t, text,
					a.ID,
					pdfTProfileName+" ("+f.profile.ID+")",
					loc.riskLevel+" "+loc.levels[string(a.RiskAssessment.RiskLevel)],
					expiry.Category,
					expiry.Details,
					firstRec.Content,
					loc.dateOf(a.RequestedAt),
					loc.dateOf(*a.CompletedAt),
				)
				if loc.name == "ko" {
					pdfTWantText(t, text, "2025년 3월 4일")
				}
				pdfTNoText(t, text, loc.foreign...)
				if raw {
					pdfTWantText(t, text, loc.appendix, `"category_judgements": {`, `"extracted_values": {`, `"request_id": "`+f.profile.ID+`"`)
				} else {
					pdfTNoText(t, text, loc.appendix, `"category_judgements"`)
				}
			})
		}
	}
	for _, loc := range pdfTLocales {
		without, with := pageCounts[loc.name+"/raw=false"], pageCounts[loc.name+"/raw=true"]
		if without > 0 && with <= without {
			t.Errorf("%s: the raw-data report has %d pages, the plain one %d: the appendix adds none", loc.name, with, without)
		}
	}
}

// TestPDFReportRiskLevelWords renders each risk level in each language.
func TestPDFReportRiskLevelWords(t *testing.T) {
	f := pdfTNewFixture(t, pdfTProfileName)
	for _, loc := range pdfTLocales {
		for _, level := range []profilesvc.RiskLevel{profilesvc.RiskMedium, profilesvc.RiskHigh} {
			t.Run(loc.name+"/"+string(level), func(t *testing.T) {
				d := pdfTReportDataOf(f, loc.name, false)
				ra := *d.analysis.RiskAssessment
				ra.RiskLevel, ra.RiskScore = level, 72
				d.analysis.RiskAssessment = &ra
				pdf, err := renderReport(d)
				if err != nil {
					t.Fatalf("renderReport: %v", err)
				}
				text := pdfTText(t, pdf)
				pdfTWantText(t, text, loc.riskLevel+" "+loc.levels[string(level)])
				for other, w := range loc.levels {
					if other != string(level) && strings.Contains(text, loc.riskLevel+" "+w) {
						t.Errorf("the badge shows %q as well", w)
					}
				}
			})
		}
	}
}

// pdfTWords is filler text of n words.
func pdfTWords(seed, n int) string {
	words := []string{"document", "verification", "address", "mismatch", "registry", "expired", "consistent", "statement",
		"passport", "income", "employer", "signature", "reviewer", "evidence", "holder", "issuing"}
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[(seed*7+i*3)%len(words)])
	}
	return b.String()
}

// pdfTLongAnalyzer returns a result far longer than a page: 60 findings
// with long details, 40 recommendations, 60 audit entries and extracted
// data of several kilobytes.
func pdfTLongAnalyzer(_ context.Context, in AnalysisInput) (AnalysisResult, error) {
	var res AnalysisResult
	results := []profilesvc.FindingResult{profilesvc.FindingPassed, profilesvc.FindingWarning, profilesvc.FindingFailed}
	for i := 0; i < 60; i++ {
		details := fmt.Sprintf("Finding %02d: %s.", i, pdfTWords(i, 18+i%12))
		if i == 17 {
			// One token wider than the column: it must be broken, not
			// drawn past the page.
			details += " " + strings.Repeat("UNBROKEN", 40)
		}
		res.Findings = append(res.Findings, profilesvc.Finding{
			Category: fmt.Sprintf("long_check_%02d", i), Result: results[i%3], Details: details, SortOrder: i + 1,
		})
		res.AgentAuditLog = append(res.AgentAuditLog, profilesvc.AuditLogEntry{
			WorkID: i + 1, ActionName: fmt.Sprintf("long_check_%02d", i), Category: "Data Consistency",
			Query: "q", Reasoning: pdfTWords(i, 6), Success: true, Iteration: 1, DurationMs: int64(100 + i),
			VerificationStatus: profilesvc.StepPassed,
		})
		if res.RawActionResults == nil {
			res.RawActionResults = map[string]profilesvc.RawActionResult{}
		}
		res.RawActionResults[fmt.Sprintf("long_check_%02d", i)] = profilesvc.RawActionResult{
			Answer: pdfTWords(i+1, 8), WorkID: i + 1, CitationsCount: i % 4, VerificationStatus: profilesvc.StepPassed,
		}
	}
	for i := 0; i < 40; i++ {
		res.Recommendations = append(res.Recommendations, profilesvc.Recommendation{
			Content: fmt.Sprintf("Recommendation %02d: %s.", i, pdfTWords(i+3, 14)), Priority: 1 + i%3, SortOrder: i + 1,
		})
	}
	values := map[string]any{}
	judgements := map[string]any{"overall_consistency_result": "fail", "overall_consistency_reason": pdfTWords(5, 30)}
	validations := map[string]any{}
	for i := 0; i < 12; i++ {
		k := fmt.Sprintf("field_%02d", i)
		values[k] = pdfTWords(i, 6)
		judgements[k+"_check_result"] = []string{"pass", "fail", "needs_review", "unverifiable"}[i%4]
		judgements[k+"_check_reason"] = pdfTWords(i, 8)
		validations[fmt.Sprintf("document_%02d_is_valid", i)] = i%2 == 0
		validations[fmt.Sprintf("document_%02d_is_valid_reason", i)] = pdfTWords(i, 6)
	}
	notes := make([]string, 20)
	for i := range notes {
		notes[i] = fmt.Sprintf("note %02d: %s", i, pdfTWords(i, 12))
	}
	ed := map[string]any{
		"request_id":           in.Profile.ID,
		"extracted_values":     values,
		"category_judgements":  judgements,
		"document_validations": validations,
		"review_result": map[string]any{"final_action": "reject", "final_risk_level": "high",
			"final_action_reason": pdfTWords(1, 20), "final_risk_level_reason": pdfTWords(2, 20)},
		"reviewer_notes":  notes,
		"zz_last_key_end": "the very end of the extracted data",
	}
	b, err := json.Marshal(ed)
	if err != nil {
		return res, err
	}
	res.ExtractedData = b
	res.RiskAssessment = profilesvc.RiskAssessment{RiskLevel: profilesvc.RiskHigh, RiskScore: 100,
		RiskFactors: []string{"failed: long_check_02", "failed: long_check_05", "warning: long_check_01"}}
	return res, nil
}

// TestPDFReportLongAnalysis checks that a long analysis with raw data
// breaks over several pages, stays valid, numbers every page and loses
// nothing.
func TestPDFReportLongAnalysis(t *testing.T) {
	f := pdfTNewFixture(t, pdfTProfileName, WithAnalyzer(pdfTLongAnalyzer))
	if n := len(f.analysis.ExtractedData); n < 4<<10 {
		t.Fatalf("the long analysis's extracted data is only %d bytes", n)
	}
	for _, loc := range []string{"en", "ko"} {
		t.Run(loc, func(t *testing.T) {
			pdf := pdfTWantPDF(t, f.srv, f.id, "includeRawData=true&locale="+loc)
			ctx := pdfTValidate(t, pdf)
			pdfTWantA4(t, ctx)
			pages := pdfTPages(t, pdf)
			if len(pages) != ctx.PageCount {
				t.Fatalf("ledongthuc/pdf reads %d pages, pdfcpu %d", len(pages), ctx.PageCount)
			}
			if len(pages) < 3 {
				t.Fatalf("the long report has %d pages, want at least 3", len(pages))
			}
			pdfTWantFooters(t, pages, loc)
			text := pdfTNorm(strings.Join(pages, "\n"))
			// Nothing is lost at the page breaks: the first and last of
			// every list, and the end of the raw data.
			pdfTWantText(t, text, "long_check_00", "long_check_59", "Finding 59:", "Recommendation 00:", "Recommendation 39:",
				"field_11", `"zz_last_key_end": "the very end of the extracted data"`, `"long_check_59": {`)
			last := pdfTNorm(pages[len(pages)-1])
			if !strings.Contains(last, "long_check_59") {
				t.Errorf("the last page does not end with the raw action results: %q", last[:min(300, len(last))])
			}
			// The unbroken token is broken into pieces, every one on the page.
			if got := strings.Count(strings.ReplaceAll(text, " ", ""), "UNBROKEN"); got < 40 {
				t.Errorf("the unbroken token shows %d of its 40 parts", got)
			}
			if loc == "en" {
				pdfTWantOnPage(t, pdf)
			}
		})
	}
}

// pdfTWantOnPage checks that every glyph starts inside the page.
func pdfTWantOnPage(t *testing.T, pdf []byte) {
	t.Helper()
	r, err := lpdf.NewReader(bytes.NewReader(pdf), int64(len(pdf)))
	if err != nil {
		t.Fatalf("ledongthuc/pdf: %v", err)
	}
	for i := 1; i <= r.NumPage(); i++ {
		for _, tx := range r.Page(i).Content().Text {
			if tx.X < 0 || tx.X >= 595 || tx.Y < 0 || tx.Y > 842 {
				t.Errorf("page %d: %q is drawn at (%.1f, %.1f), off the page", i, tx.S, tx.X, tx.Y)
				return
			}
		}
	}
}

// pdfTUncovered returns a character of script that the font lacks.
func pdfTUncovered(t *testing.T, script string, candidates ...rune) rune {
	t.Helper()
	for _, c := range candidates {
		if !reportfont.Covers(c) {
			return c
		}
	}
	t.Fatalf("the font covers every %s candidate %q: choose others", script, string(candidates))
	return 0
}

// TestPDFReportReplacesMissingCharacters checks that characters the font
// lacks never fail a report and show as a visible replacement, while
// accented Latin and Hangul come through.
func TestPDFReportReplacesMissingCharacters(t *testing.T) {
	const box = "□"
	if !reportfont.Covers([]rune(box)[0]) {
		t.Fatalf("the font lacks the replacement character %s itself", box)
	}
	for _, c := range "éüñÉ김한글" {
		if !reportfont.Covers(c) {
			t.Fatalf("the font lacks %q, which the report must render", c)
		}
	}
	emoji := pdfTUncovered(t, "emoji", '😀')
	// Rare and supplementary-plane ideographs: NanumGothic has common Hanja
	// only.
	cjk := pdfTUncovered(t, "CJK", '𠀀', '𪚥', '龘', '䶵', '㐀')
	arabic := pdfTUncovered(t, "Arabic", 'م', 'ر', 'ح')
	// Each of them in a profile name, a finding's details, a recommendation
	// and the extracted values.
	name := "Zoë Müller-Núñez 김민수 " + string(emoji) + " " + string(cjk) + " " + string(arabic) + "\x00\x07 end"
	wantName := "Zoë Müller-Núñez 김민수 " + box + " " + box + " " + box + " end"
	details := "Señor José: document ü " + string(emoji) + string(emoji) + " 漢" + string(cjk) + " " + string(arabic) + "\x00 checked"
	wantDetails := "Señor José: document ü " + box + box + " 漢" + box + " " + box + " checked"
	if !reportfont.Covers('漢') {
		wantDetails = strings.Replace(wantDetails, "漢", box, 1)
	}

	analyzer := func(ctx context.Context, in AnalysisInput) (AnalysisResult, error) {
		res, err := engine.Default(ctx, in)
		if err != nil {
			return res, err
		}
		res.Findings = append(res.Findings, profilesvc.Finding{Category: "unicode_check", Result: profilesvc.FindingWarning,
			Details: details, SortOrder: 999})
		res.Recommendations = append(res.Recommendations, profilesvc.Recommendation{Content: "Ask " + name, Priority: 1, SortOrder: 999})
		return res, nil
	}
	f := pdfTNewFixture(t, name, WithAnalyzer(analyzer))
	for _, loc := range []string{"en", "ko"} {
		t.Run(loc, func(t *testing.T) {
			pdf := pdfTWantPDF(t, f.srv, f.id, "locale="+loc+"&includeRawData=true")
			pdfTValidate(t, pdf)
			text := pdfTText(t, pdf)
			pdfTWantText(t, text, wantName+" ("+f.profile.ID+")", "unicode_check", wantDetails, "Ask "+wantName)
			pdfTNoText(t, text, string(emoji), string(cjk), string(arabic), "\x00", "\x07", "\uFFFD")
		})
	}
	t.Run("renderReport", func(t *testing.T) {
		// Straight to the renderer, with the characters in every field it
		// draws.
		d := pdfTReportDataOf(f, "en", false)
		d.workflowName = name
		d.analysis.RiskAssessment = &profilesvc.RiskAssessment{RiskLevel: "low", RiskScore: 3, RiskFactors: []string{details}}
		pdf, err := renderReport(d)
		if err != nil {
			t.Fatalf("renderReport: %v", err)
		}
		pdfTValidate(t, pdf)
		text := pdfTText(t, pdf)
		pdfTWantText(t, text, wantName+" ("+DefaultWorkflowID+")", "• "+wantDetails)
		pdfTNoText(t, text, string(emoji), string(cjk), string(arabic))
	})
}

// TestPDFReportByteIdentical checks that a report depends on nothing but
// the analysis: two servers with the same clock, ID seed and requests give
// the same bytes, and so does rendering twice.
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
	t.Run("renderReport twice", func(t *testing.T) {
		d := pdfTReportDataOf(a, "ko", true)
		p1, err1 := renderReport(d)
		p2, err2 := renderReport(d)
		if err1 != nil || err2 != nil {
			t.Fatalf("renderReport: %v, %v", err1, err2)
		}
		if !bytes.Equal(p1, p2) {
			t.Fatalf("two renderings differ: %d and %d bytes, first difference at byte %d", len(p1), len(p2), pdfTFirstDiff(p1, p2))
		}
	})
}

func pdfTFirstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// pdfTInfoRef finds the trailer's /Info entry when it is an indirect
// reference, as ISO 32000-1 (7.5.5, table 15) requires.
var pdfTInfoRef = regexp.MustCompile(`/Info\s+\d+\s+\d+\s+R`)

// TestPDFReportMetadata checks the document information dictionary: Title,
// Subject, Creator and CreationDate, the last being the analysis's
// completion time.
func TestPDFReportMetadata(t *testing.T) {
	f := pdfTNewFixture(t, pdfTProfileName)
	completed := *f.analysis.CompletedAt
	for _, tc := range []struct{ locale, title, subject string }{
		{"en", "Document Analysis Report " + f.id, "Profile: " + pdfTProfileName + " (" + f.profile.ID + ")"},
		{"ko", "문서 분석 보고서 " + f.id, "프로필: " + pdfTProfileName + " (" + f.profile.ID + ")"},
	} {
		t.Run(tc.locale, func(t *testing.T) {
			pdf := pdfTWantPDF(t, f.srv, f.id, "locale="+tc.locale)
			check := func(t *testing.T, title, subject, creator, created string) {
				t.Helper()
				if title != tc.title {
					t.Errorf("Title = %q, want %q", title, tc.title)
				}
				if subject != tc.subject {
					t.Errorf("Subject = %q, want %q", subject, tc.subject)
				}
				if creator != "profilesvc-mock" {
					t.Errorf("Creator = %q, want profilesvc-mock", creator)
				}
				when, ok := types.DateTime(created, false)
				if !ok {
					t.Errorf("CreationDate %q is not a PDF date", created)
				} else if !when.Equal(completed) {
					t.Errorf("CreationDate = %v (%q), want the completion time %v", when, created, completed)
				}
			}
			t.Run("written", func(t *testing.T) {
				r, err := lpdf.NewReader(bytes.NewReader(pdf), int64(len(pdf)))
				if err != nil {
					t.Fatalf("ledongthuc/pdf: %v", err)
				}
				info := r.Trailer().Key("Info")
				if info.IsNull() {
					t.Fatalf("the trailer has no /Info")
				}
				check(t, info.Key("Title").Text(), info.Key("Subject").Text(), info.Key("Creator").Text(), info.Key("CreationDate").RawString())
			})
			t.Run("read by pdfcpu", func(t *testing.T) {
				ctx := pdfTValidate(t, pdf)
				if ctx.Info == nil {
					tail := pdf[max(0, bytes.LastIndex(pdf, []byte("trailer"))):]
					t.Errorf("pdfcpu finds no document information dictionary: the trailer's /Info must be an indirect "+
						"reference (ISO 32000-1, 7.5.5, table 15), and pdfcpu ignores a direct one; indirect reference found: %v",
						pdfTInfoRef.Match(tail))
				}
				check(t, ctx.XRefTable.Title, ctx.XRefTable.Subject, ctx.XRefTable.Creator, ctx.XRefTable.CreationDate)
			})
		})
	}
}

// TestPDFReportCache checks that a variant is rendered once and served
// from the cache, that deleting the analysis deletes its reports, and that
// an analysis that has not completed has none.
func TestPDFReportCache(t *testing.T) {
	t.Run("cached per variant, deleted with the analysis", func(t *testing.T) {
		f := pdfTNewFixture(t, pdfTProfileName)
		cached := func() map[reportVariant][]byte {
			f.srv.mu.Lock()
			defer f.srv.mu.Unlock()
			rec := f.srv.st.analyses[f.id]
			if rec == nil {
				return nil
			}
			out := map[reportVariant][]byte{}
			for k, v := range rec.reports {
				out[k] = v
			}
			return out
		}
		f.srv.mu.Lock()
		rec := f.srv.st.analyses[f.id]
		f.srv.mu.Unlock()
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
		f.srv.mu.Lock()
		left := len(rec.reports)
		f.srv.mu.Unlock()
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
