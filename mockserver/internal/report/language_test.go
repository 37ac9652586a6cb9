package report_test

// Tests of the report's languages: every fact the engine writes is said
// in English and in Korean, the Korean report has no English sentence of
// the engine's, its Hangul is in the font, and a sentence without facts
// shows as given.

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver/engine"
	"github.com/profilesvc/profilesvc-go/mockserver/internal/pdftest"
	"github.com/profilesvc/profilesvc-go/mockserver/internal/report"
	"github.com/profilesvc/profilesvc-go/mockserver/internal/report/font"
)

const (
	testPassport = "PASSPORT\nFull Name: Jane Doe\nDate of Birth: 1990-04-12\nPassport Number: X1234567\nExpiry Date: 2031-05-01\nNationality: Canadian\n"
	testBank     = "Bank statement\nAccount holder: Jane Doe\nAddress: 12 Elm Street\nDate of birth: 12/04/1990\nAccount number: 12345678\n"
	testBill     = "Utility bill\nCustomer name: Jane Doe\nAddress: 12 Elm Street\n"
)

// textDoc is a readable text document.
func textDoc(id, name, text string) engine.Document {
	return engine.Document{ID: id, Name: name, Type: profilesvc.ItemText, ContentType: "text/plain", Text: text,
		Readable: true, Data: []byte(text)}
}

// imageDoc is an image no text can be read from.
func imageDoc(id, name string) engine.Document {
	return engine.Document{ID: id, Name: name, Type: profilesvc.ItemFile, ContentType: "image/png", Data: []byte("\x89PNG\r\n\x1a\n")}
}

// engineCases are analyses that, together, make the engine write every
// kind of sentence it has.
func engineCases() map[string]engine.Input {
	in := func(docs ...engine.Document) engine.Input {
		return engine.Input{AnalysisID: "analysis_t", Profile: profilesvc.Profile{ID: "pf_t", Name: "Jane Doe"},
			Workflow: engine.DefaultWorkflow(), Items: docs, RequestedAt: pdfStart}
	}
	agreeing := engine.Workflow{ID: "wf_agree", Name: "Agreeing",
		OutputSchema: []byte(`{"type": "object", "properties": {"review_result": {"type": "object"}, "extracted_values": {"type": "object",
			"properties": {"full_name": {"type": "string"}, "address": {"type": "string"}}}, "category_judgements": {"type": "object"},
			"document_validations": {"type": "object"}}}`),
		Policy: []engine.PolicyAction{
			{ActionName: "classify_documents", Category: "Document Classification"},
			{ActionName: "extract_identity_fields", Category: "Data Extraction"},
			{ActionName: "cross_check_identity", Category: "Data Consistency"},
			{ActionName: "check_sanctions_list", Category: "Custom screening"},
			{ActionName: "compile_review", Category: "Document Processing"},
		}}
	allAgree := in(textDoc("item_2", "statement.txt", testBank), textDoc("item_3", "bill.txt", testBill))
	allAgree.Workflow = agreeing
	return map[string]engine.Input{
		"consistent": in(textDoc("item_1", "passport.txt", testPassport), textDoc("item_2", "statement.txt", testBank),
			textDoc("item_3", "bill.txt", testBill)),
		"trouble": in(textDoc("item_1", "passport.txt", strings.Replace(testPassport, "2031", "2020", 1)),
			textDoc("item_2", "statement.txt", strings.Replace(testBank, "1990", "1991", 1)),
			imageDoc("item_4", "selfie.png"), textDoc("item_5", "notes.txt", "Hello: world\n")),
		"no identity":  in(textDoc("item_2", "statement.txt", testBank), textDoc("item_3", "bill.txt", testBill)),
		"mismatch":     in(textDoc("item_1", "passport.txt", testPassport), textDoc("item_2", "statement.txt", strings.Replace(testBank, "1990", "1991", 1))),
		"malformed":    in(textDoc("item_1", "passport.txt", strings.NewReplacer("1990-04-12", "31/31/1990", "X1234567", "??").Replace(testPassport))),
		"incomplete":   in(textDoc("item_1", "passport.txt", "PASSPORT\nFull Name: Jane Doe\nDate of Birth: 1990-04-12\nPassport Number: X1234567\n")),
		"illegible":    in(imageDoc("item_4", "selfie.png")),
		"all agree":    allAgree,
		"scripted":     in(textDoc("item_1", "passport.txt", testPassport+"mock:risk=high\n")),
		"scripted low": in(textDoc("item_1", "passport.txt", testPassport+"mock:risk=low\n")),
	}
}

// engineFacts runs the engine on every case and returns its facts.
func engineFacts(t *testing.T) map[string]engine.Facts {
	t.Helper()
	out := map[string]engine.Facts{}
	for name, in := range engineCases() {
		res, err := engine.Default(context.Background(), in)
		require.NoError(t, err, name)
		out[name] = res.Facts
	}
	return out
}

// TestEveryFactIsSaidInBothLanguages checks that the report says every
// fact the engine writes, in English and in Korean, and knows no key the
// engine never writes.
func TestEveryFactIsSaidInBothLanguages(t *testing.T) {
	t.Parallel()
	seen := map[engine.FactKey]bool{}
	for name, facts := range engineFacts(t) {
		for text, fs := range facts.Sentences {
			for _, f := range fs {
				seen[f.Key] = true
				for _, locale := range []string{"en", "ko"} {
					said, ok := report.SayFact(locale, f)
					if assert.True(t, ok, "%s: %s has no words for %q (%q)", name, locale, f.Key, text) {
						assert.NotEmpty(t, said, "%s: %s says %q as nothing", name, locale, f.Key)
					}
				}
			}
		}
	}
	if diff := cmp.Diff(slices.Sorted(maps.Keys(seen)), report.FactKeys()); diff != "" {
		t.Errorf("the facts the engine writes, against those the report says (-engine +report):\n%s", diff)
	}
}

