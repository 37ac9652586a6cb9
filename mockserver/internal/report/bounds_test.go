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
	"github.com/profilesvc/profilesvc-go/mockserver/internal/pdftest"
	"github.com/profilesvc/profilesvc-go/mockserver/internal/report"
)

// TestRender_HostileSizesAreBounded renders analyses no engine of the mock
// makes, but another analyzer or a restored snapshot can: document names
// that wrap taller than a page in a table's header, text and words of a
// hundred thousand characters, data nested thousands of levels deep. Each
// report ends, a whole PDF of a bounded number of pages.
func TestRender_HostileSizesAreBounded(t *testing.T) {
	base := fixture(t, "typical.json")
	for _, tt := range []struct {
		name  string
		bend  func(d *report.Data)
		pages int // at most
	}{
		{"document names taller than a page", func(d *report.Data) {
			for i := range d.Documents {
				d.Documents[i].Name = strings.Repeat("x", 20_000)
			}
			for i := range d.Analysis.TargetItems {
				d.Analysis.TargetItems[i].Name = strings.Repeat("y", 20_000)
			}
		}, 40},
		{"a finding of one word of 100,000 characters", func(d *report.Data) {
			d.Analysis.Findings[0].Details = strings.Repeat("z", 100_000)
		}, 12},
		{"every sentence of 100,000 characters", func(d *report.Data) {
			long := strings.Repeat("word ", 20_000)
			for i := range d.Analysis.Findings {
				d.Analysis.Findings[i].Details = long
			}
			for i := range d.Analysis.Recommendations {
				d.Analysis.Recommendations[i].Content = long
			}
			d.Analysis.RiskAssessment.RiskFactors = []string{long, long}
		}, 40},
		{"extracted data nested 4,000 levels deep", func(d *report.Data) {
			d.Analysis.ExtractedData = profilesvc.ExtractedData(strings.Repeat(`{"a":`, 4000) + "1" + strings.Repeat("}", 4000))
		}, 12},
		{"raw data of 100,000 lines", func(d *report.Data) {
			results := map[string]profilesvc.RawActionResult{}
			for i := range 100_000 {
				results[fmt.Sprintf("action_%06d", i)] = profilesvc.RawActionResult{Answer: "a"}
			}
			d.Analysis.RawActionResults = results
		}, 60},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var d report.Data
			raw, err := json.Marshal(base)
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(raw, &d), "a copy of the fixture")
			tt.bend(&d)
			for _, loc := range []string{"en", "ko"} {
				done := make(chan []byte, 1)
				go func() {
					pdf, err := report.Render(variant(d, loc, true))
					assert.NoError(t, err)
					done <- pdf
				}()
				select {
				case pdf := <-done:
					ctx := pdftest.Validate(t, pdf)
					assert.LessOrEqual(t, ctx.PageCount, tt.pages, "the pages of the %s report", loc)
				case <-time.After(5 * time.Minute):
					// A hang guard only: a bounded report takes well under
					// a second.
					t.Fatalf("the %s report was not rendered within 5 minutes", loc)
				}
			}
		})
	}
}
