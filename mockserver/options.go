package mockserver

import (
	"crypto/tls"
	"fmt"
	"log/slog"
	"time"
)

// Option configures a Server.
type Option func(*config)

type config struct {
	apiKey           string
	analysisDuration time.Duration
	manual           bool
	clock            Clock
	idSeed           *uint64
	faultSeed        *uint64
	workflows        []Workflow
	seed             *Seed
	multiTenant      bool
	maxTenants       int
	maxJSONBody      int64
	maxUpload        int64
	uploadMemory     int64
	recordSize       int
	recordBytes      int64
	logger           *slog.Logger
	analyzer         Analyzer
	tls              bool
	tlsCert          *tls.Certificate
	corsOrigins      []string
	reportDelay      time.Duration
	stateFile        string
	// openapiReport, when set, is told of each exchange that disagrees
	// with the service's OpenAPI document (WithOpenAPICheck).
	openapiReport func(error)
	// stateEvent, set by the package's tests alone, is told of the
	// steps of a write of the state file: "queued" when it waits for
	// another write to end, "renaming" when it has written its
	// temporary file and is about to rename it over the state file.
	stateEvent func(event string)
	// pollWaiting, set by the package's tests alone, is called each time
	// a long poll has read its analysis, found it not done, and waits for
	// its next change.
	pollWaiting func()
}

// Defaults of the server's options.
const (
	DefaultAnalysisDuration = 3 * time.Second
	// TestAnalysisDuration is how long the analyses of NewTest take.
	TestAnalysisDuration = 100 * time.Millisecond
	DefaultMaxJSONBody   = 1 << 20
	DefaultMaxUploadSize = 32 << 20
	DefaultUploadMemory  = 128 << 20
	DefaultRecordSize    = 1000
	DefaultRecordBytes   = 8 << 20
	DefaultMaxTenants    = 10000
)

func defaultConfig() config {
	return config{
		analysisDuration: DefaultAnalysisDuration,
		clock:            realClock{},
		workflows:        []Workflow{DefaultWorkflow()},
		maxTenants:       DefaultMaxTenants,
		maxJSONBody:      DefaultMaxJSONBody,
		maxUpload:        DefaultMaxUploadSize,
		uploadMemory:     DefaultUploadMemory,
		recordSize:       DefaultRecordSize,
		recordBytes:      DefaultRecordBytes,
	}
}

// maxRunDuration is the longest an analysis runs, or waits for its
// report: what a state file can hold.
const maxRunDuration = 365 * 24 * time.Hour

func (c *config) validate() error {
	switch {
	case c.analysisDuration < 0:
		return fmt.Errorf("analysis duration %v is negative", c.analysisDuration)
	case c.reportDelay < 0:
		return fmt.Errorf("report delay %v is negative", c.reportDelay)
	case c.analysisDuration > maxRunDuration:
		return fmt.Errorf("analysis duration %v is longer than a year, the longest a state file keeps", c.analysisDuration)
	case c.reportDelay > maxRunDuration:
		return fmt.Errorf("report delay %v is longer than a year, the longest a state file keeps", c.reportDelay)
	case c.maxJSONBody <= 0:
		return fmt.Errorf("JSON body limit %d must be positive", c.maxJSONBody)
	case c.maxUpload <= 0:
		return fmt.Errorf("upload limit %d must be positive", c.maxUpload)
	case c.uploadMemory < c.maxUpload:
		return fmt.Errorf("the memory of uploads under way, %d bytes, must hold at least one upload of the limit, %d", c.uploadMemory, c.maxUpload)
	case c.recordSize < 0:
		return fmt.Errorf("request record size %d is negative", c.recordSize)
	case c.maxTenants < 1:
		return fmt.Errorf("the most tenants, %d, must be at least 1", c.maxTenants)
	case c.recordBytes <= 0:
		return fmt.Errorf("request record bound of %d bytes must be positive", c.recordBytes)
	case c.clock == nil:
		return fmt.Errorf("nil clock")
	}
	origins, err := checkCORSOrigins(c.corsOrigins)
	if err != nil {
		return err
	}
	c.corsOrigins = origins
	for _, w := range c.workflows {
		if err := w.Validate(); err != nil {
			return fmt.Errorf("workflow %s: %w", w.ID, err)
		}
	}
	return nil
}

// WithAPIKey sets the API key the server accepts. Default: a random UUID,
// in Server.APIKey.
func WithAPIKey(key string) Option { return func(c *config) { c.apiKey = key } }

// WithAnalysisDuration sets how long an analysis takes from start to
// completed: pending for the first tenth, processing for the rest. Zero
// completes it at once. Default 3s.
func WithAnalysisDuration(d time.Duration) Option {
	return func(c *config) { c.analysisDuration = d }
}

