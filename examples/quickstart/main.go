// Command quickstart runs the whole flow of the Profile Document Analysis
// Service: it creates a profile, uploads a file, a text and a JSON
// document, analyses them, waits for the result while showing progress,
// prints a summary, saves the PDF report in English and in Korean, and
// deletes the profile.
//
// With no configuration it runs against the embedded mock server, in its
// workflow wf_default; with PROFILESVC_BASE_URL and PROFILESVC_API_KEY set,
// against that service, in the workflow named by -workflow or, by default,
// PROFILESVC_WORKFLOW_ID (a real service has no wf_default).
//
//	go run ./examples/quickstart [-out DIR] [-keep] [-workflow ID]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

// envWorkflowID names the variable that holds the default of -workflow: the
// workflow of the service that the profile is created in.
const envWorkflowID = "PROFILESVC_WORKFLOW_ID"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stdout, isTerminal(os.Stdout))
	stop()
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

// The documents the quickstart analyses: an identity document, a bank
// statement and a utility bill of one applicant.
const (
	passportText = `PASSPORT
Type: P   Issuing country: CAN
Full Name: Jane Marie Doe
Nationality: Canadian
Date of Birth: 1990-04-12
Passport Number: AB1234567
Date of Issue: 2021-05-02
Expiry Date: 2031-05-01
`
	statementText = `Bank statement, March 2026
Account holder: Jane Marie Doe
Address: 12 Elm Street, Springfield
Date of birth: 12/04/1990
Account number: 00123456
Closing balance: 4,812.55 CAD
`
)

var utilityBill = map[string]any{
	"document_type": "utility bill",
	"supplier":      "Springfield Power & Light",
	"customer_name": "Jane Marie Doe",
	"address":       "12 Elm Street, Springfield",
	"period":        "2026-02",
	"amount_due":    "86.20 CAD",
}

