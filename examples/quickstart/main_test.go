package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/internal/testutil"
)

// runMainEnv, set to 1, makes the test binary run main with its arguments
// instead of the tests, so that a test can check main's exit status.
const runMainEnv = "QUICKSTART_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// useMock clears the variables that would point the quickstart at a real
// service or at another workflow, so that it runs against the embedded mock.
func useMock(t *testing.T) {
	t.Helper()
	t.Setenv(profilesvc.EnvBaseURL, "")
	t.Setenv(envWorkflowID, "")
}

// doubleSpaced returns the lines of out that hold two consecutive spaces
// after their leading indentation. A carriage return starts a line, as it
// does on a terminal.
func doubleSpaced(out string) []string {
	var bad []string
	lines := strings.FieldsFunc(out, func(r rune) bool { return r == '\n' || r == '\r' })
	for _, line := range lines {
		if strings.Contains(strings.TrimLeft(line, " \t"), "  ") {
			bad = append(bad, line)
		}
	}
	return bad
}

// TestQuickstart runs the quickstart as a newcomer does, against the
// embedded mock, and checks what it prints and the two PDFs it saves.
func TestQuickstart(t *testing.T) {
	useMock(t)
	dir := t.TempDir()
	var out bytes.Buffer
	if err := run(context.Background(), []string{"-out", dir}, &out, false); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	text := out.String()
	lines := strings.Split(text, "\n")
	if !strings.HasPrefix(lines[0], "Talking to the embedded mock server at http://127.0.0.1:") {
		t.Errorf("first line %q does not say which service it talks to", lines[0])
	}
	for _, want := range []string{
		"Created profile pf_", "in workflow wf_default\n",
		"Added file item", "Added text item", "Added json item", "Started analysis analysis_",
		"pending", "completed", "Risk: low (10/100)", "\nDecision: approve",
		"✓ classify_documents (passed)", "! cross_check_identity (warning)", "Top recommendations:", "1. [priority 2]",
		"full_name: Jane Marie Doe", "date_of_birth: 1990-04-12", "Deleted profile pf_",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the output lacks %q:\n%s", want, text)
		}
	}
	for _, line := range lines {
		if strings.HasPrefix(line, "Decision:") && strings.Count(line, ":") != 1 {
			t.Errorf("the decision line %q has more than one colon", line)
		}
	}
	for _, line := range doubleSpaced(text) {
		t.Errorf("two consecutive spaces in %q", line)
	}
	saved := regexp.MustCompile(`Saved the (en|ko) report to (\S+)`).FindAllStringSubmatch(text, -1)
	if len(saved) != 2 {
		t.Fatalf("want 2 saved reports in the output, got %v", saved)
	}
	for _, m := range saved {
		if filepath.Dir(m[2]) != dir {
			t.Errorf("the %s report went to %s, want it in %s", m[1], m[2], dir)
		}
		pdf, err := os.ReadFile(m[2])
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(pdf, []byte("%PDF-")) || len(pdf) < 10_000 {
			t.Errorf("%s is not a PDF report: %d bytes starting %.8q", m[2], len(pdf), pdf)
		}
	}
}

func TestQuickstartKeep(t *testing.T) {
	useMock(t)
	var out bytes.Buffer
	if err := run(context.Background(), []string{"-out", t.TempDir(), "-keep"}, &out, false); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	if strings.Contains(out.String(), "Deleted profile") {
		t.Errorf("-keep deleted the profile:\n%s", out.String())
	}
}

func TestQuickstartSpinner(t *testing.T) {
	useMock(t)
	var out testutil.LockedBuffer
	if err := run(context.Background(), []string{"-out", t.TempDir()}, &out, true); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "\r  ✓ completed") {
		t.Errorf("the spinner did not end on the final status:\n%q", out.String())
	}
	for _, line := range doubleSpaced(out.String()) {
		t.Errorf("two consecutive spaces in %q", line)
	}
}

// TestQuickstartHelp runs main with -h and -help in a child process (this
// test binary again): the usage, which lists the flags, goes to standard
// output, and the exit status is 0.
func TestQuickstartHelp(t *testing.T) {
	for _, arg := range []string{"-h", "-help"} {
		t.Run(arg, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], arg)
			// The race detector's pause at exit is of no use here.
			cmd.Env = append(os.Environ(), runMainEnv+"=1", "GORACE="+os.Getenv("GORACE")+" atexit_sleep_ms=0")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Errorf("quickstart %s: %v, want exit status 0; stderr %q", arg, err, stderr.String())
			}
			for _, want := range []string{"Usage: go run ./examples/quickstart", "-out DIR", "-keep", "-workflow ID", envWorkflowID} {
				if !strings.Contains(stdout.String(), want) {
					t.Errorf("the usage lacks %q:\n%s", want, stdout.String())
				}
			}
			if stderr.Len() != 0 {
				t.Errorf("quickstart %s wrote to standard error: %q", arg, stderr.String())
			}
		})
	}
}

