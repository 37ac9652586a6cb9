package mockserver

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
)

// TestEngineDeterministicThroughTheServer runs the same documents on
// servers with different IDs: the results are the same but for the IDs, and
// byte for byte the same under the same ID seed and clock.
func TestEngineDeterministicThroughTheServer(t *testing.T) {
	t.Parallel()
	run := func(seed uint64, start time.Time) *profilesvc.Analysis {
		srv := NewTest(t, WithManualAnalyses(), WithIDSeed(seed), WithClock(NewFakeClock(start)))
		p, err := srv.CreateProfile(DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Jane Doe"})
		require.NoError(t, err)
		var ids []string
		for _, d := range []struct{ name, text string }{{"passport.txt", passportText}, {"statement.txt", bankText}} {
			it, err := srv.AddTextItem(p.Folders[0].ID, d.name, d.text)
			require.NoError(t, err)
			ids = append(ids, it.ID)
		}
		id, e := srv.startAnalysis(p.ID, ids, nil, nil)
		require.Nil(t, e, "startAnalysis")
		require.NoError(t, srv.CompleteAnalysis(id))
		a, _ := srv.Analysis(id)
		return a
	}
	t0 := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	a := run(1, t0)
	b := run(2, t0)
	require.NotEqual(t, a.ID, b.ID, "different seeds gave the same IDs")
	// Under a fixed ID seed and clock, the whole analysis is the same,
	// byte for byte.
	again := run(1, t0)
	if diff := cmp.Diff(string(a.Raw), string(again.Raw)); diff != "" {
		t.Errorf("same seed and clock, different analyses (-first +second):\n%s", diff)
	}
	norm := func(s string) string {
		s = strings.ReplaceAll(s, a.ProfileID, "PROFILE")
		s = strings.ReplaceAll(s, b.ProfileID, "PROFILE")
		for _, ti := range append(a.TargetItems, b.TargetItems...) {
			s = strings.ReplaceAll(s, ti.ItemID, "ITEM")
		}
		return s
	}
	if diff := cmp.Diff(norm(string(a.ExtractedData)), norm(string(b.ExtractedData))); diff != "" {
		t.Errorf("extracted data differs (-seed 1 +seed 2):\n%s", diff)
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
			t.Errorf("%s differ (-seed 1 +seed 2):\n%s", name, diff)
		}
	}
}
