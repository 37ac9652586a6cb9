package engine_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver/engine"
)

// update rewrites the golden files under testdata from the engine's
// results: go test ./mockserver/engine -update.
var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// testNow is the start of every fixture's analysis: the reference date of
// expiry checks.
var testNow = time.Date(2026, 1, 15, 9, 30, 0, 0, time.UTC)

// The documents of the fixtures.
const (
	passportText = "PASSPORT\nFull Name: Jane Doe\nDate of Birth: 1990-04-12\nPassport Number: X1234567\nExpiry Date: 2031-05-01\nNationality: Canadian\n"
	bankText     = "Bank statement\nAccount holder: Jane Doe\nAddress: 12 Elm Street, Springfield\nDate of birth: 12/04/1990\nAccount number: 12345678\n"
	utilityJSON  = `{"document_type": "utility bill", "customer_name": "Jane Doe", "address": "12 Elm Street, Springfield"}`
)

// testDoc is a target item of a fixture, with text the engine reads.
func testDoc(id, name string, typ profilesvc.ItemType, text string) engine.Document {
	ct := "text/plain"
	if typ == profilesvc.ItemJSON {
		ct = "application/json"
	}
	return engine.Document{ID: id, Name: name, Type: typ, ContentType: ct, Text: text, Readable: true, Data: []byte(text)}
}

// testInput is an analysis of the documents under wf_default.
func testInput(docs ...engine.Document) engine.Input {
	return engine.Input{
		AnalysisID: "analysis_1", Profile: profilesvc.Profile{ID: "pf_fixture", Name: "Jane Doe"},
		Workflow: engine.DefaultWorkflow(), Items: docs, RequestedAt: testNow,
	}
}

// analyze runs the default engine, which must not fail.
func analyze(t *testing.T, in engine.Input) engine.Result {
	t.Helper()
	res, err := engine.Default(context.Background(), in)
	require.NoError(t, err)
	return res
}