// fakeService starts a stand-in for a real service that answers every
// request 404 WORKFLOW_NOT_FOUND and returns the paths it was asked for.
func fakeService(t *testing.T) (url string, paths func() []string) {
	t.Helper()
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.URL.Path)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"error": {"code": "WORKFLOW_NOT_FOUND", "status": 404, "message": "no such workflow"}}`))
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}

// TestQuickstartWorkflow checks which workflow the profile is created in
// on a real service: the -workflow flag, else PROFILESVC_WORKFLOW_ID.
func TestQuickstartWorkflow(t *testing.T) {
	tests := []struct {
		name, flag, env, want string
	}{
		{"flag", "wf_flag", "", "wf_flag"},
		{"variable", "", "wf_env", "wf_env"},
		{"flag over variable", "wf_flag", "wf_env", "wf_flag"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, paths := fakeService(t)
			t.Setenv(profilesvc.EnvBaseURL, url)
			t.Setenv(profilesvc.EnvAPIKey, "test-key")
			t.Setenv(envWorkflowID, tt.env)
			args := []string{"-out", t.TempDir()}
			if tt.flag != "" {
				args = append(args, "-workflow", tt.flag)
			}
			var out bytes.Buffer
			err := run(context.Background(), args, &out, false)
			if err == nil || !strings.Contains(err.Error(), "creating the profile in workflow "+tt.want) {
				t.Errorf("run = %v, want an error creating the profile in workflow %s", err, tt.want)
			}
			got := paths()
			if len(got) != 1 || !strings.HasSuffix(got[0], "/workflows/"+tt.want+"/profiles") {
				t.Errorf("the service was asked for %q, want one request to create a profile in %s", got, tt.want)
			}
		})
	}
}

// TestQuickstartServiceNeedsWorkflow checks that, against a real service
// and with no workflow named, the quickstart stops before its first
// request and says where to name one.
func TestQuickstartServiceNeedsWorkflow(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the service got %s %s before the workflow was checked", r.Method, r.URL.Path)
		w.WriteHeader(http.StatusInternalServerError)
	}))
	defer srv.Close()
	t.Setenv(profilesvc.EnvBaseURL, srv.URL)
	t.Setenv(profilesvc.EnvAPIKey, "test-key")
	t.Setenv(envWorkflowID, "")
	var out bytes.Buffer
	err := run(context.Background(), []string{"-out", t.TempDir()}, &out, false)
	if err == nil {
		t.Fatalf("run succeeded without a workflow:\n%s", out.String())
	}
	for _, want := range []string{"-workflow", envWorkflowID, "wf_default exists only in the embedded mock"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error %q does not mention %q", err, want)
		}
	}
	if out.Len() != 0 {
		t.Errorf("the quickstart printed %q before failing", out.String())
	}
}

func TestQuickstartErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"out does not exist", []string{"-out", "/nonexistent/dir"}, nil, "-out /nonexistent/dir: the directory does not exist"},
		{"out is a file", []string{"-out", "main.go"}, nil, "-out main.go: not a directory"},
		{"bad flag", []string{"-bogus"}, nil, "flag provided but not defined"},
		{"mock without the workflow", nil, map[string]string{envWorkflowID: "wf_nope"}, "creating the profile in workflow wf_nope"},
		{"service without a key", nil, map[string]string{profilesvc.EnvBaseURL: "http://127.0.0.1:1", profilesvc.EnvAPIKey: "", envWorkflowID: "wf_x"}, "no API key"},
		{"service that is not there", nil, map[string]string{profilesvc.EnvBaseURL: "http://127.0.0.1:1", profilesvc.EnvAPIKey: "k", envWorkflowID: "wf_x"}, "creating the profile"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			useMock(t)
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			var out bytes.Buffer
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			args := tt.args
			if !strings.Contains(strings.Join(args, " "), "-out") {
				args = append(args, "-out", t.TempDir())
			}
			err := run(ctx, args, &out, false)
			if err == nil || !strings.Contains(err.Error()+out.String(), tt.want) {
				t.Errorf("run = %v (output %q), want an error mentioning %q", err, out.String(), tt.want)
			}
		})
	}
}
