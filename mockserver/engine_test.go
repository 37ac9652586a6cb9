package mockserver

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/profilesvc/profilesvc-go"
)

// engineTestNow is the start of every fixture's analysis: the reference
// date of expiry checks.
var engineTestNow = time.Date(2026, 1, 15, 9, 30, 0, 0, time.UTC)

// engineDoc is a target item of a fixture, with text the engine reads.
func engineDoc(id, name string, typ profilesvc.ItemType, text string) InputItem {
	ct := "text/plain"
	if typ == profilesvc.ItemJSON {
		ct = "application/json"
	}
	return InputItem{ID: id, Name: name, Type: typ, ContentType: ct, Text: text, Readable: true, Data: []byte(text)}
}

const (
	enginePassport = "PASSPORT\nFull Name: Jane Doe\nDate of Birth: 1990-04-12\nPassport Number: X1234567\nExpiry Date: 2031-05-01\nNationality: Canadian\n"
	engineBank     = "Bank statement\nAccount holder: Jane Doe\nAddress: 12 Elm Street, Springfield\nDate of birth: 12/04/1990\nAccount number: 12345678\n"
	engineUtility  = `{"document_type": "utility bill", "customer_name": "Jane Doe", "address": "12 Elm Street, Springfield"}`
)

// engineWant is what a fixture must yield, field by field.
type engineWant struct {
	checks      map[string]profilesvc.CheckResult
	overall     profilesvc.CheckResult
	valid       map[string]bool
	findings    map[string]profilesvc.FindingResult // by action; the others passed
	score       float64
	level       profilesvc.RiskLevel
	action      profilesvc.FinalAction
	flags       []string
	values      map[string]any // extracted values that must be set
	topPriority int
}

