package mockserver

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
)

func TestScriptedOutcomes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, itemName, text string
		metadata             map[string]any
		status               profilesvc.AnalysisStatus
		errText              string
		risk                 profilesvc.RiskLevel
		action               profilesvc.FinalAction
	}{
		{name: "fail in the content", itemName: "doc", text: passportText + "mock:fail=Registry offline\n",
			status: profilesvc.AnalysisFailed, errText: "Registry offline"},
		{name: "fail in the name", itemName: "passport mock:fail=unreadable", text: passportText,
			status: profilesvc.AnalysisFailed, errText: "unreadable"},
		{name: "fail in the metadata", itemName: "doc", text: passportText, metadata: map[string]any{"note": "mock:fail=blocked"},
			status: profilesvc.AnalysisFailed, errText: "blocked"},
		{name: "high risk", itemName: "doc", text: passportText + "mock:risk=high\n",
			status: profilesvc.AnalysisCompleted, risk: profilesvc.RiskHigh, action: profilesvc.ActionReject},
		{name: "medium risk", itemName: "doc", text: passportText, metadata: map[string]any{"x": "mock:risk=medium"},
			status: profilesvc.AnalysisCompleted, risk: profilesvc.RiskMedium, action: profilesvc.ActionManualReview},
		{name: "low risk over a failure", itemName: "doc", text: "PASSPORT\nFull Name: Jane Doe\nExpiry Date: 2001-01-01\nmock:risk=low\n",
			status: profilesvc.AnalysisCompleted, risk: profilesvc.RiskLow, action: profilesvc.ActionApprove},
		{name: "no script", itemName: "doc", text: passportText,
			status: profilesvc.AnalysisCompleted, risk: profilesvc.RiskLow, action: profilesvc.ActionApprove},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := NewTest(t, WithManualAnalyses())
			id := startScripted(t, srv, tt.itemName, tt.text, tt.metadata)
			require.NoError(t, srv.CompleteAnalysis(id))
			a, _ := srv.Analysis(id)
			require.Equal(t, tt.status, a.Status, "status")
			if tt.status == profilesvc.AnalysisFailed {
				assert.True(t, a.Error != nil && *a.Error == tt.errText && a.PrimaryReportID == nil && a.CompletedAt == nil,
					"failed analysis: error %v, report %v, completedAt %v", a.Error, a.PrimaryReportID, a.CompletedAt)
				return
			}
			rr, _ := a.ExtractedData.ReviewResult()
			assert.True(t, a.RiskAssessment.RiskLevel == tt.risk && rr.FinalAction == tt.action && rr.FinalRiskLevel == tt.risk,
				"risk %s, action %s (%s), want %s and %s", a.RiskAssessment.RiskLevel, rr.FinalAction, rr.FinalRiskLevel, tt.risk, tt.action)
		})
	}
}

func TestScriptedDuration(t *testing.T) {
	t.Parallel()
	clock := NewFakeClock(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
	srv := NewTest(t, WithClock(clock), WithAnalysisDuration(time.Second))
	id := startScripted(t, srv, "doc", passportText+"mock:duration=5s\n", nil)
	clock.Advance(4 * time.Second)
	a, _ := srv.Analysis(id)
	require.Equal(t, profilesvc.AnalysisProcessing, a.Status, "status after 4s of a scripted 5s")
	clock.Advance(time.Second)
	a, _ = srv.Analysis(id)
	require.Equal(t, profilesvc.AnalysisCompleted, a.Status, "status after 5s of a scripted 5s")
}

func TestCustomAnalyzer(t *testing.T) {
	t.Parallel()
	t.Run("its result", func(t *testing.T) {
		var got AnalysisInput
		srv := NewTest(t, WithManualAnalyses(), WithAnalyzer(func(_ context.Context, in AnalysisInput) (AnalysisResult, error) {
			got = in
			return AnalysisResult{
				RiskAssessment:  profilesvc.RiskAssessment{RiskLevel: profilesvc.RiskHigh, RiskScore: 99, RiskFactors: []string{"custom"}},
				ExtractedData:   json.RawMessage(`{"verdict": "made by the test"}`),
				Findings:        []profilesvc.Finding{{Category: "custom_check", Result: profilesvc.FindingFailed, Details: "d", SortOrder: 1}},
				Recommendations: []profilesvc.Recommendation{{Content: "do it", Priority: 1, SortOrder: 1}},
			}, nil
		}))
		id := startScripted(t, srv, "doc", passportText, nil)
		require.NoError(t, srv.CompleteAnalysis(id))
		a, _ := srv.Analysis(id)
		assert.True(t, a.Status == profilesvc.AnalysisCompleted && a.RiskAssessment.RiskScore == 99 && string(a.ExtractedData) == `{"verdict":"made by the test"}`,
			"analysis = %s %+v %s", a.Status, a.RiskAssessment, a.ExtractedData)
		assert.True(t, len(a.Findings) == 1 && a.Findings[0].ID != "" && len(a.Recommendations) == 1 && a.Recommendations[0].ID != "",
			"findings %+v, recommendations %+v: want the analyzer's, with IDs", a.Findings, a.Recommendations)
		assert.True(t, a.AgentAuditLog != nil && a.ExtractionStatus != nil, "empty parts of the result must be empty, not null")
		assert.True(t, len(got.Items) == 1 && got.Items[0].Text == passportText && got.Workflow.ID == DefaultWorkflowID && got.Profile.Name == "Scripted",
			"the analyzer got %+v", got)
	})
	t.Run("its error fails the analysis", func(t *testing.T) {
		srv := NewTest(t, WithManualAnalyses(), WithAnalyzer(func(context.Context, AnalysisInput) (AnalysisResult, error) {
			return AnalysisResult{}, errors.New("model unavailable")
		}))
		id := startScripted(t, srv, "doc", passportText, nil)
		require.NoError(t, srv.CompleteAnalysis(id))
		a, _ := srv.Analysis(id)
		assert.True(t, a.Status == profilesvc.AnalysisFailed && a.Error != nil && *a.Error == "model unavailable", "analysis = %s %v", a.Status, a.Error)
	})
	t.Run("its panic fails the analysis", func(t *testing.T) {
		srv := NewTest(t, WithManualAnalyses(), WithAnalyzer(func(context.Context, AnalysisInput) (AnalysisResult, error) {
			panic("bug in the test's analyzer")
		}))
		id := startScripted(t, srv, "doc", passportText, nil)
		require.NoError(t, srv.CompleteAnalysis(id))
		a, _ := srv.Analysis(id)
		assert.True(t, a.Status == profilesvc.AnalysisFailed && a.Error != nil, "analysis = %s %v", a.Status, a.Error)
	})
}
