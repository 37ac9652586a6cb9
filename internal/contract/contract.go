// Package contract is the contract suite of cmd/profilesvc-contract: it
// checks a running service, the real one or the mock, against the rules
// the interface document states (its "States and transitions", "Limits"
// and "Errors" tables and the answer each endpoint gives), holding every
// answer to api/openapi.yaml, and reports apart, as assumptions, what the
// SDK and the mock assume where the document is silent: the inferred
// endpoints and the error codes it leaves open.
//
// It is safe to run against a real account: it creates one profile of its
// own, named so that a person recognises it, touches nothing else, never
// lists anything but what it made, and deletes the profile at the end
// whatever happened, a cancelled context included.
package contract

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/profilesvc/profilesvc-go/internal/openapicheck"
)

// Config says what to check and how.
type Config struct {
	// BaseURL is the service's address, with or without a trailing slash
	// and /v1.
	BaseURL string
	// APIKey is the key sent as x-api-key.
	APIKey string
	// WorkflowID is the workflow the suite's profile is created in.
	WorkflowID string
	// Short skips the long checks: the retention of five analyses, which
	// runs six, and a long poll held to its timeout.
	Short bool
	// AnalysisTimeout bounds the wait for one analysis to end; 10 minutes
	// when zero.
	AnalysisTimeout time.Duration
	// RequestTimeout bounds a request that is not a long poll; 60 seconds
	// when zero.
	RequestTimeout time.Duration
	// HTTPClient sends the requests; a client of its own when nil. Its
	// redirects are followed only within the service's origin (scheme,
	// host and port), by its own CheckRedirect; one to another origin is
	// not followed, whatever that says, so that the key and the bodies go
	// nowhere else: the check that got it fails.
	HTTPClient *http.Client
	// Now is the suite's clock, for the long poll's hold; time.Now when
	// nil.
	Now func() time.Time
	// Name is the name of the suite's profile; "profilesvc-contract" and
	// the time when empty.
	Name string
	// Mock says that the service is a profilesvc-mock, whose control API
	// (/_mock/) the checks that need it may use. It is never guessed: only
	// the caller, who started the mock or was told so, knows.
	Mock bool
	// OnProfile, when set, is told of each profile the suite makes (gone
	// false) and of each the cleanup has deleted (gone true), as it
	// happens, so that a caller that abandons the cleanup can say what is
	// left. It is called from Run's goroutine.
	OnProfile func(id string, gone bool)
}

// Status is the outcome of a check.
type Status string

// The outcomes of a check.
const (
	Pass Status = "PASS"
	Fail Status = "FAIL"
	Skip Status = "SKIP"
)

// Kind says where a check comes from.
type Kind string

// The kinds of check.
const (
	// Rule is a rule the interface document states.
	Rule Kind = "rule"
	// Assumption is what the SDK and the mock assume where the document
	// is silent: an inferred endpoint, an error code it leaves open.
	Assumption Kind = "assumption"
)

// Result is the outcome of one check.
type Result struct {
	Status Status `json:"status"`
	// ID names the check, such as "states.analysis-in-progress".
	ID   string `json:"id"`
	Kind Kind   `json:"kind"`
	// Section is the interface document's section the check comes from.
	Section string `json:"section"`
	// What says what was checked.
	What string `json:"what"`
	// Expected and Got say, for a failure, what was expected and what
	// came; Reason says why a check was skipped.
	Expected string `json:"expected,omitempty"`
	Got      string `json:"got,omitempty"`
	Reason   string `json:"reason,omitempty"`
}

// Report is the outcome of a run.
type Report struct {
	// Target is the service's address; Mock reports whether it was
	// checked as the mock (Config.Mock), with its control API.
	Target string `json:"target"`
	Mock   bool   `json:"mock"`
	// Workflow is the workflow the profile was created in, Profile the
	// profile's name and ID.
	Workflow    string `json:"workflow"`
	ProfileName string `json:"profileName"`
	ProfileID   string `json:"profileId,omitempty"`
	// Created counts what the run made; Planned says the most it makes.
	Created Counts `json:"created"`
	// Results are the checks' outcomes, in the order they ran.
	Results []Result `json:"results"`
	// Passed, Failed and Skipped count them.
	Passed  int `json:"passed"`
	Failed  int `json:"failed"`
	Skipped int `json:"skipped"`
	// Cleanup says what was deleted at the end, and what could not be.
	Cleanup []string `json:"cleanup"`
	// CleanupFailed reports that something the suite made is, or may be,
	// left.
	CleanupFailed bool `json:"cleanupFailed"`
	// Error says why the run stopped short (it could not run, it was
	// interrupted) and whether the cleanup failed; empty when it did
	// not.
	Error string `json:"error,omitempty"`
}