// want is what a fixture must yield, field by field.
type want struct {
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

// checkResult compares a result with what the fixture wants, and checks
// that the parts of the result agree with each other.
func checkResult(t *testing.T, in engine.Input, res engine.Result, w want) {
	t.Helper()
	data := profilesvc.ExtractedData(res.ExtractedData)
	checkDecision(t, res, data, w)
	checkTrace(t, in, res, w)
	checkJudgements(t, data, w)
	top := checkValues(t, in, res, data, w)
	checkRecommendations(t, res, data, top, w)
	checkFilledSchema(t, res, top)
}

// checkDecision checks the risk and the review result.
func checkDecision(t *testing.T, res engine.Result, data profilesvc.ExtractedData, w want) {
	t.Helper()
	ra := res.RiskAssessment
	assert.Equal(t, w.score, ra.RiskScore, "risk score (factors %v)", ra.RiskFactors)
	assert.Equal(t, w.level, ra.RiskLevel, "risk level (factors %v)", ra.RiskFactors)
	rr, err := data.ReviewResult()
	require.NoError(t, err, "review_result")
	require.NotNil(t, rr, "review_result")
	assert.Equal(t, w.action, rr.FinalAction, "review_result.final_action")
	assert.Equal(t, ra.RiskLevel, rr.FinalRiskLevel, "review_result.final_risk_level")
}

// checkTrace checks the findings, one per action, in policy order, named
// after it, and that the audit log, history, raw results, risk factors and
// processing time say the same.
func checkTrace(t *testing.T, in engine.Input, res engine.Result, w want) {
	t.Helper()
	require.Len(t, res.Findings, len(in.Workflow.Policy), "one finding per action")
	var factors []string
	for i, f := range res.Findings {
		act := in.Workflow.Policy[i]
		wantResult := profilesvc.FindingPassed
		if r, ok := w.findings[act.ActionName]; ok {
			wantResult = r
		}
		assert.Equal(t, []any{act.ActionName, i + 1, wantResult}, []any{f.Category, f.SortOrder, f.Result},
			"finding %d (category, sort order, result): %s", i, f.Details)
		if f.Result != profilesvc.FindingPassed {
			factors = append(factors, map[profilesvc.FindingResult]string{"failed": "failed: ", "warning": "warning: "}[f.Result]+f.Category)
		}
		checkStep(t, res, i, act)
	}
	if diff := cmp.Diff(factors, res.RiskAssessment.RiskFactors, cmpopts.SortSlices(func(a, b string) bool { return a < b }), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("risk factors (-from findings +got):\n%s", diff)
	}
	var total float64
	for _, e := range res.AgentAuditLog {
		total += e.DurationMs
	}
	assert.Equal(t, total, res.ProcessingTimeMs, "processing time: the sum of the audit log's durations")
}

// checkStep checks that the audit log, the raw results and the history
// record action i of the policy alike.
func checkStep(t *testing.T, res engine.Result, i int, act engine.PolicyAction) {
	t.Helper()
	e := res.AgentAuditLog[i]
	assert.Equal(t, []any{i + 1, act.ActionName, act.Category, act.Query}, []any{e.WorkID, e.ActionName, e.Category, e.Query},
		"audit entry %d (work ID, action, category, query)", i)
	raw, ok := res.RawActionResults[act.ActionName]
	if assert.True(t, ok, "raw result of %s", act.ActionName) {
		assert.Equal(t, i+1, raw.WorkID, "raw result of %s: work ID", act.ActionName)
		assert.Equal(t, e.VerificationStatus, raw.VerificationStatus, "raw result of %s: the audit's verification status", act.ActionName)
	}
	h := res.SystemMetadata.WorkflowHistory[i]
	assert.Equal(t, []any{i + 1, act.ActionName}, []any{h.WorkID, h.ActionName}, "history entry %d", i)
	if e.RAGResponse != nil {
		assert.Equal(t, len(e.RAGResponse.Citations), raw.CitationsCount, "%s: citationsCount", act.ActionName)
	}
}

// checkJudgements checks category_judgements, document_validations and
// policy_flags.
func checkJudgements(t *testing.T, data profilesvc.ExtractedData, w want) {
	t.Helper()
	if w.checks != nil {
		cj, err := data.CategoryJudgements()
		require.NoError(t, err, "category_judgements")
		require.NotNil(t, cj, "category_judgements")
		for f, r := range w.checks {
			got := cj.Checks[f]
			assert.Equal(t, r, got.Result, "%s check", f)
			assert.NotEmpty(t, got.Reason, "%s check: reason", f)
		}
		assert.Equal(t, w.overall, cj.OverallConsistencyResult, "overall consistency")
		assert.NotEmpty(t, cj.OverallConsistencyReason, "overall consistency: reason")
	}
	if w.valid != nil {
		dv, err := data.DocumentValidations()
		require.NoError(t, err, "document_validations")
		for doc, v := range w.valid {
			got, ok := dv[doc]
			if assert.True(t, ok, "%s validation present", doc) {
				assert.Equal(t, v, got.IsValid, "%s validation", doc)
				assert.NotEmpty(t, got.Reason, "%s validation: reason", doc)
			}
		}
	}
	flags, err := data.PolicyFlags()
	require.NoError(t, err, "policy_flags")
	if diff := cmp.Diff(w.flags, flags); diff != "" {
		t.Errorf("policy_flags (-want +got):\n%s", diff)
	}
}

// checkValues checks the extracted values, request_id and the extraction
// status, and returns the extracted data's top level.
func checkValues(t *testing.T, in engine.Input, res engine.Result, data profilesvc.ExtractedData, w want) map[string]any {
	t.Helper()
	var top map[string]any
	require.NoError(t, data.Decode(&top))
	values, _ := top["extracted_values"].(map[string]any)
	if values == nil {
		values = top // a schema without extracted_values fills its own fields
	}
	for k, v := range w.values {
		assert.Equal(t, v, values[k], "value %s", k)
	}
	assert.Equal(t, in.Profile.ID, top["request_id"], "request_id")
	for k, st := range res.ExtractionStatus {
		assert.Contains(t, top, k, "extractionStatus names %s, which extractedData must have", k)
		assert.Contains(t, []profilesvc.ExtractionStatus{profilesvc.Extracted, profilesvc.ExtractionMissing}, st, "extractionStatus[%s]", k)
	}
	return top
}

// checkRecommendations checks that the recommendations follow the
// failures, highest priority first, and that the next steps repeat them.
func checkRecommendations(t *testing.T, res engine.Result, data profilesvc.ExtractedData, top map[string]any, w want) {
	t.Helper()
	if assert.NotEmpty(t, res.Recommendations, "recommendations") {
		assert.Equal(t, w.topPriority, res.Recommendations[0].Priority, "priority of the first recommendation: %+v", res.Recommendations)
	}
	steps, _ := data.RecommendedNextSteps()
	if _, hasSteps := top["recommended_next_steps"]; hasSteps {
		assert.Len(t, steps, len(res.Recommendations), "one next step per recommendation")
	}
	for i, r := range res.Recommendations {
		assert.Equal(t, i+1, r.SortOrder, "recommendation %d: sort order", i)
		if i > 0 {
			assert.GreaterOrEqual(t, r.Priority, res.Recommendations[i-1].Priority, "recommendation %d out of order: %+v", i, res.Recommendations)
		}
	}
}

// checkFilledSchema checks that the filled schema holds the same data as
// the extracted data.
func checkFilledSchema(t *testing.T, res engine.Result, top map[string]any) {
	t.Helper()
	var schema struct {
		Properties map[string]struct {
			Value json.RawMessage `json:"value"`
		} `json:"properties"`
	}
	require.NoError(t, json.Unmarshal(res.OutputSchema, &schema))
	for k := range top {
		want, _ := json.Marshal(top[k])
		var got any
		_ = json.Unmarshal(schema.Properties[k].Value, &got)
		gotJSON, _ := json.Marshal(got)
		assert.Equal(t, string(want), string(gotJSON), "outputSchema.properties.%s.value against extractedData", k)
	}
}

// checkGolden compares a result with testdata/name.json, or writes it
// there under -update.
func checkGolden(t *testing.T, name string, res engine.Result) {
	t.Helper()
	got, err := json.MarshalIndent(res, "", "  ")
	require.NoError(t, err)
	got = append(got, '\n')
	path := filepath.Join("testdata", name+".json")
	if *update {
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	golden, err := os.ReadFile(path)
	require.NoError(t, err, "run go test -update to write the golden file")
	if diff := cmp.Diff(string(golden), string(got)); diff != "" {
		t.Errorf("%s (-golden +got):\n%s", path, diff)
	}
}

// resultJSON is a result as JSON, facts included.
func resultJSON(t *testing.T, res engine.Result) []byte {
	t.Helper()
	b, err := json.Marshal(res)
	require.NoError(t, err)
	return b
}

// checkCut checks that got is long cut short to at most max bytes: its
// longest prefix that ends on a character's boundary, then "…".
func checkCut(t *testing.T, what, got, long string, max int) {
	t.Helper()
	assert.LessOrEqual(t, len(got), max, "%s: bytes", what)
	assert.Greater(t, len(got), max-len("…")-utf8.UTFMax, "%s: bytes: cut shorter than it needs", what)
	assert.True(t, utf8.ValidString(got), "%s: not valid UTF-8", what)
	assert.True(t, strings.HasSuffix(got, "…"), "%s: not marked as cut", what)
	assert.True(t, strings.HasPrefix(long, strings.TrimSuffix(got, "…")), "%s: not a prefix of the value", what)
}
