package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go/internal/contract"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

// analysisDuration is how long the analyses of the tests' mocks, the
// embedded one included, take: long enough for a second start to meet the
// first still running, short enough for a test (the embedded mock's
// default is 3 s).
const analysisDuration = time.Second

// wholeRuns: the tests that run the command whole, through every check
// of the suite, run one after the other, not in parallel. Each keeps both
// CPUs of a small machine busy for a second or two under the race
// detector; side by side, each would last as long as all of them, for no
// gain in the package's time. The others, which stop early, are parallel.

// runCmd runs the command with args and the environment given.
func runCmd(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), args, func(k string) string { return env[k] }, &stdout, &stderr, nil, mockserver.WithAnalysisDuration(analysisDuration))
	return code, stdout.String(), stderr.String()
}

var (
	checkLine   = regexp.MustCompile(`^(PASS|FAIL|SKIP) [a-z0-9.-]+: .+ \[[^]]+\]`)
	summaryLine = regexp.MustCompile(`(?m)^(\d+) passed, (\d+) failed, (\d+) skipped$`)
)

// TestEmbeddedMock runs the command as on a fresh clone: no address, the
// embedded mock.
func TestEmbeddedMock(t *testing.T) {
	// Not parallel: see wholeRuns.
	code, out, errOut := runCmd(t, nil, "-short")
	require.Equal(t, exitOK, code, "%s\n%s", out, errOut)
	require.Contains(t, errOut, "(the embedded mock), workflow wf_default")
	require.Contains(t, errOut, `It creates two profiles, "profilesvc-contract `)
	require.Contains(t, errOut, "cleanup: profile pf_")
	require.NotContains(t, out, "SKIP states.inactive-item", "the embedded mock is checked as the mock")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	n := 0
	for _, l := range lines {
		if checkLine.MatchString(l) {
			n++
		}
	}
	require.Greater(t, n, 60, "one line a check:\n%s", out)
	m := summaryLine.FindStringSubmatch(out)
	require.NotNil(t, m, out)
	require.Equal(t, "0", m[2])
	require.Equal(t, m[0], lines[len(lines)-1], "the summary line is the last")
	require.Contains(t, out, "RULES (stated by the interface document):")
	require.Contains(t, out, "ASSUMPTIONS (where the document is silent")
}

func TestJSON(t *testing.T) {
	// Not parallel: see wholeRuns.
	code, out, errOut := runCmd(t, nil, "-short", "-json")
	require.Equal(t, exitOK, code, errOut)
	var r contract.Report
	require.NoError(t, json.Unmarshal([]byte(out), &r), out)
	require.Positive(t, r.Passed)
	require.Zero(t, r.Failed)
	require.Len(t, r.Results, r.Passed+r.Failed+r.Skipped)
	require.True(t, r.Mock)
}

// TestFailure runs the command against a mock with a fault: it exits 1,
// with a FAIL line saying what was expected and what came, and the
// summary counting it.
func TestFailure(t *testing.T) {
	// Not parallel: see wholeRuns.
	srv := mockserver.NewTest(t, mockserver.WithAnalysisDuration(analysisDuration))
	_, err := srv.InjectFault(mockserver.Fault{Method: "DELETE", Path: "/v1/folders/*", Status: 500, Times: 1})
	require.NoError(t, err)
	env := map[string]string{envBaseURL: srv.URL, envAPIKey: srv.APIKey}
	code, out, errOut := runCmd(t, env, "-short", "-mock", "-workflow", "wf_default")
	require.Equal(t, exitFailed, code, "%s\n%s", out, errOut)
	require.Regexp(t, `(?m)^FAIL errors.cannot-delete-default-folder: .* \[Errors\]: expected 400 CANNOT_DELETE_DEFAULT_FOLDER; got 500 INTERNAL_ERROR`, out)
	require.Regexp(t, `(?m)^\d+ passed, 1 failed, 3 skipped$`, out)
	require.Empty(t, srv.Profiles())
}

// TestCannotRun checks that a run that cannot start prints only why: no
// summary, and with -json a report with empty lists and its error.
func TestCannotRun(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"a wrong key", map[string]string{envBaseURL: srv.URL, envAPIKey: "wrong"}, []string{"-workflow", "wf_default"}, "refused the API key"},
		{"an unknown workflow", map[string]string{envBaseURL: srv.URL, envAPIKey: srv.APIKey}, []string{"-workflow", "wf_nope"}, "workflow wf_nope"},
		{"no workflow for a service", map[string]string{envBaseURL: srv.URL, envAPIKey: srv.APIKey}, nil, "no workflow"},
		{"no key for a service", map[string]string{envBaseURL: srv.URL}, []string{"-workflow", "wf_default"}, "no API key"},
		{"a bad flag", nil, []string{"-nope"}, "flag provided but not defined"},
		{"an argument", nil, []string{"extra"}, "unexpected arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCmd(t, tt.env, tt.args...)
			require.Equal(t, exitCannotRun, code, errOut)
			require.Contains(t, errOut, tt.want)
			require.Empty(t, out, "only the reason, on stderr")
			if tt.args == nil || tt.env[envAPIKey] == "" {
				require.NotContains(t, errOut, "It creates", "no plan announced for a run that cannot start")
			}
		})
	}
	t.Run("-json", func(t *testing.T) {
		code, out, _ := runCmd(t, map[string]string{envBaseURL: srv.URL, envAPIKey: "wrong"}, "-json", "-workflow", "wf_default")
		require.Equal(t, exitCannotRun, code)
		var r map[string]any
		require.NoError(t, json.Unmarshal([]byte(out), &r), out)
		require.Equal(t, []any{}, r["results"])
		require.Equal(t, []any{}, r["cleanup"])
		require.Contains(t, r["error"], "refused the API key")
	})
	require.Empty(t, srv.Profiles())
}

