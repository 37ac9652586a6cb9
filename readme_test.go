package profilesvc_test

import (
	"bytes"
	"encoding/json"
	"fmt"
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
	// The control API part: the fault answered once, the record holds the
	// requests without the key, and the reset emptied the mock.
	again, err := os.ReadFile(filepath.Join(dir, "profile-again.json"))
	if err != nil || !bytes.Contains(again, []byte(`"name":"Jane Doe"`)) {
		t.Errorf("profile-again.json = %s (%v), want the profile", again, err)
	}
	if !strings.Contains(out.String(), "HTTP/1.1 503 Service Unavailable") {
		t.Errorf("the injected fault was not shown:\n%s", out.String())
	}
	record, err := os.ReadFile(filepath.Join(dir, "requests.json"))
	if err != nil || !bytes.Contains(record, []byte(`"status":503`)) || bytes.Contains(record, []byte(key)) {
		t.Errorf("requests.json: want the 503 and no key; got %d bytes (%v)", len(record), err)
	}
	if n := len(srv.Profiles()); n != 0 {
		t.Errorf("%d profiles after the reset", n)
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

// readmeImports are the packages README code may use; a fragment is
// compiled with all of them.
var readmeImports = []struct{ path, use string }{
	{"context", "context.Background"},
	{"errors", "errors.Is"},
	{"fmt", "fmt.Println"},
	{"io", "io.Copy"},
	{"log", "log.Fatal"},
	{"net/http", "http.StatusOK"},
	{"os", "os.Exit"},
	{"strings", "strings.NewReader"},
	{"testing", "testing.Short"},
	{"time", "time.Second"},
	{"github.com/profilesvc/profilesvc-go", "profilesvc.NewClient"},
	{"github.com/profilesvc/profilesvc-go/mockserver", "mockserver.New"},
	{"github.com/profilesvc/profilesvc-go/mockserver/engine", "engine.Default"},
}

// TestReadmeGoCompiles compiles every Go block of the README, so that the
// README cannot drift from the API. A block that declares functions is
// compiled as a file's body; any other as a function's body, with ctx,
// client, profileID and params in scope. Unused variables are allowed:
// samples may leave a result for the reader.
func TestReadmeGoCompiles(t *testing.T) {
	raw, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := readmeBlocks(string(raw), "go")
	if len(blocks) < 3 {
		t.Fatalf("found %d Go blocks in the README, want at least 3", len(blocks))
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	overlay := map[string]string{}
	var starts []int // the line in the generated file where each block starts
	for i, b := range blocks {
		var src strings.Builder
		src.WriteString("package readmecheck\n\nimport (\n")
		for _, imp := range readmeImports {
			fmt.Fprintf(&src, "\t%q\n", imp.path)
		}
		src.WriteString(")\n\nvar (\n")
		for _, imp := range readmeImports {
			fmt.Fprintf(&src, "\t_ = %s\n", imp.use)
		}
		src.WriteString(")\n\n")
		if strings.HasPrefix(strings.TrimSpace(b), "func ") {
			starts = append(starts, strings.Count(src.String(), "\n")+1)
			src.WriteString(b)
		} else {
			fmt.Fprintf(&src, "func block%d(ctx context.Context, client *profilesvc.Client, profileID string, params profilesvc.StartAnalysisParams) {\n", i)
			starts = append(starts, strings.Count(src.String(), "\n")+1)
			src.WriteString(b)
			src.WriteString("}\n")
		}
		name := fmt.Sprintf("block%d.go", i)
		if err := os.WriteFile(filepath.Join(tmp, name), []byte(src.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		overlay[filepath.Join(wd, "internal", "readmecheck", name)] = filepath.Join(tmp, name)
	}
	ov, _ := json.Marshal(map[string]any{"Replace": overlay})
	ovPath := filepath.Join(tmp, "overlay.json")
	if err := os.WriteFile(ovPath, ov, 0o644); err != nil {
		t.Fatal(err)
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("compiling the README's code needs the go command: %v", err)
	}
	cmd := exec.Command(goTool, "build", "-gcflags=-e", "-overlay", ovPath, "./internal/readmecheck")
	out, err := cmd.CombinedOutput()
	if err == nil {
		return
	}
	var problems []string
	for _, line := range strings.Split(string(out), "\n") {
		if line == "" || strings.HasPrefix(line, "#") || strings.Contains(line, "declared and not used") {
			continue
		}
		problems = append(problems, line)
	}
	if len(problems) > 0 {
		t.Errorf("README Go blocks do not compile (block N's first line is line %v of blockN.go):\n%s", starts, strings.Join(problems, "\n"))
	}
}
