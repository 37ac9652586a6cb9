package report_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go/mockserver/internal/pdftest"
)

// update rewrites the golden transcripts: go test
// ./mockserver/internal/report -run TestGolden -args -update.
var update = flag.Bool("update", false, "rewrite the golden transcripts under testdata/golden")

// TestGoldenTranscripts compares the text of each variant of the fixed
// analysis's report (testdata/analysis.json: fixed IDs and clock), and of
// the English and Korean reports of documents that disagree
// (mismatch.json), read back a row to a line, with its golden file: any
// change of a report shows as a diff of the rows it touches.
func TestGoldenTranscripts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		fixture, locale string
		raw             bool
		golden          string
	}{
		{"analysis.json", "en", false, "en.txt"},
		{"analysis.json", "en", true, "en-raw.txt"},
		{"analysis.json", "ko", false, "ko.txt"},
		{"analysis.json", "ko", true, "ko-raw.txt"},
		{"mismatch.json", "en", false, "mismatch-en.txt"},
		{"mismatch.json", "ko", false, "mismatch-ko.txt"},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			t.Parallel()
			r := fixtureReport(t, tc.fixture, tc.locale, tc.raw)
			pdftest.Validate(t, r.pdf)
			got := pdftest.Transcript(t, r.pdf)
			path := filepath.Join("testdata", "golden", tc.golden)
			if *update {
				require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
				require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "no golden file: go test ./mockserver/internal/report -run TestGolden -args -update writes it")
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("the report's text differs from %s (-want +got):\n%s", path, diff)
			}
		})
	}
}
