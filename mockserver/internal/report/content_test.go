package report_test

// Tests of what a report shows, section by section, on the fixture whose
// documents disagree (testdata/mismatch.json: an expired passport, a bank
// statement with another date of birth, a utility bill that agrees with
// the passport, and a photograph no text can be read from).

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver/engine"
	"github.com/profilesvc/profilesvc-go/mockserver/internal/report"
)

// TestSubject checks the summary at the top: the profile's name, and each
// identity value with the documents' agreement on it.
func TestSubject(t *testing.T) {
	t.Parallel()
	d := fixture(t, "mismatch.json")
	for _, tc := range []struct{ locale, want string }{
		// A row of the table per line, its cells side by side, and the
		// lines that cells wrap to after it.
		{"en", "Subject " + d.ProfileName + " The identity the documents show, field by field, and whether they agree on it. " +
			"Identity value Value Judgement Full name Kim Min-jun Consistent " +
			"Date of birth 1988-11-02 (passport.txt, utility_bill.txt) / 1989-11-02 Inconsistent (bank_statement.txt) " +
			"Nationality Korean Unconfirmed only in passport.txt Document number M12345678 Unconfirmed only in passport.txt"},
		{"ko", "대상자 " + d.ProfileName + " 문서에 나타난 신원 정보와 문서 간 일치 여부입니다. 신원 항목 값 판정 성명 Kim Min-jun 일치 " +
			"생년월일 1988-11-02 (passport.txt, utility_bill.txt) / 1989-11-02 불일치 (bank_statement.txt) " +
			"국적 Korean 미확인 passport.txt에만 있음 문서 번호 M12345678 미확인 passport.txt에만 있음"},
	} {
		t.Run(tc.locale, func(t *testing.T) {
			t.Parallel()
			wantText(t, fixtureReport(t, "mismatch.json", tc.locale, false).text(), tc.want)
		})
	}
}

// TestDocumentsReviewed checks that every target item is listed with its
// name, type, detected type, upload time, size, fingerprint, readability
// and validity, and the reason when it is not valid.
func TestDocumentsReviewed(t *testing.T) {
	t.Parallel()
	d := fixture(t, "mismatch.json")
	require.Len(t, d.Documents, 4)
	text := fixtureReport(t, "mismatch.json", "en", false).text()
	wantText(t, text, "Document Detected as Uploaded Size SHA-256 Readable Valid")
	for _, doc := range d.Documents {
		wantText(t, text, fmt.Sprintf("%s %s 2025-03-04 05:06 %d B %s", doc.Name, map[string]string{
			"passport.txt": "Passport", "bank_statement.txt": "Bank statement", "utility_bill.txt": "Utility bill",
			"selfie.png": "Unrecognised"}[doc.Name], doc.Size, doc.SHA256[:12]))
	}
	wantText(t, text, "passport.txt Passport", "Yes No Text · text/plain Not valid:", "No No File · image/png document Not valid:",
		"Not valid: passport.txt (passport) expired on 1 May 2020.",
		"Not valid: selfie.png could not be read (image/png); a person needs to check it.")
	assert.Equal(t, 2, strings.Count(text, "Not valid:"), "the reasons: one an invalid document")
}

// TestValuesSideBySide checks that each document's value of each field
// shows in a column of its own, and that the values that disagree are
// marked: of the dates of birth, the statement's, since the passport and
// the bill agree.
func TestValuesSideBySide(t *testing.T) {
	t.Parallel()
	r := fixtureReport(t, "mismatch.json", "en", false)
	text := r.text()
	wantText(t, text, "Field passport.txt bank_ utility_bill.txt selfie.png Judgement statement.txt",
		"Date of birth 1988-11-02 1989-11-02 02/11/1988 — Inconsistent",
		"Address — 7 Sejong-daero, 7 Sejong-daero, — Consistent Seoul Seoul",
		"Overall: Inconsistent The documents disagree on date of birth.")
	marked := map[string]bool{}
	for _, tx := range r.drawn {
		if tx.Color == [3]uint8{165, 29, 42} && tx.Family == "go-bold" && tx.Size == 8.5 {
			marked[strings.TrimSpace(tx.Text)] = true
		}
	}
	assert.True(t, marked["1989-11-02"], "the statement's date of birth is marked")
	assert.False(t, marked["1988-11-02"], "the passport's date of birth, which the bill confirms, is not marked")
	assert.False(t, marked["02/11/1988"], "the bill's date of birth, the passport's in another form, is not marked")
}

// TestValuesWithoutAMajority checks that, when no value is shown by more
// documents than the others, every value of the field is marked.
func TestValuesWithoutAMajority(t *testing.T) {
	t.Parallel()
	d := fixture(t, "mismatch.json")
	for i := range d.Facts.Documents {
		if d.Facts.Documents[i].Values["date_of_birth"] == "02/11/1988" {
			d.Facts.Documents[i].Values = map[string]string{"full_name": "Kim Min-jun", "address": "7 Sejong-daero, Seoul"}
		}
	}
	drawn, err := report.DrawnTexts(variant(d, "en", false))
	require.NoError(t, err)
	marked := 0
	for _, tx := range drawn {
		if v := strings.TrimSpace(tx.Text); tx.Color == [3]uint8{165, 29, 42} && (v == "1988-11-02" || v == "1989-11-02") {
			marked++
		}
	}
	assert.Equal(t, 2, marked, "both dates of birth are marked in the values table")
}

