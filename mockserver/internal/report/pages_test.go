package report_test

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go/mockserver/internal/pdftest"
)

// pagesDir is where TestPagesAsImages writes the reports and their pages.
var pagesDir = flag.String("pages", "", "write each fixture's reports, and each page as a PNG image, into this directory")

// TestPagesAsImages writes every variant of each fixture's report into
// the -pages directory, and each of its pages as a PNG image with
// pdftoppm (poppler-utils), for a person to look at:
//
//	go test ./mockserver/internal/report -run TestPagesAsImages -args -pages /tmp/report-pages
//
// It is skipped without -pages, or without pdftoppm.
func TestPagesAsImages(t *testing.T) {
	if *pagesDir == "" {
		t.Skip("no -pages directory")
	}
	pdftoppm, err := exec.LookPath("pdftoppm")
	if err != nil {
		t.Skip("pdftoppm is not installed (apt-get install poppler-utils)")
	}
	require.NoError(t, os.MkdirAll(*pagesDir, 0o755))
	for _, fx := range []string{"analysis.json", "typical.json", "mismatch.json"} {
		for _, locale := range []string{"en", "ko"} {
			for _, raw := range []bool{false, true} {
				name := strings.TrimSuffix(fx, ".json") + "-" + locale
				if raw {
					name += "-raw"
				}
				t.Run(name, func(t *testing.T) {
					pdf := render(t, variant(fixture(t, fx), locale, raw))
					pages := pdftest.Validate(t, pdf).PageCount
					base := filepath.Join(*pagesDir, name)
					require.NoError(t, os.WriteFile(base+".pdf", pdf, 0o644))
					out, err := exec.CommandContext(t.Context(), pdftoppm, "-r", "100", "-png", base+".pdf", base).CombinedOutput()
					require.NoError(t, err, "pdftoppm: %s", out)
					images, err := filepath.Glob(base + "-[0-9]*.png")
					require.NoError(t, err)
					assert.Len(t, images, pages, "one image a page")
				})
			}
		}
	}
}
