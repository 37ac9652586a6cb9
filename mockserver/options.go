package mockserver

import (
	"crypto/tls"
	"fmt"
	"log/slog"
	"strings"
	"time"
)

// Option configures a Server.
type Option func(*config)

type config struct {
	apiKey            string
	analysisDuration  time.Duration
	manual            bool
	clock             Clock
	idSeed            *uint64
	faultSeed         *uint64
	workflows         []Workflow
	seed              *Seed
	multiTenant       bool
	maxTenants        int
	readHeaderTimeout time.Duration
	maxJSONBody       int64
	maxUpload         int64
	uploadMemory      int64
	recordSize        int
	recordBytes       int64
	logger            *slog.Logger
	analyzer          Analyzer
	// replayPath and replayStrict: WithReplayFile, WithReplayStrict.
	replayPath   string
	replayStrict bool
	tls          bool
	tlsCert      *tls.Certificate
	corsOrigins  []string
	reportDelay  time.Duration
	stateFile    string
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
	// DefaultReadHeaderTimeout is how long a connection may take to send
	// a request's headers before the server closes it.
	DefaultReadHeaderTimeout = 10 * time.Second
)

func defaultConfig() config {
	return config{
		analysisDuration:  DefaultAnalysisDuration,
		clock:             realClock{},
		workflows:         []Workflow{DefaultWorkflow()},
		maxTenants:        DefaultMaxTenants,
		readHeaderTimeout: DefaultReadHeaderTimeout,
		maxJSONBody:       DefaultMaxJSONBody,
		maxUpload:         DefaultMaxUploadSize,
		uploadMemory:      DefaultUploadMemory,
		recordSize:        DefaultRecordSize,
		recordBytes:       DefaultRecordBytes,
	}
}

// maxRunDuration is the longest an analysis runs, or waits for its
// report: what a state file can hold.
const maxRunDuration = 365 * 24 * time.Hour

func (c *config) validate() error {
	switch {
	case c.analysisDuration < 0:
		return fmt.Errorf("analysis duration %v is negative", c.analysisDuration)
	case c.replayStrict && c.replayPath == "":
		return fmt.Errorf("WithReplayStrict needs WithReplayFile (-replay-strict needs -replay FILE)")
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
	case c.readHeaderTimeout <= 0:
		return fmt.Errorf("read header timeout %v must be positive", c.readHeaderTimeout)
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

// WithReadHeaderTimeout sets how long a connection may take to send a
// request's headers before the server closes it, so that a client that
// trickles its headers holds no connection for ever (default 10s).
func WithReadHeaderTimeout(d time.Duration) Option {
	return func(c *config) { c.readHeaderTimeout = d }
}

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

// WithCORS lets browser code from the given origins call the server:
// preflight OPTIONS requests are answered, and answers carry the CORS
// headers, exposing Content-Disposition, Retry-After and X-Request-Id. "*"
// allows any origin. Off by default.
//
// Each origin is scheme://host, with a port unless it is the scheme's
// default; spaces around it are ignored, and so is the case of its
// scheme and host, as browsers send them in lower case. An origin of
// another form fails the server's start.
func WithCORS(origins ...string) Option {
	return func(c *config) {
		for _, o := range origins {
			c.corsOrigins = append(c.corsOrigins, strings.TrimSpace(o))
		}
	}
}

// WithStateFile keeps the server's state in a file, as the binary's -state
// does. At start, the server checks that the file can be written (its
// directory exists and takes a file) and loads it when it exists: a file
// that does not hold together (see Server.Restore), is larger than
// MaxStateFileSize or is not a snapshot fails the start, and is left as it
// was. The state is written at shutdown and on POST /_mock/snapshot, one
// write at a time, so that the file always holds at least the newest
// state acknowledged: whole, to a temporary file beside it
// (".NAME.part", the same each time, so that a crash leaves no more than
// one, which the next start removes), synced to disk, then renamed over
// it. When path is a symbolic link, the file it points to is written.
func WithStateFile(path string) Option {
	return func(c *config) { c.stateFile = path }
}

// WithTLS serves HTTPS, with a certificate for 127.0.0.1, ::1 and
// localhost made at start, as httptest.NewTLSServer does: Client trusts
// it, and Certificate returns it for other clients.
func WithTLS() Option {
	return func(c *config) { c.tls = true }
}

// WithTLSCertificate serves HTTPS with the given certificate and key, as
// the binary's -tls-cert and -tls-key do.
func WithTLSCertificate(cert tls.Certificate) Option {
	return func(c *config) { c.tls, c.tlsCert = true, &cert }
}

// WithOpenAPICheck holds every exchange of the service's routes to the
// service's OpenAPI document, api/openapi.yaml: each request the server
// is sent and the answer it gives. A disagreement is passed to report,
// naming the operation and the field ("getFolder (GET /v1/folders/fld_1):
// answer body /items/0/sizeBytes: value must be an integer"); it is a
// bug of the mock, or of a WithAnalyzer whose result the service could
// not give. A request the document refuses passes when the mock refused
// it too, with a status the operation declares. Not checked: the control
// API and the storage URLs, which the document does not describe, the
// answers of injected faults, which are the test's own, and those of CORS
// preflights (WithCORS), which are the browser's business, not the
// service's.
//
// NewTest turns it on, failing its test on a disagreement; WithOpenAPICheck(nil)
// turns it off. It costs a validation of each exchange, and a copy of its
// bodies.
func WithOpenAPICheck(report func(error)) Option {
	return func(c *config) { c.openapiReport = report }
}

// allWorkflows returns the workflows a tenant starts with: the default one,
// those of WithWorkflows and those of the seed.
func (c *config) allWorkflows() []Workflow {
	out := append([]Workflow(nil), c.workflows...)
	if c.seed != nil {
		out = append(out, c.seed.Workflows...)
	}
	return out
}

// WithReplayFile makes the server end analyses as a recording of the real
// service (an HTTP Archive made by a proxy with WithProxyRecording, the
// binary's -record) shows them ending: an analysis over items whose
// contents are those of a recorded analysis's items (by the SHA-256 of
// each item's content, the same set) completes or fails as that one did,
// with its results, the recorded IDs replaced by the server's own; any
// other runs on the server's analyzer (WithAnalyzer, else the default
// engine), or fails with WithReplayStrict. Items the recording holds no
// digest of (uploaded before it began) match by type and name. A
// recording that cannot be read is refused at start, naming the entry and
// the field; one with no analysis is accepted, with a warning. The
// binary's -replay FILE.
func WithReplayFile(path string) Option { return func(c *config) { c.replayPath = path } }

// WithReplayStrict makes an analysis that no recorded analysis matches
// fail, with an error naming the digests of its documents, rather than run
// on the engine. It needs WithReplayFile. The binary's -replay-strict.
func WithReplayStrict() Option { return func(c *config) { c.replayStrict = true } }