// ErrCannotRun is matched by the error of Run when the suite could not run
// at all: no connection, a refused key, an unknown workflow.
var ErrCannotRun = errors.New("contract: the suite cannot run")

// ErrInterrupted is matched by the error of Run when its context ended
// before the checks did; what the suite made is deleted all the same.
var ErrInterrupted = errors.New("contract: interrupted")

// Counts counts what a run makes: its profiles, their folders (the
// default ones included), items and analyses.
type Counts struct {
	Profiles int `json:"profiles"`
	Folders  int `json:"folders"`
	Items    int `json:"items"`
	Analyses int `json:"analyses"`
}

// Planned is the most a run of cfg makes against a service that follows
// the rules: the two profiles of the suite's, the ten folders of the
// first (and each profile's default one), its items (three documents, one
// deleted again, one in a folder deleted again, one of the second
// profile's; one the mock makes not ACTIVE; one held in a long poll) and
// its analyses (the first, a second when the first has ended before it,
// one the mock fails; with the long checks, six for the retention of five
// and the held one).
func Planned(cfg Config) Counts {
	c := Counts{Profiles: 2, Folders: 12, Items: 6, Analyses: 2}
	if cfg.Mock {
		c.Items++
		c.Analyses++
	}
	if !cfg.Short {
		c.Items++
		c.Analyses = maxAnalyses + 2 // the retention's six, the held one
	}
	return c
}

// Plan says what a run will create and delete, for the person starting
// it, before anything is sent.
func Plan(cfg Config) string {
	cfg = cfg.withDefaults()
	c := Planned(cfg)
	return fmt.Sprintf("It creates two profiles, %q and %q, in workflow %s: up to %d folders, %d items and %d analyses in them. "+
		"It reads and changes nothing else, and deletes the profiles at the end, whatever happens (Ctrl-C included).",
		cfg.Name, cfg.Name+" second", cfg.WorkflowID, c.Folders, c.Items, c.Analyses)
}

func (cfg Config) withDefaults() Config {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.AnalysisTimeout == 0 {
		cfg.AnalysisTimeout = 10 * time.Minute
	}
	if cfg.RequestTimeout == 0 {
		cfg.RequestTimeout = 60 * time.Second
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{}
	}
	if cfg.Name == "" {
		cfg.Name = "profilesvc-contract " + cfg.Now().UTC().Format("2006-01-02T15:04:05Z")
	}
	return cfg
}

// Run runs the suite, calling emit with each result as it comes (emit may
// be nil), and returns the report, never nil. Its error matches
// ErrCannotRun when the suite could not run, ErrInterrupted when ctx ended
// first; either way the report says what was checked and what was cleaned
// up, and its Error says why.
func Run(ctx context.Context, cfg Config, emit func(Result)) (*Report, error) {
	cfg = cfg.withDefaults()
	report := &Report{Target: cfg.BaseURL, Mock: cfg.Mock, Workflow: cfg.WorkflowID, ProfileName: cfg.Name, Results: []Result{}, Cleanup: []string{}}
	s, err := newSuite(ctx, cfg, emit, report)
	if err != nil {
		report.Error = err.Error()
		return report, err
	}
	err = s.runAndCleanUp(ctx)
	if err != nil {
		report.Error = err.Error()
	}
	if report.CleanupFailed {
		report.Error = strings.TrimPrefix(report.Error+"; the cleanup failed: "+strings.Join(report.Cleanup, "; "), "; ")
	}
	return report, err
}

