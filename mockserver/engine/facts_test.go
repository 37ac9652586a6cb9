package engine_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver/engine"
)

// sentences lists every text of a result that a person reads: findings'
// details, recommendations, risk factors and the reasons of the extracted
// data, each with where it is.
func sentences(t *testing.T, res engine.Result) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range res.Findings {
		out["finding "+f.Category] = f.Details
	}
	for i, r := range res.Recommendations {
		out[fmt.Sprintf("recommendation %d", i+1)] = r.Content
	}
	for i, f := range res.RiskAssessment.RiskFactors {
		out[fmt.Sprintf("risk factor %d", i+1)] = f
	}
	data := profilesvc.ExtractedData(res.ExtractedData)
	if rr, err := data.ReviewResult(); assert.NoError(t, err) && rr != nil {
		out["final_action_reason"], out["final_risk_level_reason"] = rr.FinalActionReason, rr.FinalRiskLevelReason
	}
	if cj, err := data.CategoryJudgements(); assert.NoError(t, err) && cj != nil {
		for f, c := range cj.Checks {
			out[f+"_check_reason"] = c.Reason
		}
		out["overall_consistency_reason"] = cj.OverallConsistencyReason
	}
	dv, err := data.DocumentValidations()
	require.NoError(t, err)
	for k, v := range dv {
		out[k+"_is_valid_reason"] = v.Reason
	}
	return out
}

// TestFactsCoverEverySentence checks that Default keeps the facts of
// every sentence it writes for a person to read, one fact a sentence or
// more, each with a key, and what it read of each document.
func TestFactsCoverEverySentence(t *testing.T) {
	for _, tt := range fixtures {
		t.Run(tt.name, func(t *testing.T) {
			in := testInput(tt.items...)
			if tt.workflow.ID != "" {
				in.Workflow = tt.workflow
			}
			res := analyze(t, in)
			for where, text := range sentences(t, res) {
				facts, ok := res.Facts.Sentences[text]
				if !assert.True(t, ok, "%s: no facts for %q", where, text) {
					continue
				}
				require.NotEmpty(t, facts, "%s: %q", where, text)
				for _, f := range facts {
					assert.NotEmpty(t, f.Key, "%s: a fact of %q without a key", where, text)
				}
			}
			require.Len(t, res.Facts.Documents, len(in.Items), "one document's facts an item")
			for i, d := range res.Facts.Documents {
				assert.Equal(t, in.Items[i].ID, d.ItemID, "document %d", i)
				assert.Equal(t, in.Items[i].Readable, d.Readable, "document %d: readable", i)
				assert.NotEmpty(t, d.Kind, "document %d: kind", i)
				assert.NotEmpty(t, d.ValidationKey, "document %d: validation key", i)
			}
		})
	}
}

// TestFactsOfAMismatch checks the facts of a field the documents disagree
// on: the field, and each document with the value it shows.
func TestFactsOfAMismatch(t *testing.T) {
	in := testInput(
		testDoc("item_1", "passport.txt", profilesvc.ItemText, passportText),
		testDoc("item_2", "statement.txt", profilesvc.ItemText, "Bank statement\nAccount holder: Jane Doe\nDate of birth: 12/04/1991\n"),
	)
	res := analyze(t, in)
	cj, err := profilesvc.ExtractedData(res.ExtractedData).CategoryJudgements()
	require.NoError(t, err)
	reason := cj.Checks["date_of_birth"].Reason
	want := []engine.Fact{{Key: engine.FactFieldDiffer, Fields: []string{"date_of_birth"},
		Documents: []string{"passport.txt", "statement.txt"}, Values: []string{"1990-04-12", "12/04/1991"}}}
	if diff := cmp.Diff(want, res.Facts.Sentences[reason]); diff != "" {
		t.Errorf("the facts of %q (-want +got):\n%s", reason, diff)
	}
	assert.Equal(t, "12/04/1991", res.Facts.Documents[1].Values["date_of_birth"], "the statement's date of birth as it shows it")
}
