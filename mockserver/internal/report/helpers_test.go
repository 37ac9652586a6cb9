package report_test

// Helpers of the report tests: the fixtures (analyses the mock server's
// engine made, as report.Data in JSON under testdata, with the engine's
// facts and the documents as stored, kept current by the mock server's
// TestReportFixtures), rendering, and checks of a report's pages and
// text. The text is read back from the PDF as rows, as a reader sees
// them (pdftest.Rows, which decodes gopdf's composite fonts through their
// ToUnicode maps and widths).
//
// A report depends on nothing but its data (TestRenderDeterministic), so
// each variant of a fixture's report is rendered once, by the first test
// that reads it, and shared with the others (fixtureReport); a test that
// changes the data renders its own, once, and reads both its text and
// what it draws from that one rendering (renderAll).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver/internal/pdftest"
	"github.com/profilesvc/profilesvc-go/mockserver/internal/report"
)

// pdfStart is the time the fixtures' analyses started.
var pdfStart = time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)

// fixture reads testdata/name: the report data of a completed analysis,
// with neither locale nor raw data set.
func fixture(t testing.TB, name string) report.Data {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	var d report.Data
	require.NoError(t, json.Unmarshal(b, &d), "decoding %s", name)
	a := &d.Analysis
	require.Equal(t, profilesvc.AnalysisCompleted, a.Status, "%s: the analysis's status", name)
	require.NotNil(t, a.CompletedAt, "%s: the analysis's completion time", name)
	require.True(t, a.RiskAssessment != nil && len(a.Findings) > 0 && len(a.Recommendations) > 0,
		"%s: the analysis needs a risk assessment, findings and recommendations", name)
	return d
}

// variant is d in a locale, with or without raw data.
func variant(d report.Data, locale string, raw bool) report.Data {
	d.Locale, d.RawData = locale, raw
	return d
}

// pageRows reads back a report's text: each page's rows.
func pageRows(t testing.TB, pdf []byte) []string {
	t.Helper()
	return joinRows(pdftest.Rows(t, pdf))
}

// joinRows is each page's rows, a row a line.
func joinRows(rows [][]string) []string {
	pages := make([]string, len(rows))
	for i, r := range rows {
		pages[i] = strings.Join(r, "\n")
	}
	return pages
}

// textOf is the normalised text of pages.
func textOf(pages []string) string { return pdftest.Norm(strings.Join(pages, "\n")) }

// bodyPages are a report's pages up to the raw-data appendix, and the
// page it starts on, if any: the appendix shows the data as the service
// returns it, in English.
func bodyPages(pages []string, appendixTitle string) []string {
	out := make([]string, 0, len(pages))
	for _, p := range pages {
		if i := strings.Index(p, appendixTitle); i >= 0 {
			return append(out, p[:i])
		}
		out = append(out, p)
	}
	return out
}

// render renders a report and checks that it is a whole PDF.
func render(t testing.TB, d report.Data) []byte {
	t.Helper()
	pdf, err := report.Render(d)
	require.NoError(t, err, "Render")
	wantWhole(t, pdf)
	return pdf
}

// wantWhole checks that pdf is a whole PDF, from its header to its end
// marker.
func wantWhole(t testing.TB, pdf []byte) {
	t.Helper()
	if !bytes.HasPrefix(pdf, []byte("%PDF-1.")) || !bytes.Contains(pdf[max(0, len(pdf)-64):], []byte("%%EOF")) {
		t.Fatalf("the report is not a whole PDF: %d bytes starting %q", len(pdf), pdf[:min(16, len(pdf))])
	}
}

// rendered is a report as the tests read it: the PDF, every piece of
// text it draws, and each page's rows (pdftest.Rows).
type rendered struct {
	pdf   []byte
	drawn []report.DrawnText
	rows  [][]string
}

// pages are the report's pages, each its rows, a row a line.
func (r rendered) pages() []string { return joinRows(r.rows) }

// text is the normalised text of the report's pages.
func (r rendered) text() string { return textOf(r.pages()) }

// renderAll renders a report once, recording what it draws, checks that
// it is a whole PDF and reads its pages back.
func renderAll(t testing.TB, d report.Data) rendered {
	t.Helper()
	pdf, drawn, err := report.RenderDrawn(d)
	require.NoError(t, err, "Render")
	wantWhole(t, pdf)
	return rendered{pdf: pdf, drawn: drawn, rows: pdftest.Rows(t, pdf)}
}

// once is a value the first test to need it makes and the others share.
// When making it fails, that test fails, and so does every later one
// that needs it.
type once[T any] struct {
	sync.Once
	v  T
	ok bool
}

// get returns the value, made by build in the first test to ask.
func (o *once[T]) get(t testing.TB, build func(testing.TB) T) T {
	t.Helper()
	o.Do(func() {
		o.v = build(t)
		o.ok = true
	})
	if !o.ok {
		t.Fatal("the shared value could not be made: see the test that first needed it")
	}
	return o.v
}

// variantKey names a variant of a fixture's report.
type variantKey struct {
	fixture, locale string
	raw             bool
}

