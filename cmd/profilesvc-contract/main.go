// Command profilesvc-contract checks a running Profile Document Analysis
// Service, the real one or the mock, against the rules of the interface
// document and the assumptions the SDK and the mock make where it is
// silent, holding every answer to api/openapi.yaml.
//
//	profilesvc-contract -base-url URL -api-key KEY -workflow ID [-short] [-json]
//
// The key and the address default to PROFILESVC_API_KEY and
// PROFILESVC_BASE_URL, the workflow to PROFILESVC_WORKFLOW_ID. With no
// address it starts the embedded mock and checks that, in its workflow
// wf_default, so that `go run ./cmd/profilesvc-contract` works on a fresh
// clone.
//
// It creates one profile of its own, named "profilesvc-contract" and the
// time, touches nothing else, and deletes the profile at the end whatever
// happens, Ctrl-C included. -short skips the long checks (the retention of
// five analyses, a long poll held to its timeout).
//
// It prints one line a check, `PASS|FAIL|SKIP id: what [section]`, a
// failure saying what was expected and what came, and a summary line
// `N passed, M failed, K skipped`; -json prints the report as JSON
// instead. It exits 0 when nothing failed, 1 when a check failed (or the
// profile could not be deleted), 2 when it could not run: no connection, a
// refused key, an unknown workflow, bad flags, an interruption.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/profilesvc/profilesvc-go/internal/contract"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

// Environment variables of the defaults, as the SDK and the quickstart
// read them.
const (
	envBaseURL    = "PROFILESVC_BASE_URL"
	envAPIKey     = "PROFILESVC_API_KEY"
	envWorkflowID = "PROFILESVC_WORKFLOW_ID"
)

// Exit codes.
const (
	exitOK        = 0
	exitFailed    = 1
	exitCannotRun = 2
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the command: it returns the exit code.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("profilesvc-contract", flag.ContinueOnError)
	fs.SetOutput(stderr)
	baseURL := fs.String("base-url", getenv(envBaseURL), "the service's address ($"+envBaseURL+"); none: the embedded mock")
	apiKey := fs.String("api-key", getenv(envAPIKey), "the API key ($"+envAPIKey+")")
	workflow := fs.String("workflow", getenv(envWorkflowID), "the workflow the suite's profile is made in ($"+envWorkflowID+"; wf_default with the embedded mock)")
	short := fs.Bool("short", false, "skip the long checks: the retention of five analyses, a long poll held to its timeout")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	analysisTimeout := fs.Duration("analysis-timeout", 10*time.Minute, "the longest wait for one analysis to end")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitCannotRun
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "profilesvc-contract: unexpected arguments %q\n", fs.Args())
		return exitCannotRun
	}
	cfg := contract.Config{BaseURL: *baseURL, APIKey: *apiKey, WorkflowID: *workflow, Short: *short, AnalysisTimeout: *analysisTimeout}
	target := cfg.BaseURL
	if cfg.BaseURL == "" {
		srv, err := mockserver.Start("127.0.0.1:0")
		if err != nil {
			fmt.Fprintln(stderr, "profilesvc-contract: starting the embedded mock:", err)
			return exitCannotRun
		}
		defer srv.Close()
		cfg.BaseURL, cfg.APIKey = srv.URL, srv.APIKey
		if cfg.WorkflowID == "" {
			cfg.WorkflowID = mockserver.DefaultWorkflowID
		}
		target = srv.URL + " (the embedded mock)"
	}
	cfg.Name = "profilesvc-contract " + time.Now().UTC().Format("2006-01-02T15:04:05Z")
	fmt.Fprintf(stderr, "profilesvc-contract: checking %s, workflow %s.\n%s\n", target, cfg.WorkflowID, contract.Plan(cfg))

	var emit func(contract.Result)
	if !*asJSON {
		emit = func(r contract.Result) { fmt.Fprintln(stdout, line(r)) }
	}
	report, err := contract.Run(ctx, cfg, emit)
	if report == nil {
		fmt.Fprintln(stderr, "profilesvc-contract:", err)
		return exitCannotRun
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if encErr := enc.Encode(report); encErr != nil {
			fmt.Fprintln(stderr, "profilesvc-contract:", encErr)
		}
	} else {
		summary(stdout, report)
	}
	for _, c := range report.Cleanup {
		fmt.Fprintln(stderr, "cleanup:", c)
	}
	switch {
	case err != nil:
		fmt.Fprintln(stderr, "profilesvc-contract:", err)
		return exitCannotRun
	case report.Failed > 0 || report.CleanupFailed:
		return exitFailed
	}
	return exitOK
}

// line is a result's line: `PASS id: what [section]`, with what was
// expected and what came for a failure, and why for a skip.
func line(r contract.Result) string {
	s := fmt.Sprintf("%s %s: %s [%s]", r.Status, r.ID, r.What, r.Section)
	switch r.Status {
	case contract.Fail:
		s += fmt.Sprintf(": expected %s; got %s", r.Expected, oneLine(r.Got))
	case contract.Skip:
		s += ": " + r.Reason
	}
	return s
}

// oneLine keeps a result on its line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// summary prints the counts of the rules and of the assumptions, the
// failed assumptions again, and the summary line.
func summary(w io.Writer, r *contract.Report) {
	counts := map[contract.Kind]map[contract.Status]int{contract.Rule: {}, contract.Assumption: {}}
	var wrong []contract.Result
	for _, res := range r.Results {
		counts[res.Kind][res.Status]++
		if res.Kind == contract.Assumption && res.Status == contract.Fail {
			wrong = append(wrong, res)
		}
	}
	fmt.Fprintln(w)
	for _, k := range []contract.Kind{contract.Rule, contract.Assumption} {
		name := "RULES (stated by the interface document)"
		if k == contract.Assumption {
			name = "ASSUMPTIONS (where the document is silent: what the SDK and the mock assume)"
		}
		c := counts[k]
		fmt.Fprintf(w, "%s: %d passed, %d failed, %d skipped\n", name, c[contract.Pass], c[contract.Fail], c[contract.Skip])
	}
	if len(wrong) > 0 {
		fmt.Fprintln(w, "\nASSUMPTION failures: the SDK and the mock guessed wrong where the interface document is silent. Please report them:")
		for _, res := range wrong {
			fmt.Fprintln(w, "  "+line(res))
		}
	}
	fmt.Fprintf(w, "\n%d passed, %d failed, %d skipped\n", r.Passed, r.Failed, r.Skipped)
}