// run is the quickstart; fancy turns on the spinner of a terminal.
func run(ctx context.Context, args []string, out io.Writer, fancy bool) error {
	flags := flag.NewFlagSet("quickstart", flag.ContinueOnError)
	flags.SetOutput(out)
	dir := flags.String("out", ".", "save the PDF reports in `DIR`")
	keep := flags.Bool("keep", false, "keep the profile instead of deleting it at the end")
	workflowFlag := flags.String("workflow", "", "create the profile in the workflow `ID` (default $"+envWorkflowID+
		"; required with a real service; "+mockserver.DefaultWorkflowID+" on the embedded mock server)")
	flags.Usage = func() {
		fmt.Fprintf(flags.Output(), `Usage: go run ./examples/quickstart [-out DIR] [-keep] [-workflow ID]

Runs the whole flow of the Profile Document Analysis Service against the
embedded mock server or, with %s and %s set,
against that service.

Flags:
`, profilesvc.EnvBaseURL, profilesvc.EnvAPIKey)
		flags.PrintDefaults()
	}
	if err := flags.Parse(args); err != nil {
		return err
	}
	if err := checkDir(*dir); err != nil {
		return fmt.Errorf("-out %s: %w", *dir, err)
	}
	baseURL := os.Getenv(profilesvc.EnvBaseURL)
	workflow, err := chooseWorkflow(*workflowFlag, baseURL)
	if err != nil {
		return err
	}

	client, where, closeService, err := connect(baseURL)
	if err != nil {
		return err
	}
	defer closeService()
	fmt.Fprintln(out, where)

	profile, err := client.CreateProfile(ctx, workflow, profilesvc.CreateProfileParams{
		Name:        "Jane Marie Doe",
		Description: "Quickstart applicant",
		Metadata:    profilesvc.Object{"source": "quickstart"},
	})
	if err != nil {
		return fmt.Errorf("creating the profile in workflow %s: %w", workflow, err)
	}
	fmt.Fprintf(out, "Created profile %s (%s) in workflow %s\n", profile.ID, profile.Name, workflow)
	if !*keep {
		defer func() {
			// Clean up even when the flow failed or was interrupted.
			cleanup, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := client.DeleteProfile(cleanup, profile.ID); err != nil {
				fmt.Fprintf(out, "Could not delete profile %s: %v\n", profile.ID, err)
				return
			}
			fmt.Fprintf(out, "Deleted profile %s\n", profile.ID)
		}()
	}
	folder := profile.DefaultFolder()
	if folder == nil {
		return errors.New("the new profile has no default folder")
	}

	file, err := client.UploadFile(ctx, folder.ID, strings.NewReader(passportText), profilesvc.UploadParams{
		Filename: "passport.txt", Name: "Passport scan"})
	if err != nil {
		return fmt.Errorf("uploading the passport: %w", err)
	}
	text, err := client.CreateTextItem(ctx, folder.ID, statementText, profilesvc.CreateItemParams{Name: "Bank statement"})
	if err != nil {
		return fmt.Errorf("adding the bank statement: %w", err)
	}
	bill, err := client.CreateJSONItem(ctx, folder.ID, utilityBill, profilesvc.CreateItemParams{Name: "Utility bill"})
	if err != nil {
		return fmt.Errorf("adding the utility bill: %w", err)
	}
	for _, it := range []*profilesvc.Item{file, text, bill} {
		fmt.Fprintf(out, "Added %s item %s (%s, %d bytes)\n", it.Type, it.ID, it.Name, it.SizeBytes)
	}

	id, err := client.StartAnalysis(ctx, profile.ID, profilesvc.StartAnalysisParams{
		ItemIDs:        []string{file.ID, text.ID, bill.ID},
		ClientMetadata: profilesvc.Object{"requestedBy": "quickstart"},
	})
	if err != nil {
		return fmt.Errorf("starting the analysis: %w", err)
	}
	fmt.Fprintf(out, "Started analysis %s\n", id)

	progress := newProgress(out, fancy)
	analysis, err := client.WaitForAnalysis(ctx, id, &profilesvc.WaitOptions{OnUpdate: progress.update})
	progress.stop()
	if err != nil {
		return fmt.Errorf("waiting for the analysis: %w", err)
	}

	if err := printSummary(out, analysis); err != nil {
		return err
	}

	for _, locale := range []profilesvc.Locale{profilesvc.LocaleEnglish, profilesvc.LocaleKorean} {
		path := filepath.Join(*dir, fmt.Sprintf("report-%s-%s.pdf", id, locale))
		saved, err := client.SaveReport(ctx, id, path, &profilesvc.ReportParams{Locale: locale})
		if err != nil {
			return fmt.Errorf("saving the %s report: %w", locale, err)
		}
		fmt.Fprintf(out, "Saved the %s report to %s\n", locale, saved)
	}
	return nil
}

// checkDir reports why dir cannot hold the reports: it does not exist or
// is not a directory.
func checkDir(dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errors.New("the directory does not exist")
	case err != nil:
		return err
	case !fi.IsDir():
		return errors.New("not a directory")
	}
	return nil
}

// chooseWorkflow returns the workflow to create the profile in: the
// -workflow flag, else $PROFILESVC_WORKFLOW_ID, else the embedded mock's
// default workflow. With a real service (baseURL set), one of the first
// two is required.
func chooseWorkflow(flagValue, baseURL string) (string, error) {
	if flagValue != "" {
		return flagValue, nil
	}
	if id := os.Getenv(envWorkflowID); id != "" {
		return id, nil
	}
	if baseURL == "" {
		return mockserver.DefaultWorkflowID, nil
	}
	return "", fmt.Errorf("the service at %s needs a workflow to create the profile in: name one of its workflows with -workflow ID or %s (%s exists only in the embedded mock server)",
		baseURL, envWorkflowID, mockserver.DefaultWorkflowID)
}

// connect returns a client of the service at baseURL, or of an embedded
// mock server when baseURL is empty, with a line that says which.
func connect(baseURL string) (*profilesvc.Client, string, func(), error) {
	if baseURL != "" {
		client, err := profilesvc.NewClient()
		if err != nil {
			return nil, "", nil, err
		}
		return client, "Talking to the service at " + client.BaseURL(), func() {}, nil
	}
	srv, err := mockserver.Start("127.0.0.1:0", mockserver.WithAnalysisDuration(2*time.Second))
	if err != nil {
		return nil, "", nil, fmt.Errorf("starting the embedded mock server: %w", err)
	}
	where := fmt.Sprintf("Talking to the embedded mock server at %s (set %s, %s and %s to use a real service)",
		srv.URL, profilesvc.EnvBaseURL, profilesvc.EnvAPIKey, envWorkflowID)
	return srv.Client(), where, srv.Close, nil
}