// fixtureReports are the variants of the fixtures' reports, each made
// once, when a test first reads it.
var fixtureReports = func() map[variantKey]*once[rendered] {
	out := map[variantKey]*once[rendered]{}
	for _, fx := range []string{"analysis.json", "typical.json", "mismatch.json"} {
		for _, locale := range []string{"en", "ko"} {
			for _, raw := range []bool{false, true} {
				out[variantKey{fx, locale, raw}] = &once[rendered]{}
			}
		}
	}
	return out
}()

// fixtureReport is the report of testdata/fx in a locale, with or
// without raw data, rendered once for every test that reads it. The tests
// only read it.
func fixtureReport(t testing.TB, fx, locale string, raw bool) rendered {
	t.Helper()
	o, ok := fixtureReports[variantKey{fx, locale, raw}]
	require.True(t, ok, "no shared report of %s", fx)
	return o.get(t, func(t testing.TB) rendered { return renderAll(t, variant(fixture(t, fx), locale, raw)) })
}

// wantText checks that the normalised text holds each of want.
func wantText(t *testing.T, text string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, pdftest.Norm(w)) {
			t.Errorf("the report's text lacks %q", w)
		}
	}
}

// noText checks that the normalised text holds none of unwanted.
func noText(t *testing.T, text string, unwanted ...string) {
	t.Helper()
	for _, w := range unwanted {
		if strings.Contains(text, w) {
			t.Errorf("the report's text has %q, which it should not", w)
		}
	}
}

// wantA4 checks every page's size.
func wantA4(t *testing.T, ctx *model.Context) {
	t.Helper()
	dims, err := ctx.PageDims()
	require.NoError(t, err, "page dimensions")
	require.Len(t, dims, ctx.PageCount, "page dimensions, one a page")
	for i, d := range dims {
		if d.Width != 595 || d.Height != 842 {
			t.Errorf("page %d is %vx%v points, want A4 595x842", i+1, d.Width, d.Height)
		}
	}
}

// footer is the page-number footer of page i of n.
func footer(locale string, i, n int) string {
	if locale == "ko" {
		return fmt.Sprintf("%d / %d 페이지", i, n)
	}
	return fmt.Sprintf("Page %d of %d", i, n)
}

// wantFooters checks that every page carries its own page number, and
// only its own.
func wantFooters(t *testing.T, pages []string, locale string) {
	t.Helper()
	n := len(pages)
	for i, p := range pages {
		p = " " + pdftest.Norm(p) + " "
		if !strings.Contains(p, " "+footer(locale, i+1, n)+" ") {
			t.Errorf("page %d lacks its footer %q; its text ends %q", i+1, footer(locale, i+1, n), p[max(0, len(p)-160):])
		}
		for j := 1; j <= n; j++ {
			if j != i+1 && strings.Contains(p, " "+footer(locale, j, n)+" ") {
				t.Errorf("page %d carries the footer of page %d", i+1, j)
			}
		}
	}
}

// wantOnPage checks that every piece of text a report draws lies
// within the page's margins.
func wantOnPage(t *testing.T, drawn []report.DrawnText) {
	t.Helper()
	for _, tx := range drawn {
		if tx.X < 0 || tx.X+tx.Width > 595-40 || tx.Y < 0 || tx.Y > 842 {
			t.Errorf("page %d: %q is drawn from (%.1f, %.1f) to x=%.1f, off the page", tx.Page, tx.Text, tx.X, tx.Y, tx.X+tx.Width)
			return
		}
	}
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

// locale is what a locale's report must say of the fixture analysis.json.
type locale struct {
	name      string
	labels    []string          // section titles
	levels    map[string]string // risk level words
	riskLevel string            // the badge's label
	appendix  string            // title of the raw-data appendix
	dateOf    func(time.Time) string
	// expiry is the check_document_expiry finding as the report says
	// it: its check and its details; recommendation is the first
	// recommendation.
	expiry         [2]string
	recommendation string
	foreign        []string // labels of the other locale, which must not appear
}

var locales = []locale{
	{
		name: "en",
		labels: []string{"Document Analysis Report", "Subject", "Risk assessment", "Review result", "Findings",
			"Recommendations", "Documents reviewed", "Extracted values", "Evidence", "Audit trail", "Reviewer sign-off"},
		levels:         map[string]string{"low": "Low", "medium": "Medium", "high": "High"},
		riskLevel:      "Risk level",
		appendix:       "Appendix: raw data",
		dateOf:         func(t time.Time) string { return t.UTC().Format("2 January 2006, 15:04 UTC") },
		expiry:         [2]string{"Check document expiry", "No document has expired as of 4 March 2025."},
		recommendation: "Confirm the account number, date of birth, document number, expiry date and monthly income with a second document.",
		foreign:        []string{"위험 평가", "검사 결과", "권고 사항", "감사 기록", "페이지"},
	},
	{
		name: "ko",
		labels: []string{"문서 분석 보고서", "대상자", "위험 평가", "검토 결과", "검사 결과", "권고 사항", "검토한 문서",
			"추출된 값", "근거", "감사 기록", "검토자 확인"},
		levels:    map[string]string{"low": "낮음", "medium": "보통", "high": "높음"},
		riskLevel: "위험 수준",
		appendix:  "부록: 원시 데이터",
		dateOf: func(t time.Time) string {
			t = t.UTC()
			return fmt.Sprintf("%d년 %d월 %d일 %02d:%02d UTC", t.Year(), int(t.Month()), t.Day(), t.Hour(), t.Minute())
		},
		expiry:         [2]string{"유효기간 확인", "2025년 3월 4일 기준으로 만료된 문서가 없습니다."},
		recommendation: "다음 항목을 두 번째 문서로 확인하십시오: 계좌 번호, 생년월일, 문서 번호, 만료일, 월 소득.",
		foreign:        []string{"Risk assessment", "Findings", "Recommendations", "Audit trail", "Page 1 of"},
	},
}

// words is filler text of n words.
func words(seed, n int) string {
	list := []string{"document", "verification", "address", "mismatch", "registry", "expired", "consistent", "statement",
		"passport", "income", "employer", "signature", "reviewer", "evidence", "holder", "issuing"}
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(list[(seed*7+i*3)%len(list)])
	}
	return b.String()
}