// TestInterrupts sends two interrupts: the first cancels the run, the
// second exits at once, naming the profiles left.
func TestInterrupts(t *testing.T) {
	t.Parallel()
	sig := make(chan os.Signal, 2)
	cancelled := make(chan struct{})
	exited := make(chan int, 1)
	left := &leftovers{}
	left.track("pf_kept", false)
	left.track("pf_gone", false)
	left.track("pf_gone", true)
	var stderr bytes.Buffer
	go interrupts(sig, func() { close(cancelled) }, left, &stderr, func(code int) { exited <- code })
	sig <- os.Interrupt
	<-cancelled
	sig <- os.Interrupt
	require.Equal(t, exitCannotRun, <-exited)
	require.Contains(t, stderr.String(), "cleaning up… (press Ctrl-C again to abandon)")
	require.Contains(t, stderr.String(), "NOT deleted: profile pf_kept: delete them yourself")
	require.NotContains(t, stderr.String(), "pf_gone")
}

// TestInterruptedCleanupFailed checks that an interrupted run whose
// cleanup failed says so on stdout, in the summary and in the JSON report.
func TestInterruptedCleanupFailed(t *testing.T) {
	t.Parallel()
	report := &contract.Report{Results: []contract.Result{{Status: contract.Pass, ID: "auth.missing-key", Kind: contract.Rule}}, Passed: 1,
		Cleanup: []string{"profile pf_1: NOT deleted (500): delete it yourself"}, CleanupFailed: true, Error: "interrupted; the cleanup failed"}
	for _, asJSON := range []bool{false, true} {
		var stdout, stderr bytes.Buffer
		code := finish(report, contract.ErrInterrupted, asJSON, &stdout, &stderr)
		require.Equal(t, exitCannotRun, code)
		if asJSON {
			require.Contains(t, stdout.String(), `"cleanupFailed": true`)
			require.Contains(t, stdout.String(), `"error": "interrupted; the cleanup failed"`)
		} else {
			require.Contains(t, stdout.String(), "CLEANUP FAILED")
		}
	}
}

func TestFlagsWinOverTheEnvironment(t *testing.T) {
	// Not parallel: see wholeRuns.
	srv := mockserver.NewTest(t, mockserver.WithAnalysisDuration(analysisDuration))
	env := map[string]string{envBaseURL: "http://127.0.0.1:1", envAPIKey: "wrong", envWorkflowID: "wf_nope"}
	code, out, errOut := runCmd(t, env, "-short", "-base-url", srv.URL, "-api-key", srv.APIKey, "-workflow", "wf_default")
	require.Equal(t, exitOK, code, "%s\n%s", out, errOut)
}

// TestRedirectToAnotherOrigin runs the command against a mock behind a
// gateway that answers the updates of items with a 307 to a server on
// another port: that server gets no request, neither key nor body, and
// the command exits 1 with the FAIL line saying why.
func TestRedirectToAnotherOrigin(t *testing.T) {
	// Not parallel: see wholeRuns.
	srv := mockserver.NewTest(t, mockserver.WithAnalysisDuration(analysisDuration))
	var got atomic.Int32
	away := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got.Add(1) }))
	t.Cleanup(away.Close)
	target, err := url.Parse(srv.URL)
	require.NoError(t, err)
	rp := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(target) }}
	gateway := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPatch && strings.HasPrefix(r.URL.Path, "/v1/items/") {
			w.Header().Set("Location", away.URL+r.URL.RequestURI())
			w.WriteHeader(http.StatusTemporaryRedirect)
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(gateway.Close)

	env := map[string]string{envBaseURL: gateway.URL, envAPIKey: srv.APIKey}
	code, out, errOut := runCmd(t, env, "-short", "-mock", "-workflow", "wf_default")
	require.Equal(t, exitFailed, code, "%s\n%s", out, errOut)
	require.Zero(t, got.Load(), "the other origin got a request")
	require.Regexp(t, `(?m)^FAIL endpoints.update-item: .*; got redirected to another origin \(307 to `+regexp.QuoteMeta(away.URL)+`\): not followed`, out)
	require.Empty(t, srv.Profiles())
}