// newSuite checks the configuration and makes the run's suite.
func newSuite(ctx context.Context, cfg Config, emit func(Result), report *Report) (*suite, error) {
	if cfg.APIKey == "" {
		return nil, fmt.Errorf("%w: no API key (-api-key or PROFILESVC_API_KEY)", ErrCannotRun)
	}
	if cfg.WorkflowID == "" {
		return nil, fmt.Errorf("%w: no workflow (-workflow or PROFILESVC_WORKFLOW_ID)", ErrCannotRun)
	}
	if _, err := (request{path: "/v1/workflows/{workflowId}/profiles", id: cfg.WorkflowID}).target(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCannotRun, err)
	}
	base, err := normalizeBase(cfg.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCannotRun, err)
	}
	report.Target = base
	doc, err := openapicheck.New() // one per process, shared by every run
	if err != nil {
		return nil, err
	}
	return &suite{
		ctx:    ctx,
		cfg:    cfg,
		c:      &client{base: base, key: cfg.APIKey, hc: keyStaysHome(cfg.HTTPClient), doc: doc, now: cfg.Now, timeout: cfg.RequestTimeout},
		emit:   emit,
		report: report,
	}, nil
}

// runAndCleanUp runs the checks, then deletes what they made, whatever
// happened: an interruption, a panic.
func (s *suite) runAndCleanUp(ctx context.Context) error {
	defer s.cleanup(ctx)
	err := s.run(ctx)
	if err == nil && ctx.Err() != nil {
		err = fmt.Errorf("%w: %v", ErrInterrupted, context.Cause(ctx))
	}
	return err
}

// suite is one run: its client, its results, and what it made.
type suite struct {
	// ctx is the run's: once it has ended, no check runs.
	ctx    context.Context
	cfg    Config
	c      *client
	emit   func(Result)
	report *Report
	st     state
	// created lists the profiles the suite made, to delete at the end.
	created []string
	deleted []string
}

// outcome is what a check function returns besides nil (a pass).
type outcome struct {
	status        Status
	expected, got string
	reason        string
}

func (o *outcome) Error() string {
	if o.status == Skip {
		return o.reason
	}
	return fmt.Sprintf("expected %s, got %s", o.expected, o.got)
}

// fail is a failed check: what was expected, what came.
func fail(expected, got string) error {
	return &outcome{status: Fail, expected: expected, got: got}
}

// skip is a check that could not be made, and why.
func skip(format string, args ...any) error {
	return &outcome{status: Skip, reason: fmt.Sprintf(format, args...)}
}

// check runs one check and records its result. The check passes when fn
// returns nil.
func (s *suite) check(id string, kind Kind, section, what string, fn func() error) bool {
	if s.ctx.Err() != nil {
		return false
	}
	r := Result{ID: id, Kind: kind, Section: section, What: what, Status: Pass}
	var err error
	if s.cfg.Short && isLong(id) {
		err = skip("a long check: run without -short to make it")
	} else {
		err = protect(fn)
	}
	var o *outcome
	switch {
	case err == nil:
	case errors.As(err, &o) && o.status == Skip:
		r.Status, r.Reason = Skip, o.reason
	case errors.As(err, &o):
		r.Status, r.Expected, r.Got = Fail, o.expected, o.got
	default:
		r.Status, r.Expected, r.Got = Fail, "no error", err.Error()
	}
	if s.ctx.Err() != nil {
		return false // cut short by the interruption: not a result
	}
	s.record(r)
	return r.Status == Pass
}

// made records a profile the suite made, for the cleanup to delete.
func (s *suite) made(id string) {
	s.created = append(s.created, id)
	s.report.Created.Profiles++
	s.report.Created.Folders++ // its default folder
	if s.cfg.OnProfile != nil {
		s.cfg.OnProfile(id, false)
	}
}

// protect runs a check's function, turning a panic into its failure.
func protect(fn func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fail("no panic", fmt.Sprintf("panic: %v", v))
		}
	}()
	return fn()
}

// record keeps a result and passes it on.
func (s *suite) record(r Result) {
	switch r.Status {
	case Pass:
		s.report.Passed++
	case Fail:
		s.report.Failed++
	case Skip:
		s.report.Skipped++
	}
	s.report.Results = append(s.report.Results, r)
	if s.emit != nil {
		s.emit(r)
	}
}

// isLong reports whether -short skips a check.
func isLong(id string) bool {
	switch id {
	case "limits.analyses-retained", "longpoll.holds", "assume.client-metadata":
		return true
	}
	return false
}