// TestEvidence checks that each check that read the documents quotes the
// passages it read, with the document they come from, and the tool call.
func TestEvidence(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		locale string
		want   []string
	}{
		{"en", []string{"Evidence", "Cross-check identity Failed",
			"• “Date of Birth: 1989-11-02” — bank_statement.txt · Date of birth",
			"• “Date of Birth: 02/11/1988” — utility_bill.txt · Date of birth",
			"Verify document registry Passed › Tool document_registry.lookup (Simulated document registry): Document number M12345678 — found"}},
		{"ko", []string{"근거", "신원 교차 확인 실패",
			"• “Date of Birth: 1989-11-02” — bank_statement.txt · 생년월일",
			"발급 기관 등록 조회 통과 › 도구 document_registry.lookup: 문서 번호 M12345678 — 등록 확인"}},
	} {
		t.Run(tc.locale, func(t *testing.T) {
			t.Parallel()
			wantText(t, fixtureReport(t, "mismatch.json", tc.locale, false).text(), tc.want...)
		})
	}
}

// TestAuditTrail checks that each step shows with its label, category,
// result in the findings' words, start time and duration.
func TestAuditTrail(t *testing.T) {
	t.Parallel()
	d := fixture(t, "mismatch.json")
	text := fixtureReport(t, "mismatch.json", "en", false).text()
	wantText(t, text, "# Step Category Result Started (UTC) Duration")
	words := map[profilesvc.StepStatus]string{"passed": "Passed", "needs_review": "Warning", "failed": "Failed"}
	labels := map[string]string{"classify_documents": "Classify documents", "extract_identity_fields": "Extract identity fields",
		"validate_field_formats": "Validate field formats", "check_document_expiry": "Check document expiry",
		"cross_check_identity": "Cross-check identity", "verify_document_registry": "Verify document registry",
		"compile_review": "Compile review"}
	categories := map[string]string{"Document Classification": "Document classification", "Data Extraction": "Data extraction",
		"Format Validation": "Format validation", "Status Validation": "Status validation", "Data Consistency": "Data consistency",
		"mcp": "External tool (MCP)", "Document Processing": "Document processing"}
	for _, e := range d.Analysis.AgentAuditLog {
		wantText(t, text, fmt.Sprintf("%d %s %s %s %s %s ms", e.WorkID, labels[e.ActionName], categories[e.Category],
			words[e.VerificationStatus], e.ExecutedAt.UTC().Format("15:04:05"), strconv.FormatFloat(e.DurationMs, 'f', -1, 64)))
	}
}

// TestOneWordForOneState checks that a step and its finding are called
// alike: a warning is a warning in the findings and in the audit trail.
func TestOneWordForOneState(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ locale, finding, step, other string }{
		{"en", "Cross-check identity Warning", "5 Cross-check identity Data consistency Warning", "Needs review"},
		{"ko", "신원 교차 확인 주의", "5 신원 교차 확인 데이터 일관성 주의", "검토 필요"},
	} {
		t.Run(tc.locale, func(t *testing.T) {
			t.Parallel()
			text := fixtureReport(t, "analysis.json", tc.locale, false).text()
			wantText(t, text, tc.finding, tc.step)
			noText(t, text, tc.other)
		})
	}
}

// TestWrittenAsAPersonWould checks the words the issue found raw: checks
// by their labels, risk factors and the risk basis as sentences, plural
// forms, priorities as words, and the footer's punctuation.
func TestWrittenAsAPersonWould(t *testing.T) {
	t.Parallel()
	d := fixture(t, "analysis.json")
	t.Run("the analysis", func(t *testing.T) {
		t.Parallel()
		pages := fixtureReport(t, "analysis.json", "en", true).pages()
		body := textOf(bodyPages(pages, "Appendix: raw data"))
		wantText(t, body, "Cross-check identity Warning", "• Cross-check identity raised a warning.",
			"Risk basis Risk score 10 of 100, from 1 warning.", "Classified 2 documents:", "Reviewed 2 documents and compiled the decision.",
			"1 2 · Medium Confirm the account number", "Confidential, prepared for compliance review · "+d.Analysis.ID)
		noText(t, body, "cross_check_identity", "warning: ", "1 warning checks", "0 failed", "[Priority", "review. ·")
	})
	t.Run("one document", func(t *testing.T) {
		t.Parallel()
		one := variant(d, "en", false)
		one.Facts.Sentences = map[string][]engine.Fact{}
		for text, fs := range d.Facts.Sentences {
			one.Facts.Sentences[text] = fs
		}
		for _, f := range d.Analysis.Findings {
			if f.Category == "compile_review" {
				one.Facts.Sentences[f.Details] = []engine.Fact{{Key: engine.FactReviewed, Numbers: []int{1}}}
			}
		}
		wantText(t, textOf(pageRows(t, render(t, one))), "Reviewed 1 document and compiled the decision.")
	})
}

// TestSignOffAndCurrentState checks the reviewer's block, and that the
// report states the verification status and the profile's name it is
// given, those of when it is made.
func TestSignOffAndCurrentState(t *testing.T) {
	t.Parallel()
	d := fixture(t, "analysis.json")
	d.Analysis.VerificationStatus = profilesvc.VerificationApproved
	d.ProfileName = "Renamed Applicant"
	for _, tc := range []struct {
		locale string
		want   []string
		not    string
	}{
		{"en", []string{"Verification Approved", "Reviewer sign-off Verification Approved Reviewer Date Decision Approve Reject Request documents Signature",
			"Subject Renamed Applicant"}, "Pending review"},
		{"ko", []string{"검증 상태 승인됨", "검토자 확인 검증 상태 승인됨 검토자 일자 결정 승인 거절 추가 서류 요청 서명",
			"대상자 Renamed Applicant"}, "검토 대기"},
	} {
		t.Run(tc.locale, func(t *testing.T) {
			t.Parallel()
			text := textOf(pageRows(t, render(t, variant(d, tc.locale, false))))
			wantText(t, text, tc.want...)
			noText(t, text, tc.not)
		})
	}
}
