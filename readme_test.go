package profilesvc_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

// readmeSection returns the text of a README section, from its heading to
// the next heading of the same or a higher level.
func readmeSection(t *testing.T, heading string) string {
	t.Helper()
	raw, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(raw)
	i := strings.Index(s, heading+"\n")
	if i < 0 {
		t.Fatalf("README.md has no section %q", heading)
	}
	rest := s[i+len(heading):]
	level := strings.Repeat("#", strings.Count(strings.Fields(heading)[0], "#"))
	if j := strings.Index(rest, "\n"+level+" "); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

// readmeBlocks returns the fenced code blocks of a language in text.
func readmeBlocks(text, lang string) []string {
	var out []string
	for _, part := range strings.Split(text, "```"+lang+"\n")[1:] {
		if end := strings.Index(part, "```"); end >= 0 {
			out = append(out, part[:end])
		}
	}
	return out
}

// TestReadmeCurlWalkthrough runs the README's curl walk-through, as
// written, against the mock, and checks that it ends with a completed
// analysis and two PDF reports.
func TestReadmeCurlWalkthrough(t *testing.T) {
	for _, tool := range []string{"bash", "curl", "sed"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("the walk-through needs %s: %v", tool, err)
		}
	}
	section := readmeSection(t, "### With curl alone")
	blocks := readmeBlocks(section, "sh")
	if len(blocks) != 2 {
		t.Fatalf("want 2 sh blocks in the walk-through, got %d", len(blocks))
	}
	// The first block starts the mock with a key: use the same key here.
	start := blocks[0]
	i := strings.Index(start, "-api-key ")
	if i < 0 {
		t.Fatal("the walk-through does not start the mock with -api-key")
	}
	key := strings.Fields(start[i+len("-api-key "):])[0]
	srv := mockserver.NewTest(t, mockserver.WithAPIKey(key), mockserver.WithAnalysisDuration(300*time.Millisecond))

	script := strings.ReplaceAll(blocks[1], "http://127.0.0.1:8080", srv.URL)
	if script == blocks[1] {
		t.Fatal("the walk-through does not use http://127.0.0.1:8080")
	}
	dir := t.TempDir()
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", script)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("the walk-through failed: %v\n%s", err, out.String())
	}

	raw, err := os.ReadFile(filepath.Join(dir, "analysis.json"))
	if err != nil {
		t.Fatal(err)
	}
	var a profilesvc.Analysis
	if err := json.Unmarshal(raw, &a); err != nil {
		t.Fatalf("analysis.json: %v\n%s", err, raw)
	}
	if a.Status != profilesvc.AnalysisCompleted || a.PrimaryReportID == nil {
		t.Fatalf("the analysis is %s with report %v, want completed with a report", a.Status, a.PrimaryReportID)
	}
	if len(a.TargetItems) != 2 {
		t.Errorf("the analysis covers %d items, want 2", len(a.TargetItems))
	}
	for _, name := range []string{"report-en.pdf", "report-ko.pdf"} {
		pdf, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(pdf, []byte("%PDF-")) {
			t.Errorf("%s does not start with %%PDF-: %.40q", name, pdf)
		}
	}
}
