package mockserver

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/profilesvc/profilesvc-go"
)

// Documents of the engine's tests (package engine has them too), for the
// tests that go through the server.
const (
	enginePassport = "PASSPORT\nFull Name: Jane Doe\nDate of Birth: 1990-04-12\nPassport Number: X1234567\nExpiry Date: 2031-05-01\nNationality: Canadian\n"
	engineBank     = "Bank statement\nAccount holder: Jane Doe\nAddress: 12 Elm Street, Springfield\nDate of birth: 12/04/1990\nAccount number: 12345678\n"
)

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
