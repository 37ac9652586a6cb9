package main

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

// These tests run Screen, unchanged, against the mock server: a real HTTP
// server on a loopback port, started per test by mockserver.NewTest and
// closed when the test ends.

const passport = "PASSPORT\nFull Name: Jane Doe\nDate of Birth: 1990-04-12\nPassport Number: X1234567\nExpiry Date: 2031-05-01\n"

// jane is an applicant with a passport and a bank statement that agree.
func jane() Applicant {
	return Applicant{Name: "Jane Doe", Reference: "APP-1", Documents: []Document{
		{Filename: "passport.txt", Text: passport},
		{Filename: "statement.txt", Text: "Bank statement\nAccount holder: Jane Doe\nDate of birth: 12/04/1990\nAddress: 12 Elm Street\n"},
	}}
}

func TestScreenDecides(t *testing.T) {
	tests := []struct {
		name     string
		change   func(*Applicant)
		decision profilesvc.FinalAction
		reason   string // a word one of the reasons must hold
	}{
		{"documents agree", func(*Applicant) {}, profilesvc.ActionApprove, "cross_check_identity"},
		{"dates of birth differ", func(a *Applicant) {
			a.Documents[1].Text = strings.Replace(a.Documents[1].Text, "1990", "1991", 1)
		}, profilesvc.ActionManualReview, "disagree on date of birth"},
		{"passport expired", func(a *Applicant) {
			a.Documents[0].Text = strings.Replace(a.Documents[0].Text, "2031", "2019", 1)
		}, profilesvc.ActionManualReview, "Expired"},
		// A scripted outcome: the mock reads mock:risk=high in a document.
		{"scripted high risk", func(a *Applicant) {
			a.Documents[0].Text += "mock:risk=high\n"
		}, profilesvc.ActionReject, "cross_check_identity"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// Analyses complete at once: the test is about decisions.
			srv := mockserver.NewTest(t, mockserver.WithAnalysisDuration(0))
			a := jane()
			tt.change(&a)

			s, err := Screen(t.Context(), srv.Client(), a)
			if err != nil {
				t.Fatal(err)
			}
			if s.Decision != tt.decision {
				t.Errorf("decision %s, want %s (reasons %q)", s.Decision, tt.decision, s.Reasons)
			}
			if !strings.Contains(strings.Join(s.Reasons, "\n"), tt.reason) {
				t.Errorf("reasons %q do not mention %q", s.Reasons, tt.reason)
			}
		})
	}
}

func TestScreenSendsWhatTheServiceNeeds(t *testing.T) {
	srv := mockserver.NewTest(t, mockserver.WithAnalysisDuration(0))
	s, err := Screen(t.Context(), srv.Client(), jane())
	if err != nil {
		t.Fatal(err)
	}

	// The state, read without HTTP: the profile keeps the reference, and
	// the analysis echoes it.
	profile, ok := srv.Profile(s.ProfileID)
	if !ok || profile.Metadata["reference"] != "APP-1" || profile.ItemsCount != 2 {
		t.Errorf("profile = %+v", profile)
	}
	analysis, _ := srv.Analysis(s.AnalysisID)
	if analysis.ClientMetadata["reference"] != "APP-1" || len(analysis.TargetItems) != 2 {
		t.Errorf("analysis client metadata %v, %d items", analysis.ClientMetadata, len(analysis.TargetItems))
	}

	// The requests, as the mock received them: matched by route, with the
	// near misses listed when the count is wrong.
	srv.ExpectRequests(t, mockserver.RequestMatch{Method: "POST", Path: "/v1/folders/*/items", Status: 201}, 2)
	srv.ExpectRequests(t, mockserver.RequestMatch{Method: "POST", Path: "/v1/analyses/" + s.ProfileID + "/analyze", Status: 202}, 1)
	for _, r := range srv.RequestsMatching(mockserver.RequestMatch{Method: "POST", Path: "/v1/folders/*/items"}) {
		if !strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/form-data") {
			t.Errorf("upload sent as %s", r.Header.Get("Content-Type"))
		}
		if r.Header.Get("x-api-key") != "[REDACTED]" {
			t.Errorf("%s %s: the record shows the key as %q", r.Method, r.Path, r.Header.Get("x-api-key"))
		}
	}
	start := srv.RequestsMatching(mockserver.RequestMatch{Path: "/v1/analyses/*/analyze"})[0]
	var body struct {
		TargetItems []struct {
			ItemID string `json:"itemId"`
		} `json:"targetItems"`
	}
	if err := start.DecodeJSON(&body); err != nil || len(body.TargetItems) != 2 {
		t.Errorf("start body %s: %v", start.BodyText(), err)
	}
}

func TestScreenRidesOutAnOutage(t *testing.T) {
	srv := mockserver.NewTest(t, mockserver.WithAnalysisDuration(0))
	// The next two starts are refused with 503, as a busy service would;
	// the SDK retries them (the service certainly did not act on them).
	if _, err := srv.InjectFault(mockserver.Fault{Method: "POST", Path: "/v1/analyses/*/analyze", Status: 503, Times: 2}); err != nil {
		t.Fatal(err)
	}
	client := srv.Client(profilesvc.WithRetryWait(time.Millisecond, 10*time.Millisecond))
	s, err := Screen(t.Context(), client, jane())
	if err != nil {
		t.Fatal(err)
	}
	var statuses []int
	for _, r := range srv.RequestsMatching(mockserver.RequestMatch{Method: "POST", Path: "/v1/analyses/*/analyze"}) {
		statuses = append(statuses, r.Status)
	}
	if len(statuses) != 3 || statuses[0] != 503 || statuses[2] != 202 {
		t.Errorf("start answered %v, want 503, 503, 202", statuses)
	}
	if n := len(srv.Analyses(s.ProfileID)); n != 1 {
		t.Errorf("%d analyses, want exactly 1", n)
	}
}

func TestScreenReportsAFailedAnalysis(t *testing.T) {
	// Manual mode: analyses wait until the test ends them.
	srv := mockserver.NewTest(t, mockserver.WithManualAnalyses())
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()

	done := make(chan error, 1)
	go func() {
		_, err := Screen(ctx, srv.Client(), jane())
		done <- err
	}()
	// Wait for the application to start its analysis: no sleeping, no
	// polling.
	start, err := srv.AwaitRequest(ctx, mockserver.RequestMatch{Method: "POST", Path: "/v1/analyses/*/analyze", Status: 202})
	if err != nil {
		t.Fatal(err)
	}
	profileID := strings.Split(start.Path, "/")[3]
	analysis, err := srv.AwaitAnalysis(ctx, profileID)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.FailAnalysis(analysis.ID, "document store unavailable"); err != nil {
		t.Fatal(err)
	}
	err = <-done
	var failed *profilesvc.AnalysisFailedError
	if !errors.Is(err, profilesvc.ErrAnalysisFailed) || !errors.As(err, &failed) || failed.Reason != "document store unavailable" {
		t.Errorf("Screen = %v, want the analysis's failure", err)
	}
}

func TestScreenNeedsDocuments(t *testing.T) {
	srv := mockserver.NewTest(t)
	if _, err := Screen(t.Context(), srv.Client(), Applicant{Name: "No One"}); err == nil {
		t.Fatal("Screen without documents succeeded")
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("Screen without documents sent %d requests", n)
	}
}

// TestMainRuns runs the command itself, so that it cannot rot.
func TestMainRuns(t *testing.T) {
	main()
}
