package engine_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go/mockserver/engine"
)

func TestWorkflowValidate(t *testing.T) {
	tests := []struct {
		name    string
		w       engine.Workflow
		wantErr string // a part of the error; "" for none
	}{
		{name: "default", w: engine.DefaultWorkflow()},
		{name: "ID alone", w: engine.Workflow{ID: "wf_x"}},
		{name: "ID without prefix", w: engine.Workflow{ID: "x_1"}, wantErr: `field "id" must start with "wf_"`},
		{name: "ID too short", w: engine.Workflow{ID: "wf_"}, wantErr: `field "id"`},
		{name: "ID too long", w: engine.Workflow{ID: "wf_" + strings.Repeat("x", 126)}, wantErr: `field "id"`},
		{name: "schema not JSON", w: engine.Workflow{ID: "wf_x", OutputSchema: json.RawMessage(`not json`)},
			wantErr: `field "outputSchema" must be a JSON Schema object`},
		{name: "schema without properties", w: engine.Workflow{ID: "wf_x", OutputSchema: json.RawMessage(`{"properties": 1}`)},
			wantErr: `field "outputSchema" must have an object "properties"`},
		{name: "action without name", w: engine.Workflow{ID: "wf_x", Policy: []engine.PolicyAction{{ActionName: " ", Category: "mcp"}}},
			wantErr: `field "policy[0].actionName" is required`},
		{name: "action without category", w: engine.Workflow{ID: "wf_x", Policy: []engine.PolicyAction{{ActionName: "a"}}},
			wantErr: `field "policy[0].category" is required`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.w.Validate()
			if tt.wantErr == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
}

func TestWorkflowClone(t *testing.T) {
	w := engine.DefaultWorkflow()
	c := w.Clone()
	require.Equal(t, w, c)
	c.OutputSchema[0] = 'X'
	c.Policy[0].ActionName = "changed"
	assert.Equal(t, engine.DefaultWorkflow(), w, "changing the clone changed the original")
}

func TestResultNormalize(t *testing.T) {
	var r engine.Result
	r.RiskAssessment.RiskScore = 70
	r.ExtractedData = json.RawMessage("null")
	r.AgentAuditLog = append(r.AgentAuditLog, r.AgentAuditLog...)
	r.Normalize()
	b, err := json.Marshal(r)
	require.NoError(t, err)
	assert.NotContains(t, string(b), "null", "a normalized result has no null: %s", b)
	assert.Equal(t, "high", string(r.RiskAssessment.RiskLevel), "the level of a score of 70")

	for score, level := range map[float64]string{0: "low", engine.MediumRiskFrom - 1: "low", engine.MediumRiskFrom: "medium",
		engine.HighRiskFrom - 1: "medium", engine.HighRiskFrom: "high", 100: "high"} {
		r := engine.Result{}
		r.RiskAssessment.RiskScore = score
		r.Normalize()
		assert.Equal(t, level, string(r.RiskAssessment.RiskLevel), "score %v", score)
	}
	kept := engine.Result{}
	kept.RiskAssessment.RiskLevel = "medium"
	kept.Normalize()
	assert.Equal(t, "medium", string(kept.RiskAssessment.RiskLevel), "a level of the analyzer's own")
}
