package report_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver/internal/report"
)

// TestRender_HostileSizesAreBounded renders analyses no engine of the mock
// makes, but another analyzer or a restored snapshot can: document names
// that wrap taller than a page in a table's header, text and words of a
// hundred thousand characters, data nested thousands of levels deep. Each
// report ends, a whole PDF of a bounded number of pages, with all its
// text on them.
func TestRender_HostileSizesAreBounded(t *testing.T) {
	t.Parallel()
	base := fixture(t, "typical.json")
	for _, tt := range []struct {
		name   string
		locale string
		bend   func(d *report.Data)
		pages  int // at most
	}{
		{"document names taller than a page", "en", func(d *report.Data) {
			for i := range d.Documents {
				d.Documents[i].Name = strings.Repeat("x", 10_000)
			}
			for i := range d.Analysis.TargetItems {
				d.Analysis.TargetItems[i].Name = strings.Repeat("y", 10_000)
			}
		}, 40},
		{"a finding of one word of 30,000 characters", "ko", func(d *report.Data) {
			d.Analysis.Findings[0].Details = strings.Repeat("z", 30_000)
		}, 12},
		{"every sentence of 30,000 characters", "en", func(d *report.Data) {
			long := strings.Repeat("word ", 6_000)
			for i := range d.Analysis.Findings {
				d.Analysis.Findings[i].Details = long
			}
			for i := range d.Analysis.Recommendations {
				d.Analysis.Recommendations[i].Content = long
			}
			d.Analysis.RiskAssessment.RiskFactors = []string{long, long}
		}, 40},
		{"extracted data nested 1,000 levels deep", "ko", func(d *report.Data) {
			d.Analysis.ExtractedData = profilesvc.ExtractedData(strings.Repeat(`{"a":`, 1000) + "1" + strings.Repeat("}", 1000))
		}, 12},
		{"a workflow's name of 4,000 words", "en", func(d *report.Data) {
			d.WorkflowName = strings.Repeat("Long workflow name ", 1_300)
		}, 40},
		{"the review's reasons of 8 KiB", "ko", func(d *report.Data) {
			var ed map[string]any
			require.NoError(t, json.Unmarshal(d.Analysis.ExtractedData, &ed))
			rr := ed["review_result"].(map[string]any)
			rr["final_action_reason"] = strings.Repeat("reason ", 1200)
			rr["final_risk_level_reason"] = strings.Repeat("risk ", 1700)
			raw, err := json.Marshal(ed)
			require.NoError(t, err)
			d.Analysis.ExtractedData = raw
		}, 40},
		{"raw data of 20,000 lines", "en", func(d *report.Data) {
			results := map[string]profilesvc.RawActionResult{}
			for i := range 4_000 {
				results[fmt.Sprintf("action_%06d", i)] = profilesvc.RawActionResult{Answer: "a"}
			}
			d.Analysis.RawActionResults = results
		}, 60},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var d report.Data
			raw, err := json.Marshal(base)
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(raw, &d), "a copy of the fixture")
			tt.bend(&d)
			d = variant(d, tt.locale, true)
			done := make(chan []report.DrawnText, 1)
			go func() {
				drawn, err := report.DrawnTexts(d)
				assert.NoError(t, err)
				done <- drawn
			}()
			select {
			case drawn := <-done:
				pages := 0
				for _, tx := range drawn {
					pages = max(pages, tx.Page)
					if tx.Y < 0 || tx.Y > 842 {
						t.Errorf("page %d: %.60q is drawn at y=%.1f, off the page", tx.Page, tx.Text, tx.Y)
						break
					}
				}
				assert.LessOrEqual(t, pages, tt.pages, "the pages of the report")
			case <-time.After(5 * time.Minute):
				// A hang guard only: a bounded report takes well under
				// a second.
				t.Fatalf("the report was not rendered within 5 minutes")
			}
		})
	}
}