func TestEngineFixtures(t *testing.T) {
	custom := Workflow{
		ID: "wf_income",
		OutputSchema: json.RawMessage(`{"type": "object", "properties": {
			"request_id": {"type": "string"},
			"employer_name": {"type": "string"},
			"monthly_income": {"type": "string"},
			"review_result": {"type": "object"},
			"policy_flags": {"type": "array"}}}`),
		Policy: []PolicyAction{
			{ActionName: "extract_income", Category: "Data Extraction", Query: "Read the employer and the income."},
			{ActionName: "check_income", Category: "Data Consistency", Query: "Compare the income across documents."},
		},
	}
	tests := []struct {
		name     string
		workflow Workflow
		items    []InputItem
		want     engineWant
	}{
		{
			name: "consistent identity documents",
			items: []InputItem{
				engineDoc("item_1", "passport.txt", profilesvc.ItemText, enginePassport),
				engineDoc("item_2", "statement.txt", profilesvc.ItemText, engineBank),
				engineDoc("item_3", "bill.json", profilesvc.ItemJSON, engineUtility),
			},
			want: engineWant{
				checks: map[string]profilesvc.CheckResult{
					"full_name": "pass", "date_of_birth": "pass", "address": "pass",
					"document_number": "needs_review", "expiry_date": "needs_review", "nationality": "needs_review",
					"account_number": "needs_review", "monthly_income": "unverifiable",
				},
				overall:  "needs_review",
				valid:    map[string]bool{"passport": true, "bank_statement": true, "utility_bill": true},
				findings: map[string]profilesvc.FindingResult{"cross_check_identity": "warning"},
				score:    10, level: "low", action: "approve", flags: []string{},
				values:      map[string]any{"full_name": "Jane Doe", "document_number": "X1234567", "address": "12 Elm Street, Springfield"},
				topPriority: 2,
			},
		},
		{
			name: "date of birth mismatch",
			items: []InputItem{
				engineDoc("item_1", "passport.txt", profilesvc.ItemText, enginePassport),
				engineDoc("item_2", "statement.txt", profilesvc.ItemText, strings.Replace(engineBank, "12/04/1990", "12/04/1991", 1)),
			},
			want: engineWant{
				checks:   map[string]profilesvc.CheckResult{"full_name": "pass", "date_of_birth": "fail", "address": "needs_review"},
				overall:  "fail",
				valid:    map[string]bool{"passport": true, "bank_statement": true},
				findings: map[string]profilesvc.FindingResult{"cross_check_identity": "failed"},
				score:    40, level: "medium", action: "manual_review", flags: []string{"data_mismatch:date_of_birth"},
				topPriority: 1,
			},
		},
		{
			name: "expired document",
			items: []InputItem{
				engineDoc("item_1", "passport.txt", profilesvc.ItemText, strings.Replace(enginePassport, "2031-05-01", "2020-05-01", 1)),
				engineDoc("item_2", "statement.txt", profilesvc.ItemText, engineBank),
			},
			want: engineWant{
				checks:  map[string]profilesvc.CheckResult{"full_name": "pass", "date_of_birth": "pass", "expiry_date": "needs_review"},
				overall: "needs_review",
				valid:   map[string]bool{"passport": false, "bank_statement": true},
				findings: map[string]profilesvc.FindingResult{
					"check_document_expiry": "failed", "cross_check_identity": "warning",
				},
				score: 50, level: "medium", action: "manual_review", flags: []string{"expired_document:passport.txt"},
				topPriority: 1,
			},
		},
		{
			name: "missing identity document",
			items: []InputItem{
				engineDoc("item_2", "statement.txt", profilesvc.ItemText, engineBank),
				engineDoc("item_3", "bill.json", profilesvc.ItemJSON, engineUtility),
			},
			want: engineWant{
				checks:  map[string]profilesvc.CheckResult{"full_name": "pass", "address": "pass", "document_number": "unverifiable", "expiry_date": "unverifiable"},
				overall: "needs_review",
				valid:   map[string]bool{"bank_statement": true, "utility_bill": true},
				findings: map[string]profilesvc.FindingResult{
					"classify_documents": "failed", "cross_check_identity": "warning", "verify_document_registry": "warning",
				},
				score: 60, level: "high", action: "reject", flags: []string{"missing_identity_document"},
				topPriority: 1,
			},
		},
		{
			name: "JSON-only profile",
			items: []InputItem{
				engineDoc("item_9", "applicant.json", profilesvc.ItemJSON,
					`{"document_type": "passport", "full_name": "Jane Doe", "date_of_birth": "1990-04-12", "document_number": "X1234567", "expiry_date": "2031-05-01", "address": "12 Elm Street"}`),
			},
			want: engineWant{
				checks:   map[string]profilesvc.CheckResult{"full_name": "needs_review", "monthly_income": "unverifiable"},
				overall:  "needs_review",
				valid:    map[string]bool{"passport": true},
				findings: map[string]profilesvc.FindingResult{"cross_check_identity": "warning"},
				score:    10, level: "low", action: "approve", flags: []string{},
				values:      map[string]any{"full_name": "Jane Doe", "expiry_date": "2031-05-01"},
				topPriority: 2,
			},
		},
		{
			name: "unreadable image beside a passport",
			items: []InputItem{
				engineDoc("item_1", "passport.txt", profilesvc.ItemText, enginePassport),
				{ID: "item_5", Name: "selfie.png", Type: profilesvc.ItemFile, ContentType: "image/png", Data: []byte("\x89PNG\r\n\x1a\n")},
			},
			want: engineWant{
				checks:  map[string]profilesvc.CheckResult{"full_name": "needs_review"},
				overall: "needs_review",
				valid:   map[string]bool{"passport": true, "document": false},
				findings: map[string]profilesvc.FindingResult{
					"classify_documents": "warning", "cross_check_identity": "warning",
				},
				score: 20, level: "low", action: "approve", flags: []string{"unreadable_document:selfie.png"},
				topPriority: 2,
			},
		},
		{
			name:     "custom workflow schema",
			workflow: custom,
			items: []InputItem{
				engineDoc("item_1", "payslip.txt", profilesvc.ItemText, "Payslip\nEmployer name: Acme Ltd\nMonthly income: 4,200 EUR\n"),
				engineDoc("item_2", "statement.txt", profilesvc.ItemText, "Bank statement\nAccount holder: Jane Doe\nMonthly income: 4,200 EUR\n"),
			},
			want: engineWant{
				findings: map[string]profilesvc.FindingResult{"check_income": "warning"},
				score:    10, level: "low", action: "approve", flags: []string{},
				values:      map[string]any{"employer_name": "Acme Ltd", "monthly_income": "4,200 EUR"},
				topPriority: 2,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wf := tt.workflow
			if wf.ID == "" {
				wf = DefaultWorkflow()
			}
			in := AnalysisInput{
				AnalysisID: "analysis_1", Profile: profilesvc.Profile{ID: "pf_fixture", Name: "Jane Doe"},
				Workflow: wf, Items: tt.items, RequestedAt: engineTestNow,
			}
			res, err := analyze(in)
			if err != nil {
				t.Fatal(err)
			}
			engineCheck(t, in, res, tt.want)
		})
	}
}

