// Package mockserver is a complete, stateful, in-memory implementation of
// the Profile Document Analysis Service, for tests: it speaks the service's
// HTTP API on a loopback port, so the code under test runs unmodified, and
// it adds a Go API and an HTTP control API to arrange state, drive time,
// inject faults and see what clients sent.
//
// # Starting one
//
// In the spirit of net/http/httptest, three lines:
//
//	srv := mockserver.NewTest(t)   // closed when the test ends
//	client := srv.Client()         // an SDK client pointed at it
//	// ... or any HTTP client with srv.URL and srv.APIKey
//
// New starts one that the caller closes; Start listens on a given address
// (as the profilesvc-mock binary does); NewHandler gives an http.Handler to
// serve by other means. Options configure everything in one place: the API
// key, the analysis duration, a manual mode, a fake clock, deterministic
// IDs, extra workflows, a seed, multi-tenancy, body limits and a custom
// analysis engine.
//
// # Behaviour
//
// Every rule of the interface document is followed: the default folder of
// each profile, the error codes of each endpoint (SVC_3005 and SVC_3009
// where the document says so), one running analysis per profile, five
// analyses kept per profile, reports only of completed analyses, long
// polling that wakes on the change itself. Where the document is silent,
// the mock is strict, so that a client bug shows up in tests rather than in
// production: unknown or misspelt fields, wrong types, bad query values,
// forged cursors and oversize bodies are refused with a 4xx answer whose
// message names the problem, and never with a 5xx. Every error has the body
// {"error": {"code", "status", "message"}}. Every answer, of the API or of
// the control API, success or error, carries a request ID of its own in
// its X-Request-Id header ("req_" and 20 characters), which the SDK
// reports as APIError.RequestID.
//
// # The test kit
//
// The Server embeds the *Tenant of its own API key; its methods arrange and
// inspect state without HTTP, every listing oldest first, every error
// matching the SDK's sentinels with errors.Is:
//
//   - Seeding: AddWorkflow, CreateProfile, CreateFolder, AddItem,
//     AddTextItem, AddFileItem, LoadSeed.
//   - Inspection: Profile, Profiles, Folder, Item, ItemBytes, ItemText,
//     Analysis, Analyses, Workflows.
//   - Waiting for events, never sleeping: AwaitRequest (the first recorded
//     request a RequestMatch selects, waiting for it if it has not come),
//     AwaitAnalysis (a profile's newest analysis, once it has one), and a
//     FakeClock's BlockUntil and Timers (see Time).
//   - Time: StartProcessing, CompleteAnalysis and FailAnalysis (with
//     WithManualAnalyses, analyses wait for them), or a FakeClock.
//   - State: SetItemStatus, SetVerificationStatus.
//   - Faults: InjectFault with a Fault (a status with Retry-After, a Delay,
//     a Drop of the connection, a Truncate of the body, a body trickled at
//     BytesPerSecond; for the next Times matching requests or a
//     Probability of them); RemoveFault, ClearFaults, Faults.
//   - Requests: Requests (what the server received, with the API key
//     redacted, each under the request ID its answer carried),
//     RequestsDropped, ClearRequests.
//   - Matching requests: a RequestMatch selects recorded requests by
//     method, path pattern, query and status; RequestsMatching returns
//     those it selects, and ExpectRequests fails a test unless exactly n
//     do, listing the near misses (the requests that differ in exactly
//     one of the match's fields, and which).
//   - Snapshots: Server.Snapshot and Server.Restore, and WithStateFile to
//     keep the state in a file.
//   - Reset empties everything but the configured workflows; after it, as
//     after ClearRequests, requests still under way, such as held long
//     polls, stay out of the record.
//   - With WithMultiTenant, every well-formed UUID key has a tenant of its
//     own (Server.TenantOf), so parallel suites can share one server.
//   - HTTPS: WithTLS, Server.Certificate, Server.HTTPClient.
//   - Browsers: WithCORS.
//
// The same controls are served over HTTP under /_mock/ for clients in
// other languages.
//
// # Path patterns
//
// Fault.Path and RequestMatch.Path select requests by path with one rule,
// that of a route: "*" matches any one segment ("/v1/analyses/*/report"),
// any other segment the path's segment written the same way, unescaped or
// escaped (an ID "pf/x" matches the segment "pf%2Fx"); a segment holding
// path.Match's wildcards among other characters ("analysis_*") matches as
// path.Match does, within the segment.
//
// # Clients in tests
//
// The SDK clients that Server.Client hands out for a server made by
// NewTest wait TestRetryWait (a few milliseconds) before their first retry,
// doubling after, so that a test injecting 503s does not spend seconds in
// backoff; profilesvc.WithRetryWait given to Client overrides it. A
// Retry-After the mock sends is waited for in full.
//
// # Time
//
// With WithClock(NewFakeClock(start)), time moves only when the test moves
// it. FakeClock.BlockUntil waits until the server has armed the timers it
// will fire (an analysis's run, a long poll's timeout), and Advance fires
// them, so a test waits for events rather than for a fixed time:
//
//	clock := mockserver.NewFakeClock(start)
//	srv := mockserver.NewTest(t, mockserver.WithClock(clock), mockserver.WithAnalysisDuration(3*time.Second))
//	// ... start the analysis
//	if err := clock.BlockUntil(ctx, 1); err != nil {
//		t.Fatal(err)
//	}
//	clock.Advance(3 * time.Second) // the analysis completes
//
// # Analyses
//
// The default engine is a deterministic simulation: it reads the target
// items' text, extracts the workflow schema's fields, compares them across
// documents, validates each document, runs the workflow's policy action by
// action and grades the risk, leaving a consistent trace in every part of
// the analysis (findings, audit log, history, raw results, citations of the
// passages it read). Values in a document script outcomes: mock:fail=<msg>,
// mock:risk=low|medium|high, mock:duration=<d>, mock:stuck and
// mock:report-delay=<d>. The engine is a package of
// its own, mockserver/engine, whose types AnalysisInput, InputItem,
// AnalysisResult and Workflow stand for. WithAnalyzer replaces it, with an
// analyzer that may call engine.Default, the simulation, and adjust its
// result. Reports are real PDF documents, in English or Korean, rendered
// once per variant and cached with the analysis.
package mockserver
