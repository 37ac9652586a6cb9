package engine_test

import (
	"context"
	"fmt"
	"log"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver"
	"github.com/profilesvc/profilesvc-go/mockserver/engine"
)

// A test that needs a high-risk analysis of ordinary documents gives the
// mock an analyzer that runs the default engine and raises the risk of its
// result. (The extracted data's review_result stays the engine's; an
// analyzer that changes the decision rewrites it too.)
func ExampleDefault() {
	highRisk := func(ctx context.Context, in engine.Input) (engine.Result, error) {
		res, err := engine.Default(ctx, in)
		if err != nil {
			return res, err
		}
		fmt.Println("the engine's risk:", res.RiskAssessment.RiskLevel, res.RiskAssessment.RiskScore)
		res.RiskAssessment.RiskLevel = profilesvc.RiskHigh
		res.RiskAssessment.RiskScore = max(res.RiskAssessment.RiskScore, engine.HighRiskFrom)
		res.RiskAssessment.RiskFactors = append(res.RiskAssessment.RiskFactors, "raised by the test")
		return res, nil
	}
	srv := mockserver.New(mockserver.WithAnalyzer(highRisk), mockserver.WithManualAnalyses())
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()
	profile, _ := client.CreateProfile(ctx, engine.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Jane Doe"})
	item, _ := client.CreateTextItem(ctx, profile.DefaultFolder().ID,
		"PASSPORT\nFull Name: Jane Doe\nDate of Birth: 1990-04-12\nPassport Number: X1234567\nExpiry Date: 2031-05-01\n",
		profilesvc.CreateItemParams{Name: "passport"})
	id, err := client.StartAnalysis(ctx, profile.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{item.ID}})
	if err != nil {
		log.Fatal(err)
	}
	if err := srv.CompleteAnalysis(id); err != nil { // runs the analyzer
		log.Fatal(err)
	}
	analysis, err := client.GetAnalysis(ctx, id, nil)
	if err != nil {
		log.Fatal(err)
	}
	ra := analysis.RiskAssessment
	fmt.Println("the analysis's risk:", ra.RiskLevel, ra.RiskScore, ra.RiskFactors)
	// Output:
	// the engine's risk: low 10
	// the analysis's risk: high 60 [warning: cross_check_identity raised by the test]
}
