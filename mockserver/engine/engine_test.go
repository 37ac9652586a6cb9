package engine_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver/engine"
)

// incomeWorkflow is a workflow of its own, whose schema has no
// extracted_values: the engine fills its top-level string properties.
var incomeWorkflow = engine.Workflow{
	ID: "wf_income",
	OutputSchema: json.RawMessage(`{"type": "object", "properties": {
			"request_id": {"type": "string"},
			"employer_name": {"type": "string"},
			"monthly_income": {"type": "string"},
			"review_result": {"type": "object"},
			"policy_flags": {"type": "array"}}}`),
	Policy: []engine.PolicyAction{
		{ActionName: "extract_income", Category: "Data Extraction", Query: "Read the employer and the income."},
		{ActionName: "check_income", Category: "Data Consistency", Query: "Compare the income across documents."},
	},
}

// fixtures are analyses of documents under wf_default, or a workflow of
// their own, with what each must yield.
var fixtures = []struct {
	name     string
	golden   string // the file under testdata of the whole result
	workflow engine.Workflow
	items    []engine.Document
	want     want
}{
	{
		name:   "consistent identity documents",
		golden: "consistent",
		items: []engine.Document{
			testDoc("item_1", "passport.txt", profilesvc.ItemText, passportText),
			testDoc("item_2", "statement.txt", profilesvc.ItemText, bankText),
			testDoc("item_3", "bill.json", profilesvc.ItemJSON, utilityJSON),
		},
		want: want{
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
		name:   "date of birth mismatch",
		golden: "mismatch",
		items: []engine.Document{
			testDoc("item_1", "passport.txt", profilesvc.ItemText, passportText),
			testDoc("item_2", "statement.txt", profilesvc.ItemText, strings.Replace(bankText, "12/04/1990", "12/04/1991", 1)),
		},
		want: want{
			checks:   map[string]profilesvc.CheckResult{"full_name": "pass", "date_of_birth": "fail", "address": "needs_review"},
			overall:  "fail",
			valid:    map[string]bool{"passport": true, "bank_statement": true},
			findings: map[string]profilesvc.FindingResult{"cross_check_identity": "failed"},
			score:    40, level: "medium", action: "manual_review", flags: []string{"data_mismatch:date_of_birth"},
			topPriority: 1,
		},
	},
	{
		name:   "expired document",
		golden: "expired",
		items: []engine.Document{
			testDoc("item_1", "passport.txt", profilesvc.ItemText, strings.Replace(passportText, "2031-05-01", "2020-05-01", 1)),
			testDoc("item_2", "statement.txt", profilesvc.ItemText, bankText),
		},
		want: want{
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
		name:   "missing identity document",
		golden: "no_identity",
		items: []engine.Document{
			testDoc("item_2", "statement.txt", profilesvc.ItemText, bankText),
			testDoc("item_3", "bill.json", profilesvc.ItemJSON, utilityJSON),
		},
		want: want{
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
		name:   "JSON-only profile",
		golden: "json_only",
		items: []engine.Document{
			testDoc("item_9", "applicant.json", profilesvc.ItemJSON,
				`{"document_type": "passport", "full_name": "Jane Doe", "date_of_birth": "1990-04-12", "document_number": "X1234567", "expiry_date": "2031-05-01", "address": "12 Elm Street"}`),
		},
		want: want{
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
		name:   "unreadable image beside a passport",
		golden: "unreadable",
		items: []engine.Document{
			testDoc("item_1", "passport.txt", profilesvc.ItemText, passportText),
			{ID: "item_5", Name: "selfie.png", Type: profilesvc.ItemFile, ContentType: "image/png", Data: []byte("\x89PNG\r\n\x1a\n")},
		},
		want: want{
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
		golden:   "custom_schema",
		workflow: incomeWorkflow,
		items: []engine.Document{
			testDoc("item_1", "payslip.txt", profilesvc.ItemText, "Payslip\nEmployer name: Acme Ltd\nMonthly income: 4,200 EUR\n"),
			testDoc("item_2", "statement.txt", profilesvc.ItemText, "Bank statement\nAccount holder: Jane Doe\nMonthly income: 4,200 EUR\n"),
		},
		want: want{
			findings: map[string]profilesvc.FindingResult{"check_income": "warning"},
			score:    10, level: "low", action: "approve", flags: []string{},
			values:      map[string]any{"employer_name": "Acme Ltd", "monthly_income": "4,200 EUR"},
			topPriority: 2,
		},
	},
}

func TestFixtures(t *testing.T) {
	for _, tt := range fixtures {
		t.Run(tt.name, func(t *testing.T) {
			in := testInput(tt.items...)
			if tt.workflow.ID != "" {
				in.Workflow = tt.workflow
			}
			res := analyze(t, in)
			checkResult(t, in, res, tt.want)
			checkGolden(t, tt.golden, res)
		})
	}
}

func TestCitationsPointAtTheDocuments(t *testing.T) {
	in := testInput(
		testDoc("item_1", "passport.txt", profilesvc.ItemText, passportText),
		testDoc("item_2", "statement.txt", profilesvc.ItemText, bankText),
	)
	res := analyze(t, in)
	texts := map[string]string{"item_1": passportText, "item_2": bankText}
	rag, mcp := 0, 0
	for _, e := range res.AgentAuditLog {
		if e.MCPToolCalls != nil {
			mcp++
			call := e.MCPToolCalls[0]
			assert.NotEmpty(t, call.ToolName, "registry call: tool name")
			assert.Equal(t, "X1234567", call.Params["documentNumber"], "registry call: document number")
			assert.True(t, call.Success, "registry call: success")
			assert.False(t, call.FallbackToRAG, "registry call: fallback to retrieval")
			assert.NotNil(t, call.RawContent, "registry call: raw content")
		}
		if e.RAGResponse == nil {
			continue
		}
		rag++
		assert.GreaterOrEqual(t, e.RAGResponse.ChunksSearched, 2, "%s: chunks searched", e.ActionName)
		assert.NotEmpty(t, e.RAGResponse.Citations, "%s: citations", e.ActionName)
		for _, c := range e.RAGResponse.Citations {
			text := texts[fmt.Sprint(c["itemId"])]
			start, end := c["start"].(int), c["end"].(int)
			quotes := text != "" && start >= 0 && end <= len(text) && start < end && strings.TrimSpace(text[start:end]) == c["text"]
			assert.True(t, quotes, "%s: citation %v does not quote its item", e.ActionName, c)
		}
	}
	assert.NotZero(t, rag, "retrieval steps")
	assert.Equal(t, 1, mcp, "tool steps")
}

func TestIsDeterministic(t *testing.T) {
	in := testInput(
		testDoc("item_1", "passport.txt", profilesvc.ItemText, passportText),
		testDoc("item_2", "statement.txt", profilesvc.ItemText, strings.Replace(bankText, "1990", "1991", 1)),
		testDoc("item_3", "bill.json", profilesvc.ItemJSON, utilityJSON),
	)
	first, err := json.Marshal(analyze(t, in))
	require.NoError(t, err)
	for i := 0; i < 5; i++ {
		again, err := json.Marshal(analyze(t, in))
		require.NoError(t, err)
		require.Equal(t, string(first), string(again), "run %d differs", i)
	}
}

func TestScriptedRisk(t *testing.T) {
	tests := []struct {
		name, text string
		score      float64
		level      profilesvc.RiskLevel
		action     profilesvc.FinalAction
		reason     string // the final action's reason, when it says so
	}{
		{name: "high", text: passportText + "mock:risk=high\n", score: 85, level: profilesvc.RiskHigh,
			action: profilesvc.ActionReject, reason: "The risk was scripted as high."},
		{name: "medium", text: passportText + "mock:risk=medium\n", score: 45, level: profilesvc.RiskMedium,
			action: profilesvc.ActionManualReview},
		{name: "low over a failure", text: "PASSPORT\nFull Name: Jane Doe\nExpiry Date: 2001-01-01\nmock:risk=low\n", score: 10,
			level: profilesvc.RiskLow, action: profilesvc.ActionApprove},
		{name: "unknown level", text: passportText + "mock:risk=extreme\n", score: 10, level: profilesvc.RiskLow,
			action: profilesvc.ActionApprove},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := analyze(t, testInput(testDoc("item_1", "doc", profilesvc.ItemText, tt.text)))
			ra := res.RiskAssessment
			assert.Equal(t, tt.score, ra.RiskScore, "risk score")
			assert.Equal(t, tt.level, ra.RiskLevel, "risk level")
			require.NotEmpty(t, ra.RiskFactors)
			assert.Equal(t, "scripted outcome: mock:risk="+strings.TrimSuffix(tt.text[strings.LastIndex(tt.text, "=")+1:], "\n"),
				ra.RiskFactors[len(ra.RiskFactors)-1], "the last risk factor")
			rr, err := profilesvc.ExtractedData(res.ExtractedData).ReviewResult()
			require.NoError(t, err)
			assert.Equal(t, tt.action, rr.FinalAction)
			assert.Equal(t, tt.level, rr.FinalRiskLevel)
			if tt.reason != "" {
				assert.Equal(t, tt.reason, rr.FinalActionReason)
			}
		})
	}
}

func TestParseScript(t *testing.T) {
	doc := func(name, text string, metadata map[string]any) engine.Document {
		d := testDoc("item_1", name, profilesvc.ItemText, text)
		d.Metadata = metadata
		return d
	}
	tests := []struct {
		name string
		docs []engine.Document
		want engine.Script
	}{
		{name: "none", docs: []engine.Document{doc("passport.txt", passportText, nil)}},
		{name: "fail in the content", docs: []engine.Document{doc("doc", passportText+"mock:fail=Registry offline\n", nil)},
			want: engine.Script{Fail: "Registry offline"}},
		{name: "fail in the name", docs: []engine.Document{doc("passport mock:fail=unreadable", passportText, nil)},
			want: engine.Script{Fail: "unreadable"}},
		{name: "fail in the metadata", docs: []engine.Document{doc("doc", passportText, map[string]any{"note": "mock:fail=blocked"})},
			want: engine.Script{Fail: "blocked"}},
		{name: "every key", docs: []engine.Document{doc("doc", "mock:risk=high\nmock:duration=5s, mock:fail=boom", nil)},
			want: engine.Script{Fail: "boom", Risk: "high", Duration: 5e9, HasDuration: true}},
		{name: "first value counts: name before text, documents in order", docs: []engine.Document{
			doc("a mock:risk=low", "mock:risk=high", nil), doc("b mock:risk=medium", "", nil)},
			want: engine.Script{Risk: "low"}},
		{name: "risk as written", docs: []engine.Document{doc("doc", "mock:risk=extreme", nil)},
			want: engine.Script{Risk: "extreme"}},
		{name: "zero duration", docs: []engine.Document{doc("doc", "mock:duration=0s", nil)},
			want: engine.Script{HasDuration: true}},
		{name: "duration over an hour", docs: []engine.Document{doc("doc", "mock:duration=61m", nil)}},
		{name: "duration that does not parse", docs: []engine.Document{doc("doc", "mock:duration=soon", nil)}},
		{name: "first duration counts, even a bad one", docs: []engine.Document{doc("doc", "mock:duration=soon\nmock:duration=1s", nil)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := testInput(tt.docs...)
			assert.Equal(t, tt.want, engine.ParseScript(in))
		})
	}
}