// engineCheck compares a result with what the fixture wants, and checks
// that the parts of the result agree with each other.
func engineCheck(t *testing.T, in AnalysisInput, res AnalysisResult, want engineWant) {
	t.Helper()
	data := profilesvc.ExtractedData(res.ExtractedData)

	// Risk and decision.
	if res.RiskAssessment.RiskScore != want.score || res.RiskAssessment.RiskLevel != want.level {
		t.Errorf("risk = %v %s, want %v %s (factors %v)", res.RiskAssessment.RiskScore, res.RiskAssessment.RiskLevel,
			want.score, want.level, res.RiskAssessment.RiskFactors)
	}
	rr, err := data.ReviewResult()
	if err != nil || rr == nil {
		t.Fatalf("review_result: %v %v", rr, err)
	}
	if rr.FinalAction != want.action || rr.FinalRiskLevel != res.RiskAssessment.RiskLevel {
		t.Errorf("review_result = %s %s, want %s %s", rr.FinalAction, rr.FinalRiskLevel, want.action, res.RiskAssessment.RiskLevel)
	}

	// Findings: one per action, in policy order, named after it.
	if len(res.Findings) != len(in.Workflow.Policy) {
		t.Fatalf("%d findings for %d actions", len(res.Findings), len(in.Workflow.Policy))
	}
	var factors []string
	for i, f := range res.Findings {
		act := in.Workflow.Policy[i]
		wantResult := profilesvc.FindingPassed
		if r, ok := want.findings[act.ActionName]; ok {
			wantResult = r
		}
		if f.Category != act.ActionName || f.SortOrder != i+1 || f.Result != wantResult {
			t.Errorf("finding %d = %s %s (sort %d), want %s %s: %s", i, f.Category, f.Result, f.SortOrder, act.ActionName, wantResult, f.Details)
		}
		if f.Result != profilesvc.FindingPassed {
			factors = append(factors, map[profilesvc.FindingResult]string{"failed": "failed: ", "warning": "warning: "}[f.Result]+f.Category)
		}
		// The audit log, history and raw results say the same.
		e := res.AgentAuditLog[i]
		if e.WorkID != i+1 || e.ActionName != act.ActionName || e.Category != act.Category || e.Query != act.Query {
			t.Errorf("audit entry %d = %+v, want action %+v", i, e, act)
		}
		raw, ok := res.RawActionResults[act.ActionName]
		if !ok || raw.WorkID != i+1 || raw.VerificationStatus != e.VerificationStatus {
			t.Errorf("raw result of %s = %+v, audit says %s", act.ActionName, raw, e.VerificationStatus)
		}
		h := res.SystemMetadata.WorkflowHistory[i]
		if h.WorkID != i+1 || h.ActionName != act.ActionName {
			t.Errorf("history entry %d = %+v", i, h)
		}
		if e.RAGResponse != nil && raw.CitationsCount != len(e.RAGResponse.Citations) {
			t.Errorf("%s: citationsCount %d, citations %d", act.ActionName, raw.CitationsCount, len(e.RAGResponse.Citations))
		}
	}
	sortedFactors := append([]string(nil), factors...)
	if diff := cmp.Diff(engineSortFactors(sortedFactors), engineSortFactors(res.RiskAssessment.RiskFactors)); diff != "" {
		t.Errorf("risk factors (-from findings +got):\n%s", diff)
	}
	var total int64
	for _, e := range res.AgentAuditLog {
		total += e.DurationMs
	}
	if total != res.ProcessingTimeMs {
		t.Errorf("durations add up to %d ms, processing time %d ms", total, res.ProcessingTimeMs)
	}

	// Judgements and validations.
	if want.checks != nil {
		cj, err := data.CategoryJudgements()
		if err != nil || cj == nil {
			t.Fatalf("category_judgements: %v %v", cj, err)
		}
		for f, r := range want.checks {
			if got := cj.Checks[f]; got.Result != r || got.Reason == "" {
				t.Errorf("%s check = %+v, want %s with a reason", f, got, r)
			}
		}
		if cj.OverallConsistencyResult != want.overall || cj.OverallConsistencyReason == "" {
			t.Errorf("overall = %s %q, want %s", cj.OverallConsistencyResult, cj.OverallConsistencyReason, want.overall)
		}
	}
	if want.valid != nil {
		dv, err := data.DocumentValidations()
		if err != nil {
			t.Fatal(err)
		}
		for doc, v := range want.valid {
			if got, ok := dv[doc]; !ok || got.IsValid != v || got.Reason == "" {
				t.Errorf("%s validation = %+v (present %v), want valid %v with a reason", doc, got, ok, v)
			}
		}
	}
	flags, err := data.PolicyFlags()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want.flags, flags); diff != "" {
		t.Errorf("policy_flags (-want +got):\n%s", diff)
	}

	// Values.
	var top map[string]any
	if err := data.Decode(&top); err != nil {
		t.Fatal(err)
	}
	values, _ := top["extracted_values"].(map[string]any)
	if values == nil {
		values = top // a schema without extracted_values fills its own fields
	}
	for k, v := range want.values {
		if values[k] != v {
			t.Errorf("value %s = %v, want %v", k, values[k], v)
		}
	}
	if top["request_id"] != in.Profile.ID {
		t.Errorf("request_id = %v, want %s", top["request_id"], in.Profile.ID)
	}
	for k, st := range res.ExtractionStatus {
		if _, ok := top[k]; !ok {
			t.Errorf("extractionStatus names %s, which extractedData lacks", k)
		}
		if st != profilesvc.Extracted && st != profilesvc.ExtractionMissing {
			t.Errorf("extractionStatus[%s] = %s", k, st)
		}
	}

	// Recommendations follow the failures, highest priority first, and the
	// next steps repeat them.
	if len(res.Recommendations) == 0 || res.Recommendations[0].Priority != want.topPriority {
		t.Errorf("recommendations = %+v, want priority %d first", res.Recommendations, want.topPriority)
	}
	steps, _ := data.RecommendedNextSteps()
	if _, hasSteps := top["recommended_next_steps"]; hasSteps && len(steps) != len(res.Recommendations) {
		t.Errorf("%d next steps for %d recommendations", len(steps), len(res.Recommendations))
	}
	for i, r := range res.Recommendations {
		if r.SortOrder != i+1 || (i > 0 && r.Priority < res.Recommendations[i-1].Priority) {
			t.Errorf("recommendation %d = %+v out of order", i, r)
		}
	}

	// The filled schema holds the same data.
	var schema struct {
		Properties map[string]struct {
			Value json.RawMessage `json:"value"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(res.OutputSchema, &schema); err != nil {
		t.Fatal(err)
	}
	for k := range top {
		want, _ := json.Marshal(top[k])
		var got any
		_ = json.Unmarshal(schema.Properties[k].Value, &got)
		gotJSON, _ := json.Marshal(got)
		if string(want) != string(gotJSON) {
			t.Errorf("outputSchema.properties.%s.value = %s, extractedData has %s", k, gotJSON, want)
		}
	}
}

func engineSortFactors(f []string) []string {
	out := append([]string{}, f...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func TestEngineCitationsPointAtTheDocuments(t *testing.T) {
	in := AnalysisInput{
		Profile: profilesvc.Profile{ID: "pf_1"}, Workflow: DefaultWorkflow(), RequestedAt: engineTestNow,
		Items: []InputItem{
			engineDoc("item_1", "passport.txt", profilesvc.ItemText, enginePassport),
			engineDoc("item_2", "statement.txt", profilesvc.ItemText, engineBank),
		},
	}
	res, err := analyze(in)
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{"item_1": enginePassport, "item_2": engineBank}
	rag, mcp := 0, 0
	for _, e := range res.AgentAuditLog {
		if e.MCPToolCalls != nil {
			mcp++
			call := e.MCPToolCalls[0]
			if call.ToolName == "" || call.Params["documentNumber"] != "X1234567" || !call.Success || call.FallbackToRAG || call.RawContent == nil {
				t.Errorf("registry call = %+v", call)
			}
		}
		if e.RAGResponse == nil {
			continue
		}
		rag++
		if e.RAGResponse.ChunksSearched < 2 || len(e.RAGResponse.Citations) == 0 {
			t.Errorf("%s: %d chunks searched, %d citations", e.ActionName, e.RAGResponse.ChunksSearched, len(e.RAGResponse.Citations))
		}
		for _, c := range e.RAGResponse.Citations {
			text := texts[fmt.Sprint(c["itemId"])]
			start, end := int(c["start"].(int)), int(c["end"].(int))
			if text == "" || start < 0 || end > len(text) || start >= end || strings.TrimSpace(text[start:end]) != c["text"] {
				t.Errorf("%s: citation %v does not quote its item", e.ActionName, c)
			}
		}
	}
	if rag == 0 || mcp != 1 {
		t.Errorf("%d retrieval steps and %d tool steps, want some and 1", rag, mcp)
	}
}

func TestEngineIsDeterministic(t *testing.T) {
	in := AnalysisInput{
		Profile: profilesvc.Profile{ID: "pf_1"}, Workflow: DefaultWorkflow(), RequestedAt: engineTestNow,
		Items: []InputItem{
			engineDoc("item_1", "passport.txt", profilesvc.ItemText, enginePassport),
			engineDoc("item_2", "statement.txt", profilesvc.ItemText, strings.Replace(engineBank, "1990", "1991", 1)),
			engineDoc("item_3", "bill.json", profilesvc.ItemJSON, engineUtility),
		},
	}
	first, err := analyze(in)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		again, err := analyze(in)
		if err != nil {
			t.Fatal(err)
		}
		a, _ := json.Marshal(first)
		b, _ := json.Marshal(again)
		if string(a) != string(b) {
			t.Fatalf("run %d differs:\n%s\n%s", i, a, b)
		}
	}
}

// TestEngineDeterministicThroughTheServer runs the same documents on
// servers with different IDs: the results are the same but for the IDs, and
// byte for byte the same under the same ID seed and clock.
func TestEngineDeterministicThroughTheServer(t *testing.T) {
	run := func(seed uint64, start time.Time) *profilesvc.Analysis {
		srv := NewTest(t, WithManualAnalyses(), WithIDSeed(seed), WithClock(NewFakeClock(start)))
		p, err := srv.CreateProfile(DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Jane Doe"})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, d := range []struct{ name, text string }{{"passport.txt", enginePassport}, {"statement.txt", engineBank}} {
			it, err := srv.AddTextItem(p.Folders[0].ID, d.name, d.text)
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, it.ID)
		}
		id, e := srv.startAnalysis(p.ID, ids, nil, nil)
		if e != nil {
			t.Fatal(e)
		}
		if err := srv.CompleteAnalysis(id); err != nil {
			t.Fatal(err)
		}
		a, _ := srv.Analysis(id)
		return a
	}
	t0 := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	a := run(1, t0)
	b := run(2, t0)
	if a.ID == b.ID {
		t.Fatal("different seeds gave the same IDs")
	}
	// Under a fixed ID seed and clock, the whole analysis is the same,
	// byte for byte.
	if again := run(1, t0); string(again.Raw) != string(a.Raw) {
		t.Errorf("same seed and clock, different analyses:\n%s\n%s", a.Raw, again.Raw)
	}
	norm := func(s string) string {
		s = strings.ReplaceAll(s, a.ProfileID, "PROFILE")
		s = strings.ReplaceAll(s, b.ProfileID, "PROFILE")
		for _, ti := range append(a.TargetItems, b.TargetItems...) {
			s = strings.ReplaceAll(s, ti.ItemID, "ITEM")
		}
		return s
	}
	if norm(string(a.ExtractedData)) != norm(string(b.ExtractedData)) {
		t.Errorf("extracted data differs:\n%s\n%s", a.ExtractedData, b.ExtractedData)
	}
	ignore := cmp.Options{
		cmp.FilterPath(func(p cmp.Path) bool {
			switch p.Last().String() {
			case ".ID", ".ItemID", ".ExecutedAt", ".Timestamp", ".StartedAt", `["itemId"]`:
				return true
			}
			return false
		}, cmp.Ignore()),
		cmp.Transformer("norm", func(s []string) []string {
			out := make([]string, len(s))
			for i, x := range s {
				out[i] = norm(x)
			}
			return out
		}),
	}
	for name, pair := range map[string][2]any{
		"findings": {a.Findings, b.Findings}, "risk": {a.RiskAssessment, b.RiskAssessment},
		"recommendations": {a.Recommendations, b.Recommendations}, "audit log": {a.AgentAuditLog, b.AgentAuditLog},
		"raw results": {a.RawActionResults, b.RawActionResults}, "processing time": {a.ProcessingTimeMs, b.ProcessingTimeMs},
	} {
		if diff := cmp.Diff(pair[0], pair[1], ignore); diff != "" {
			t.Errorf("%s differ:\n%s", name, diff)
		}
	}
}