// longAnalysis makes a far longer than a page: 60 findings with long
// details, 40 recommendations, 60 audit entries and extracted data of
// several kilobytes.
func longAnalysis(t testing.TB, a profilesvc.Analysis) profilesvc.Analysis {
	t.Helper()
	a.Findings, a.AgentAuditLog, a.Recommendations = nil, nil, nil
	a.RawActionResults = map[string]profilesvc.RawActionResult{}
	results := []profilesvc.FindingResult{profilesvc.FindingPassed, profilesvc.FindingWarning, profilesvc.FindingFailed}
	for i := 0; i < 60; i++ {
		details := fmt.Sprintf("Finding %02d: %s.", i, words(i, 18+i%12))
		if i == 17 {
			// One token wider than the column: it must be broken, not
			// drawn past the page.
			details += " " + strings.Repeat("UNBROKEN", 40)
		}
		a.Findings = append(a.Findings, profilesvc.Finding{
			Category: fmt.Sprintf("long_check_%02d", i), Result: results[i%3], Details: details, SortOrder: i + 1,
		})
		a.AgentAuditLog = append(a.AgentAuditLog, profilesvc.AuditLogEntry{
			WorkID: i + 1, ActionName: fmt.Sprintf("long_check_%02d", i), Category: "Data Consistency",
			Query: "q", Reasoning: words(i, 6), Success: true, Iteration: 1, DurationMs: float64(100+i) + 0.5*float64(i%2),
			VerificationStatus: profilesvc.StepPassed, TargetItemIDs: []string{},
		})
		a.RawActionResults[fmt.Sprintf("long_check_%02d", i)] = profilesvc.RawActionResult{
			Answer: words(i+1, 8), WorkID: i + 1, CitationsCount: i % 4, VerificationStatus: profilesvc.StepPassed,
		}
	}
	for i := 0; i < 40; i++ {
		a.Recommendations = append(a.Recommendations, profilesvc.Recommendation{
			Content: fmt.Sprintf("Recommendation %02d: %s.", i, words(i+3, 14)), Priority: 1 + i%3, SortOrder: i + 1,
		})
	}
	values := map[string]any{}
	judgements := map[string]any{"overall_consistency_result": "fail", "overall_consistency_reason": words(5, 30)}
	validations := map[string]any{}
	for i := 0; i < 12; i++ {
		k := fmt.Sprintf("field_%02d", i)
		values[k] = words(i, 6)
		judgements[k+"_check_result"] = []string{"pass", "fail", "needs_review", "unverifiable"}[i%4]
		judgements[k+"_check_reason"] = words(i, 8)
		validations[fmt.Sprintf("document_%02d_is_valid", i)] = i%2 == 0
		validations[fmt.Sprintf("document_%02d_is_valid_reason", i)] = words(i, 6)
	}
	notes := make([]string, 20)
	for i := range notes {
		notes[i] = fmt.Sprintf("note %02d: %s", i, words(i, 12))
	}
	ed := map[string]any{
		"request_id":           a.ProfileID,
		"extracted_values":     values,
		"category_judgements":  judgements,
		"document_validations": validations,
		"review_result": map[string]any{"final_action": "reject", "final_risk_level": "high",
			"final_action_reason": words(1, 20), "final_risk_level_reason": words(2, 20)},
		"reviewer_notes":  notes,
		"zz_last_key_end": "the very end of the extracted data",
	}
	b, err := json.Marshal(ed)
	require.NoError(t, err)
	a.ExtractedData = b
	a.RiskAssessment = &profilesvc.RiskAssessment{RiskLevel: profilesvc.RiskHigh, RiskScore: 100,
		RiskFactors: []string{"failed: long_check_02", "failed: long_check_05", "warning: long_check_01"}}
	return a
}
