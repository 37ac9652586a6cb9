package profilesvc_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

// markdownSection returns the text of a section of Markdown text, from
// its heading to the next heading of the same or a higher level.
func markdownSection(t *testing.T, text, heading string) string {
	t.Helper()
	i := strings.Index(text, heading+"\n")
	require.GreaterOrEqual(t, i, 0, "no section %q", heading)
	rest := text[i+len(heading):]
	level := strings.Repeat("#", strings.Count(strings.Fields(heading)[0], "#"))
	if j := strings.Index(rest, "\n"+level+" "); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

// TestReadmeCurlWalkthrough runs the README's curl walk-through, as
// written, against the mock, and checks that it ends with a completed
// analysis and two PDF reports.
func TestReadmeCurlWalkthrough(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"bash", "curl", "sed"} {
		_, err := exec.LookPath(tool)
		require.NoError(t, err, "the walk-through needs %s", tool)
	}
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	section := markdownSection(t, string(readme), "### With curl alone")
	blocks := fencedBlocks(section, "sh")
	require.Len(t, blocks, 2, "sh blocks in the walk-through")
	// The first block starts the mock with a key: use the same key here.
	start := blocks[0]
	i := strings.Index(start, "-api-key ")
	require.GreaterOrEqual(t, i, 0, "the walk-through does not start the mock with -api-key")
	key := strings.Fields(start[i+len("-api-key "):])[0]
	srv := mockserver.NewTest(t, mockserver.WithAPIKey(key), mockserver.WithAnalysisDuration(300*time.Millisecond))

	script := strings.ReplaceAll(blocks[1], "http://127.0.0.1:8080", srv.URL)
	require.NotEqual(t, blocks[1], script, "the walk-through does not use http://127.0.0.1:8080")
	dir := t.TempDir()
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", script)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Run(), "the walk-through failed:\n%s", &out)

	raw, err := os.ReadFile(filepath.Join(dir, "analysis.json"))
	require.NoError(t, err)
	var a profilesvc.Analysis
	require.NoError(t, json.Unmarshal(raw, &a), "analysis.json:\n%s", raw)
	require.Equal(t, profilesvc.AnalysisCompleted, a.Status, "the analysis, want completed with a report")
	require.NotNil(t, a.PrimaryReportID, "the analysis, want completed with a report")
	assert.Len(t, a.TargetItems, 2, "the items the analysis covers")
	// The control API part: the fault answered once, the record holds the
	// requests without the key, and the reset emptied the mock.
	again, err := os.ReadFile(filepath.Join(dir, "profile-again.json"))
	assert.NoError(t, err, "profile-again.json")
	assert.True(t, bytes.Contains(again, []byte(`"name":"Jane Doe"`)), "profile-again.json = %s, want the profile", again)
	assert.Contains(t, out.String(), "HTTP/1.1 503 Service Unavailable", "the injected fault was not shown")
	record, err := os.ReadFile(filepath.Join(dir, "requests.json"))
	assert.NoError(t, err, "requests.json")
	assert.True(t, bytes.Contains(record, []byte(`"status":503`)), "requests.json: want the 503; got %d bytes", len(record))
	assert.False(t, bytes.Contains(record, []byte(key)), "requests.json: want no key; got %d bytes", len(record))
	assert.Empty(t, srv.Profiles(), "profiles after the reset")
	for _, name := range []string{"report-en.pdf", "report-ko.pdf"} {
		pdf, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		assert.True(t, bytes.HasPrefix(pdf, []byte("%PDF-")), "%s does not start with %%PDF-: %.40q", name, pdf)
	}
}

// TestReadmeCurlWalkthroughSaysWhenAStepFails runs the walk-through
// against an address where nothing listens, as a reader whose mock is not
// running would: each step must say that it failed (curl's own message on
// standard error) rather than pass empty IDs on in silence, and with
// "set -e" the first step stops the script.
func TestReadmeCurlWalkthroughSaysWhenAStepFails(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"bash", "curl", "sed"} {
		_, err := exec.LookPath(tool)
		require.NoError(t, err, "the walk-through needs %s", tool)
	}
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	blocks := fencedBlocks(markdownSection(t, string(readme), "### With curl alone"), "sh")
	require.Len(t, blocks, 2, "sh blocks in the walk-through")
	// A port that was listening a moment ago and no longer is.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dead := "http://" + ln.Addr().String()
	require.NoError(t, ln.Close())
	script := strings.ReplaceAll(blocks[1], "http://127.0.0.1:8080", dead)

	for _, tt := range []struct {
		name  string
		flags []string
	}{
		{"typed line by line", []string{"-c"}},
		{"with set -e", []string{"-e", "-c"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command("bash", append(tt.flags, script)...)
			cmd.Dir = t.TempDir()
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			assert.Error(t, err, "the walk-through against %s ended with status 0", dead)
			assert.Contains(t, stderr.String(), "curl: (7)", "curl did not say it could not connect")
		})
	}
}

// snippetImports are the packages README code may use; a fragment is
// compiled with all of them.
var snippetImports = []struct{ path, use string }{
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
	t.Parallel()
	raw, err := os.ReadFile("README.md")
	require.NoError(t, err)
	blocks := fencedBlocks(string(raw), "go")
	require.GreaterOrEqual(t, len(blocks), 3, "Go blocks in the README")
	wd, err := os.Getwd()
	require.NoError(t, err)
	tmp := t.TempDir()
	overlay := map[string]string{}
	var starts []int // the line in the generated file where each block starts
	for i, b := range blocks {
		var src strings.Builder
		src.WriteString("package readmecheck\n\nimport (\n")
		for _, imp := range snippetImports {
			fmt.Fprintf(&src, "\t%q\n", imp.path)
		}
		src.WriteString(")\n\nvar (\n")
		for _, imp := range snippetImports {
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
		require.NoError(t, os.WriteFile(filepath.Join(tmp, name), []byte(src.String()), 0o644))
		overlay[filepath.Join(wd, "internal", "readmecheck", name)] = filepath.Join(tmp, name)
	}
	ov, _ := json.Marshal(map[string]any{"Replace": overlay})
	ovPath := filepath.Join(tmp, "overlay.json")
	require.NoError(t, os.WriteFile(ovPath, ov, 0o644))
	goTool, err := exec.LookPath("go")
	require.NoError(t, err, "compiling the README's code needs the go command")
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
	assert.Empty(t, problems, "README Go blocks do not compile (block N's first line is line %v of blockN.go):\n%s", starts, strings.Join(problems, "\n"))
}

// TestReadmeImages checks that every image the README shows is in the
// repository, a PNG, and under 200 KB, so that the page stays light.
func TestReadmeImages(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	images := regexp.MustCompile(`!\[[^\]]*\]\(([^)]+)\)`).FindAllSubmatch(readme, -1)
	require.NotEmpty(t, images, "the README shows the dashboard")
	for _, m := range images {
		path := string(m[1])
		b, err := os.ReadFile(path)
		require.NoError(t, err, "the README's image %s", path)
		assert.True(t, bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")), "%s is a PNG", path)
		assert.Less(t, len(b), 200<<10, "%s is under 200 KB", path)
	}
}
