// Command profilesvc-contract checks a running Profile Document Analysis
// Service, the real one or the mock, against the rules of the interface
// document and the assumptions the SDK and the mock make where it is
// silent, holding every answer to api/openapi.yaml.
//
//	profilesvc-contract -base-url URL -api-key KEY -workflow ID [-mock] [-short] [-json]
//
// The key and the address default to PROFILESVC_API_KEY and
// PROFILESVC_BASE_URL, the workflow to PROFILESVC_WORKFLOW_ID. With no
// address it starts the embedded mock and checks that, in its workflow
// wf_default, so that `go run ./cmd/profilesvc-contract` works on a fresh
// clone.
//
// It creates two profiles of its own, named "profilesvc-contract" and the
// time, touches nothing else, and deletes them at the end whatever
// happens: a first Ctrl-C stops the checks and cleans up, a second
// abandons the cleanup, saying what is left. -short skips the long checks
// (the retention of five analyses, a long poll held to its timeout). -mock
// says that the service is a profilesvc-mock, so that the checks that
// need its control API run too; the embedded mock is checked so.
//
// It prints one line a check, `PASS|FAIL|SKIP id: what [section]`, a
// failure saying what was expected and what came, and a summary line
// `N passed, M failed, K skipped`; -json prints the report as JSON
// instead. It exits 0 when nothing failed, 1 when a check failed (or a
// profile could not be deleted), 2 when it could not run: no connection, a
// refused key, an unknown workflow, bad flags, an interruption; then it
// prints only why (-json: the report with its "error").
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
	"slices"
	"strings"
	"sync"
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
	ctx, cancel := context.WithCancel(context.Background())
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	left := &leftovers{}
	go interrupts(sig, cancel, left, os.Stderr, os.Exit)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr, left)
	signal.Stop(sig)
	os.Exit(code)
}

// leftovers are the profiles the suite has made and the cleanup has not
// yet deleted, for a second Ctrl-C to name.
type leftovers struct {
	mu  sync.Mutex
	ids []string
}

// track is contract.Config.OnProfile.
func (l *leftovers) track(id string, gone bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ids = slices.DeleteFunc(l.ids, func(v string) bool { return v == id })
	if !gone {
		l.ids = append(l.ids, id)
	}
}

// list returns the profiles left.
func (l *leftovers) list() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.ids)
}

// interrupts cancels the run at the first signal, which the cleanup
// follows, and exits at once at the second, naming what is left.
func interrupts(sig <-chan os.Signal, cancel func(), left *leftovers, stderr io.Writer, exit func(int)) {
	<-sig
	fmt.Fprintln(stderr, "profilesvc-contract: interrupted: cleaning up… (press Ctrl-C again to abandon)")
	cancel()
	<-sig
	ids := left.list()
	if len(ids) == 0 {
		fmt.Fprintln(stderr, "profilesvc-contract: cleanup abandoned; no profile of the suite's is known to be left")
	} else {
		fmt.Fprintf(stderr, "profilesvc-contract: cleanup abandoned: NOT deleted: profile %s: delete them yourself\n", strings.Join(ids, ", profile "))
	}
	exit(exitCannotRun)
}

// run is the command: it returns the exit code. left, when not nil, is
// kept current with the profiles the suite has made and not deleted.
// embedded are options of the embedded mock, applied after its defaults
// (shorter analyses, say).
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer, left *leftovers, embedded ...mockserver.Option) int {
	fs := flag.NewFlagSet("profilesvc-contract", flag.ContinueOnError)
	fs.SetOutput(stderr)
	baseURL := fs.String("base-url", getenv(envBaseURL), "the service's address ($"+envBaseURL+"); none: the embedded mock")
	apiKey := fs.String("api-key", getenv(envAPIKey), "the API key ($"+envAPIKey+")")
	workflow := fs.String("workflow", getenv(envWorkflowID), "the workflow the suite's profile is made in ($"+envWorkflowID+"; wf_default with the embedded mock)")
	mock := fs.Bool("mock", false, "the service is a profilesvc-mock: also run the checks that need its control API (implied with the embedded mock)")
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
	cfg := contract.Config{BaseURL: *baseURL, APIKey: *apiKey, WorkflowID: *workflow, Short: *short, AnalysisTimeout: *analysisTimeout, Mock: *mock}
	if left != nil {
		cfg.OnProfile = left.track
	}
	target := cfg.BaseURL
	if cfg.BaseURL == "" {
		srv, err := mockserver.Start("127.0.0.1:0", embedded...)
		if err != nil {
			fmt.Fprintln(stderr, "profilesvc-contract: starting the embedded mock:", err)
			return exitCannotRun
		}
		defer srv.Close()
		cfg.BaseURL, cfg.APIKey, cfg.Mock = srv.URL, srv.APIKey, true
		if cfg.WorkflowID == "" {
			cfg.WorkflowID = mockserver.DefaultWorkflowID
		}
		target = srv.URL + " (the embedded mock)"
	}
	cfg.Name = "profilesvc-contract " + time.Now().UTC().Format("2006-01-02T15:04:05Z")
	if cfg.APIKey == "" || cfg.WorkflowID == "" {
		// Run refuses it before sending anything: no plan to announce.
		report, err := contract.Run(ctx, cfg, nil)
		return finish(report, err, *asJSON, stdout, stderr)
	}
	fmt.Fprintf(stderr, "profilesvc-contract: checking %s, workflow %s.\n%s\n", target, cfg.WorkflowID, contract.Plan(cfg))

	var emit func(contract.Result)
	if !*asJSON {
		emit = func(r contract.Result) { fmt.Fprintln(stdout, line(r)) }
	}
	report, err := contract.Run(ctx, cfg, emit)
	return finish(report, err, *asJSON, stdout, stderr)
}

// finish prints the report's end, the summary or the JSON report, and the
// cleanup's lines, and returns the exit code. A run that could not start
// prints only why (or the JSON report that says it).
func finish(report *contract.Report, err error, asJSON bool, stdout, stderr io.Writer) int {
	switch {
	case asJSON:
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if encErr := enc.Encode(report); encErr != nil {
			fmt.Fprintln(stderr, "profilesvc-contract:", encErr)
		}
	case len(report.Results) > 0:
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
	if r.CleanupFailed {
		fmt.Fprintln(w, "\nCLEANUP FAILED: what the suite made may be left (the cleanup: lines on stderr say what): delete it yourself")
	}
	fmt.Fprintf(w, "\n%d passed, %d failed, %d skipped\n", r.Passed, r.Failed, r.Skipped)
}