// TestKoreanIsInTheFont checks that every character of the Korean
// report's words and sentences has a glyph, Hangul in NanumGothic.
func TestKoreanIsInTheFont(t *testing.T) {
	t.Parallel()
	texts := report.Words("ko")
	for _, facts := range engineFacts(t) {
		for _, fs := range facts.Sentences {
			for _, f := range fs {
				said, _ := report.SayFact("ko", f)
				texts = append(texts, said)
			}
		}
	}
	for _, s := range texts {
		assert.True(t, report.Drawable(s), "%q has a character no font of the report has", s)
		for _, c := range s {
			if unicode.Is(unicode.Hangul, c) {
				assert.True(t, font.Covers(c), "%q: NanumGothic lacks %q", s, c)
			}
		}
	}
	for _, fx := range []string{"analysis.json", "mismatch.json"} {
		for _, raw := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/raw=%v", fx, raw), func(t *testing.T) {
				t.Parallel()
				assert.NotContains(t, fixtureReport(t, fx, "ko", raw).text(), "□", "a character drawn as a replacement")
			})
		}
	}
}

// englishWord finds words a Korean reader would read as English prose:
// the common words of the engine's sentences. Names of documents, tools
// and content types (which hold _ . / or -) are not words.
var englishWord = regexp.MustCompile(`(?i)(^|[^A-Za-z_./-])(the|of|and|with|shows?|could|not|was|were|is|are|has|have|from|only|every|no|by|for|to|on|in|as|be|document|documents|value|values|check|checks|field|fields|failed|passed|warning|found|agree|disagree)([^A-Za-z_./-]|$)`)

// quotation is a passage quoted from a document, which is the document's
// own language.
var quotation = regexp.MustCompile(`“[^”]*”`)

// TestKoreanSaysNoEnglishFromTheEngine checks, on the text of Korean
// reports, that no sentence, name or identifier the engine or the mock
// wrote in English shows before the raw-data appendix (which is the data
// as the service returns it), and no English word at all outside the
// documents' own words.
func TestKoreanSaysNoEnglishFromTheEngine(t *testing.T) {
	t.Parallel()
	for _, fx := range []string{"analysis.json", "typical.json", "mismatch.json"} {
		d := fixture(t, fx)
		for _, raw := range []bool{false, true} {
			t.Run(fx+"/raw="+map[bool]string{false: "false", true: "true"}[raw], func(t *testing.T) {
				t.Parallel()
				pages := bodyPages(fixtureReport(t, fx, "ko", raw).pages(), "부록: 원시 데이터")
				text := textOf(pages)
				for _, s := range engineEnglish(d) {
					if strings.Contains(text, pdftest.Norm(s)) {
						t.Errorf("the Korean report shows %q", s)
					}
				}
				prose := quotation.ReplaceAllString(text, "“”")
				if m := englishWord.FindAllString(prose, 5); len(m) > 0 {
					t.Errorf("English words in the Korean report: %q\nin %s", m, prose)
				}
			})
		}
	}
}

// engineEnglish lists what the engine and the mock wrote in English of
// an analysis: its sentences, the audit's reasoning and queries, the raw
// answers, the tools' names and reasons, the names of its actions and
// categories, and the workflow's name.
func engineEnglish(d report.Data) []string {
	var out []string
	for s := range d.Facts.Sentences {
		out = append(out, s)
	}
	a := d.Analysis
	for _, e := range a.AgentAuditLog {
		out = append(out, e.Reasoning, e.Query, e.ActionName, e.Category)
		for _, c := range e.MCPToolCalls {
			out = append(out, c.EngineName, c.SelectionReason)
		}
	}
	for _, r := range a.RawActionResults {
		out = append(out, r.Answer)
	}
	out = append(out, d.WorkflowName)
	return slices.DeleteFunc(out, func(s string) bool { return len(s) < 3 })
}

// TestSentencesWithoutFactsShowAsGiven checks that the report says, as
// given, a sentence the engine did not write (its facts missing, or the
// sentence changed after it), and the others from their facts.
func TestSentencesWithoutFactsShowAsGiven(t *testing.T) {
	t.Parallel()
	d := fixture(t, "analysis.json")
	var expiry, consistency *profilesvc.Finding
	findings := slices.Clone(d.Analysis.Findings)
	for i := range findings {
		switch findings[i].Category {
		case "check_document_expiry":
			expiry = &findings[i]
		case "cross_check_identity":
			consistency = &findings[i]
		}
	}
	require.True(t, expiry != nil && consistency != nil, "the fixture's findings: %+v", findings)
	given := expiry.Details

	t.Run("no facts", func(t *testing.T) {
		t.Parallel()
		d := variant(d, "ko", false)
		d.Facts = engine.Facts{}
		text := textOf(pageRows(t, render(t, d)))
		wantText(t, text, given, d.Analysis.RiskAssessment.RiskFactors[0])
		// Without the documents' facts, values and validations show as
		// the analysis has them.
		wantText(t, text, "문서 유효성", "bank_statement.txt is a bank statement with every required field.")
	})
	t.Run("a sentence changed", func(t *testing.T) {
		t.Parallel()
		d := variant(d, "ko", false)
		consistency.Details = "Changed by the test's analyzer."
		d.Analysis.Findings = findings
		text := textOf(pageRows(t, render(t, d)))
		wantText(t, text, "Changed by the test's analyzer.", "2025년 3월 4일 기준으로 만료된 문서가 없습니다.")
		noText(t, text, given)
	})
}
