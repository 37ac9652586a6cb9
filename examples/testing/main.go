// Command testing is an ordinary application function that uses the SDK,
// Screen, with the tests (screen_test.go) that check it against the mock
// server: the pattern to copy for testing your own integration.
//
//	go run ./examples/testing
//	go test ./examples/testing
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

// Applicant is someone to screen, with the documents they sent.
type Applicant struct {
	Name      string
	Reference string // the application's own ID, kept with the analysis
	Documents []Document
}

// Document is one document of an applicant.
type Document struct {
	Filename string
	Text     string
}

// Screening is the application's decision about an applicant.
type Screening struct {
	ProfileID  string
	AnalysisID string
	Decision   profilesvc.FinalAction
	Risk       profilesvc.RiskLevel
	// Reasons are the checks that did not pass.
	Reasons []string
}

// Screen uploads an applicant's documents to a new profile, analyses them
// and returns the decision. The profile stays, so that the decision can be
// audited later.
func Screen(ctx context.Context, client *profilesvc.Client, a Applicant) (*Screening, error) {
	if len(a.Documents) == 0 {
		return nil, errors.New("screen: an applicant needs at least one document")
	}
	profile, err := client.CreateProfile(ctx, "wf_default", profilesvc.CreateProfileParams{
		Name:     a.Name,
		Metadata: profilesvc.Object{"reference": a.Reference},
	})
	if err != nil {
		return nil, fmt.Errorf("screen %s: %w", a.Reference, err)
	}
	var ids []string
	for _, d := range a.Documents {
		item, err := client.UploadFile(ctx, profile.DefaultFolder().ID, strings.NewReader(d.Text),
			profilesvc.UploadParams{Filename: d.Filename})
		if err != nil {
			return nil, fmt.Errorf("screen %s: uploading %s: %w", a.Reference, d.Filename, err)
		}
		ids = append(ids, item.ID)
	}
	id, err := client.StartAnalysis(ctx, profile.ID, profilesvc.StartAnalysisParams{
		ItemIDs:        ids,
		ClientMetadata: profilesvc.Object{"reference": a.Reference},
	})
	if err != nil {
		return nil, fmt.Errorf("screen %s: %w", a.Reference, err)
	}
	analysis, err := client.WaitForAnalysis(ctx, id, nil)
	if err != nil {
		return nil, fmt.Errorf("screen %s: %w", a.Reference, err)
	}
	return screening(profile.ID, analysis)
}

// screening reads the decision out of a completed analysis.
func screening(profileID string, a *profilesvc.Analysis) (*Screening, error) {
	review, err := a.ExtractedData.ReviewResult()
	if err != nil {
		return nil, err
	}
	if review == nil || a.RiskAssessment == nil {
		return nil, fmt.Errorf("analysis %s has no review result", a.ID)
	}
	s := &Screening{ProfileID: profileID, AnalysisID: a.ID, Decision: review.FinalAction, Risk: a.RiskAssessment.RiskLevel}
	for _, f := range a.Findings {
		if f.Result != profilesvc.FindingPassed {
			s.Reasons = append(s.Reasons, fmt.Sprintf("%s (%s): %s", f.Category, f.Result, f.Details))
		}
	}
	return s, nil
}

func main() {
	srv := mockserver.New(mockserver.WithAnalysisDuration(time.Second))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := Screen(ctx, srv.Client(), Applicant{
		Name: "Jane Doe", Reference: "APP-1001",
		Documents: []Document{{Filename: "passport.txt", Text: "PASSPORT\nFull Name: Jane Doe\nDate of Birth: 1990-04-12\nPassport Number: X1234567\nExpiry Date: 2031-05-01\n"}},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("%s: %s (risk %s)\n", s.AnalysisID, s.Decision, s.Risk)
	for _, r := range s.Reasons {
		fmt.Println("  " + r)
	}
}