// progress shows the analysis's status while WaitForAnalysis waits: a
// spinner with the elapsed time on a terminal, a plain line per status
// change elsewhere.
type progress struct {
	out    io.Writer
	start  time.Time
	fancy  bool
	mu     sync.Mutex
	status profilesvc.AnalysisStatus
	width  int // of the spinner's line, in runes
	done   chan struct{}
	wg     sync.WaitGroup
}

func newProgress(out io.Writer, fancy bool) *progress {
	p := &progress{out: out, start: time.Now(), fancy: fancy, done: make(chan struct{})}
	if fancy {
		p.wg.Add(1)
		go p.spin()
	}
	return p
}

// update is the OnUpdate callback: it is called on each status change.
func (p *progress) update(a *profilesvc.Analysis) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.status = a.Status
	if !p.fancy {
		fmt.Fprintf(p.out, "  %.1fs %s\n", time.Since(p.start).Seconds(), a.Status)
	}
}

func (p *progress) spin() {
	defer p.wg.Done()
	frames := []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for i := 0; ; i++ {
		p.mu.Lock()
		p.draw(frames[i%len(frames)])
		p.mu.Unlock()
		select {
		case <-p.done:
			return
		case <-tick.C:
		}
	}
}

// stop ends the spinner and leaves the final status on its line.
func (p *progress) stop() {
	close(p.done)
	p.wg.Wait()
	if p.fancy {
		p.draw("✓")
		fmt.Fprintln(p.out)
	}
}

// draw rewrites the spinner's line: mark, the status and the elapsed time.
// It blanks the previous line first, so that a shorter line leaves nothing
// of a longer one behind. The caller holds p.mu.
func (p *progress) draw(mark string) {
	status := string(p.status)
	if status == "" {
		status = "waiting"
	}
	line := fmt.Sprintf("  %s %s %.1fs", mark, status, time.Since(p.start).Seconds())
	fmt.Fprintf(p.out, "\r%s\r%s", strings.Repeat(" ", p.width), line)
	p.width = utf8.RuneCountInString(line)
}

// printSummary prints the result of an analysis as a reviewer reads it.
func printSummary(out io.Writer, a *profilesvc.Analysis) error {
	took := ""
	if a.CompletedAt != nil {
		took = fmt.Sprintf(" in %.1fs", a.CompletedAt.Sub(a.RequestedAt).Seconds())
	}
	fmt.Fprintf(out, "\nAnalysis %s %s%s\n", a.ID, a.Status, took)
	if ra := a.RiskAssessment; ra != nil {
		fmt.Fprintf(out, "Risk: %s (%.0f/100)\n", ra.RiskLevel, ra.RiskScore)
	}
	review, err := a.ExtractedData.ReviewResult()
	if err != nil {
		return err
	}
	if review != nil {
		if review.FinalActionReason == "" {
			fmt.Fprintf(out, "Decision: %s\n", review.FinalAction)
		} else {
			fmt.Fprintf(out, "Decision: %s. %s\n", review.FinalAction, review.FinalActionReason)
		}
	}

	fmt.Fprintln(out, "\nFindings:")
	for _, f := range a.Findings {
		mark := map[profilesvc.FindingResult]string{profilesvc.FindingPassed: "✓", profilesvc.FindingWarning: "!", profilesvc.FindingFailed: "✗"}[f.Result]
		fmt.Fprintf(out, "  %s %s (%s) — %s\n", mark, f.Category, f.Result, f.Details)
	}

	fmt.Fprintln(out, "\nTop recommendations:")
	for i, r := range a.Recommendations {
		if i == 3 {
			break
		}
		fmt.Fprintf(out, "  %d. [priority %d] %s\n", i+1, r.Priority, r.Content)
	}

	values, err := a.ExtractedData.ExtractedValues()
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "\nExtracted values:")
	keys := make([]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := values[k]
		if v == nil {
			v = "—"
		}
		fmt.Fprintf(out, "  %s: %v\n", k, v)
	}
	fmt.Fprintln(out)
	return nil
}

// isTerminal reports whether f is a terminal, for the spinner.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
