package mockserver

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/profilesvc/profilesvc-go"
)

// scriptRun starts an analysis of one text item on srv and returns its ID.
func scriptRun(t *testing.T, srv *Server, name, text string, metadata map[string]any) string {
	t.Helper()
	p, err := srv.CreateProfile(DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Scripted"})
	if err != nil {
		t.Fatal(err)
	}
	content, _ := json.Marshal(text)
	it, err := srv.AddItem(p.Folders[0].ID, SeedItem{Type: profilesvc.ItemText, Name: name, Content: content, Metadata: metadata})
	if err != nil {
		t.Fatal(err)
	}
	id, e := srv.startAnalysis(p.ID, []string{it.ID}, nil, nil)
	if e != nil {
		t.Fatal(e)
	}
	return id
}

func TestScriptedOutcomes(t *testing.T) {
	tests := []struct {
		name, itemName, text string
		metadata             map[string]any
		status               profilesvc.AnalysisStatus
		errText              string
		risk                 profilesvc.RiskLevel
		action               profilesvc.FinalAction
	}{
		{name: "fail in the content", itemName: "doc", text: enginePassport + "mock:fail=Registry offline\n",
			status: profilesvc.AnalysisFailed, errText: "Registry offline"},
		{name: "fail in the name", itemName: "passport mock:fail=unreadable", text: enginePassport,
			status: profilesvc.AnalysisFailed, errText: "unreadable"},
		{name: "fail in the metadata", itemName: "doc", text: enginePassport, metadata: map[string]any{"note": "mock:fail=blocked"},
			status: profilesvc.AnalysisFailed, errText: "blocked"},
		{name: "high risk", itemName: "doc", text: enginePassport + "mock:risk=high\n",
			status: profilesvc.AnalysisCompleted, risk: profilesvc.RiskHigh, action: profilesvc.ActionReject},
		{name: "medium risk", itemName: "doc", text: enginePassport, metadata: map[string]any{"x": "mock:risk=medium"},
			status: profilesvc.AnalysisCompleted, risk: profilesvc.RiskMedium, action: profilesvc.ActionManualReview},
		{name: "low risk over a failure", itemName: "doc", text: "PASSPORT\nFull Name: Jane Doe\nExpiry Date: 2001-01-01\nmock:risk=low\n",
			status: profilesvc.AnalysisCompleted, risk: profilesvc.RiskLow, action: profilesvc.ActionApprove},
		{name: "no script", itemName: "doc", text: enginePassport,
			status: profilesvc.AnalysisCompleted, risk: profilesvc.RiskLow, action: profilesvc.ActionApprove},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := NewTest(t, WithManualAnalyses())
			id := scriptRun(t, srv, tt.itemName, tt.text, tt.metadata)
			if err := srv.CompleteAnalysis(id); err != nil {
				t.Fatal(err)
			}
			a, _ := srv.Analysis(id)
			if a.Status != tt.status {
				t.Fatalf("status %s, want %s", a.Status, tt.status)
			}
			if tt.status == profilesvc.AnalysisFailed {
				if a.Error == nil || *a.Error != tt.errText || a.PrimaryReportID != nil || a.CompletedAt != nil {
					t.Errorf("failed analysis: error %v, report %v, completedAt %v", a.Error, a.PrimaryReportID, a.CompletedAt)
				}
				return
			}
			rr, _ := a.ExtractedData.ReviewResult()
			if a.RiskAssessment.RiskLevel != tt.risk || rr.FinalAction != tt.action || rr.FinalRiskLevel != tt.risk {
				t.Errorf("risk %s, action %s (%s), want %s and %s", a.RiskAssessment.RiskLevel, rr.FinalAction, rr.FinalRiskLevel, tt.risk, tt.action)
			}
		})
	}
}

func TestScriptedDuration(t *testing.T) {
	clock := NewFakeClock(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
	srv := NewTest(t, WithClock(clock), WithAnalysisDuration(time.Second))
	id := scriptRun(t, srv, "doc", enginePassport+"mock:duration=5s\n", nil)
	clock.Advance(4 * time.Second)
	if a, _ := srv.Analysis(id); a.Status != profilesvc.AnalysisProcessing {
		t.Fatalf("after 4s of a scripted 5s: %s, want processing", a.Status)
	}
	clock.Advance(time.Second)
	if a, _ := srv.Analysis(id); a.Status != profilesvc.AnalysisCompleted {
		t.Fatalf("after 5s of a scripted 5s: %s, want completed", a.Status)
	}
}

func TestCustomAnalyzer(t *testing.T) {
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
		id := scriptRun(t, srv, "doc", enginePassport, nil)
		if err := srv.CompleteAnalysis(id); err != nil {
			t.Fatal(err)
		}
		a, _ := srv.Analysis(id)
		if a.Status != profilesvc.AnalysisCompleted || a.RiskAssessment.RiskScore != 99 || string(a.ExtractedData) != `{"verdict":"made by the test"}` {
			t.Errorf("analysis = %s %+v %s", a.Status, a.RiskAssessment, a.ExtractedData)
		}
		if len(a.Findings) != 1 || a.Findings[0].ID == "" || len(a.Recommendations) != 1 || a.Recommendations[0].ID == "" {
			t.Errorf("findings %+v, recommendations %+v: want the analyzer's, with IDs", a.Findings, a.Recommendations)
		}
		if a.AgentAuditLog == nil || a.ExtractionStatus == nil {
			t.Errorf("empty parts of the result must be empty, not null")
		}
		if len(got.Items) != 1 || got.Items[0].Text != enginePassport || got.Workflow.ID != DefaultWorkflowID || got.Profile.Name != "Scripted" {
			t.Errorf("the analyzer got %+v", got)
		}
	})
	t.Run("its error fails the analysis", func(t *testing.T) {
		srv := NewTest(t, WithManualAnalyses(), WithAnalyzer(func(context.Context, AnalysisInput) (AnalysisResult, error) {
			return AnalysisResult{}, errors.New("model unavailable")
		}))
		id := scriptRun(t, srv, "doc", enginePassport, nil)
		if err := srv.CompleteAnalysis(id); err != nil {
			t.Fatal(err)
		}
		if a, _ := srv.Analysis(id); a.Status != profilesvc.AnalysisFailed || a.Error == nil || *a.Error != "model unavailable" {
			t.Errorf("analysis = %s %v", a.Status, a.Error)
		}
	})
	t.Run("its panic fails the analysis", func(t *testing.T) {
		srv := NewTest(t, WithManualAnalyses(), WithAnalyzer(func(context.Context, AnalysisInput) (AnalysisResult, error) {
			panic("bug in the test's analyzer")
		}))
		id := scriptRun(t, srv, "doc", enginePassport, nil)
		if err := srv.CompleteAnalysis(id); err != nil {
			t.Fatal(err)
		}
		if a, _ := srv.Analysis(id); a.Status != profilesvc.AnalysisFailed || a.Error == nil {
			t.Errorf("analysis = %s %v", a.Status, a.Error)
		}
	})
}