// WithReportDelay makes every analysis completed for d before its report
// exists, primaryReportId null meanwhile, as the scripted outcome
// mock:report-delay=<d> does for one: a long poll waits for the report, as
// the interface document says.
func WithReportDelay(d time.Duration) Option { return func(c *config) { c.reportDelay = d } }

// WithManualAnalyses makes analyses wait in pending until the test moves
// them with StartProcessing, CompleteAnalysis or FailAnalysis, so that
// tests of polling code are exact and fast.
func WithManualAnalyses() Option { return func(c *config) { c.manual = true } }

// WithClock sets the server's clock, such as a *FakeClock that the test
// advances by hand. Timestamps, analysis durations and long-poll timeouts
// all follow it.
func WithClock(clock Clock) Option { return func(c *config) { c.clock = clock } }

// WithIDSeed makes the server's IDs deterministic: the same seed and the
// same sequence of requests give the same IDs, so that golden files can
// hold whole responses. The request IDs of answers (X-Request-Id) are
// deterministic too, from a sequence of their own: the n-th answer's ID
// depends on the seed and n alone, and reads, polls and retries never
// shift the IDs of resources. A Restore (and a state file loaded at
// start) moves both on to a sequence of the restored state's own, the same
// for the same seed and state, so that a server restarted on its state
// file never draws an ID it holds again; and a new record never takes an
// ID that one already holds.
func WithIDSeed(seed uint64) Option { return func(c *config) { c.idSeed = &seed } }

// WithFaultSeed makes the draws of faults injected with a Probability
// deterministic.
func WithFaultSeed(seed uint64) Option { return func(c *config) { c.faultSeed = &seed } }

// WithWorkflows adds workflows to the default one (a workflow with the ID
// DefaultWorkflowID replaces it).
func WithWorkflows(ws ...Workflow) Option {
	return func(c *config) {
		for _, w := range ws {
			replaced := false
			for i := range c.workflows {
				if c.workflows[i].ID == w.ID {
					c.workflows[i] = w.Clone()
					replaced = true
				}
			}
			if !replaced {
				c.workflows = append(c.workflows, w.Clone())
			}
		}
	}
}

// WithSeed loads workflows, profiles, folders and items at start, as the
// binary's -seed file does.
func WithSeed(seed *Seed) Option { return func(c *config) { c.seed = seed } }

// WithMultiTenant makes the server accept any well-formed UUID as an API
// key, each with its own namespace (profiles, items, analyses, faults and
// request record), so that parallel test suites can share one server.
func WithMultiTenant() Option { return func(c *config) { c.multiTenant = true } }

// WithMaxTenants sets how many keys other than its own a multi-tenant
// server keeps a namespace for (default 10,000): at the cap, a new key
// evicts the namespace used least recently that has no request under way,
// with all it held.
func WithMaxTenants(n int) Option { return func(c *config) { c.maxTenants = n } }

// WithMaxJSONBody sets the largest JSON request body, in bytes; a larger
// one gets 413 PAYLOAD_TOO_LARGE. Default 1 MiB.
func WithMaxJSONBody(n int64) Option { return func(c *config) { c.maxJSONBody = n } }

// WithMaxUploadSize sets the largest multipart upload, in bytes; a larger
// one gets 413 PAYLOAD_TOO_LARGE. Default 32 MiB.
func WithMaxUploadSize(n int64) Option { return func(c *config) { c.maxUpload = n } }

// WithUploadMemory sets how many bytes all the uploads under way may hold
// at once (default 128 MiB, at least WithMaxUploadSize): an upload that
// would pass it gets 503 SERVICE_UNAVAILABLE with Retry-After, so that a
// flood of uploads never exhausts the process's memory.
func WithUploadMemory(n int64) Option { return func(c *config) { c.uploadMemory = n } }

// WithRequestRecordSize sets how many requests each namespace keeps in its
// record (the newest); 0 keeps none. Default 1000.
func WithRequestRecordSize(n int) Option { return func(c *config) { c.recordSize = n } }

// WithRequestRecordBytes sets how many bytes each namespace's request
// record may hold, bodies and headers counted (default 8 MiB): the oldest
// requests are dropped, and counted (Tenant.RequestsDropped), to keep
// within it as within the number of entries.
func WithRequestRecordBytes(n int64) Option { return func(c *config) { c.recordBytes = n } }

// WithLogger logs every request (method, path, status, duration) to l.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// WithAnalyzer replaces the analysis engine for a test: fn receives the
// analysis's input and returns its result, or an error that fails the
// analysis with the error's text. fn may call engine.Default, the default
// engine, and adjust its result.
func WithAnalyzer(fn Analyzer) Option { return func(c *config) { c.analyzer = fn } }

// allWorkflows returns the workflows a tenant starts with: the default one,
// those of WithWorkflows and those of the seed.
func (c *config) allWorkflows() []Workflow {
	out := append([]Workflow(nil), c.workflows...)
	if c.seed != nil {
		out = append(out, c.seed.Workflows...)
	}
	return out
}
