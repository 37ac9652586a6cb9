package contract_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/internal/contract"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

// newMock starts a mock on the real clock whose analyses take a second:
// long enough for a second start to meet the first still running, short
// enough for a test. A test whose run goes past the analyses' ends, and
// is not about the real clock, uses drivenMock, which waits for nothing.
func newMock(t *testing.T, opts ...mockserver.Option) *mockserver.Server {
	t.Helper()
	return mockserver.NewTest(t, append([]mockserver.Option{mockserver.WithAnalysisDuration(time.Second)}, opts...)...)
}

// runSuite runs the suite against base with the mock's key, as the mock
// (Config.Mock) unless a change of the configuration says otherwise.
func runSuite(t *testing.T, ctx context.Context, srv *mockserver.Server, base string, short bool, emit func(contract.Result), changes ...func(*contract.Config)) (*contract.Report, error) {
	t.Helper()
	cfg := contract.Config{
		BaseURL: base, APIKey: srv.APIKey, WorkflowID: mockserver.DefaultWorkflowID, Short: short, AnalysisTimeout: time.Minute, Mock: true,
	}
	for _, change := range changes {
		change(&cfg)
	}
	return contract.Run(ctx, cfg, emit)
}

// notMock runs the suite as against a real service.
func notMock(cfg *contract.Config) { cfg.Mock = false }

// transport sends the suite's requests through rt.
func transport(rt roundTrip) func(*contract.Config) {
	return func(cfg *contract.Config) { cfg.HTTPClient = &http.Client{Transport: rt} }
}

// roundTrip is an http.RoundTripper of a function: a test's stand-in for
// the network.
type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// onNth calls fn instead of sending the nth request (from 1) that match
// selects; fn gets the request and a function sending it.
func onNth(match func(*http.Request) bool, nth int, fn func(r *http.Request, send func(*http.Request) (*http.Response, error)) (*http.Response, error)) roundTrip {
	var mu sync.Mutex
	seen := 0
	send := http.DefaultTransport.RoundTrip
	return func(r *http.Request) (*http.Response, error) {
		mu.Lock()
		if match(r) {
			seen++
		}
		hit := match(r) && seen == nth
		mu.Unlock()
		if hit {
			return fn(r, send)
		}
		return send(r)
	}
}

// isCreate selects the creates of profiles.
func isCreate(r *http.Request) bool {
	return r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/v1/workflows/")
}

// withName sends a create with its name cut to n characters: a service
// that takes a name as long as n.
func withName(r *http.Request, n int) *http.Request {
	var body map[string]any
	b, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(b, &body)
	if name, ok := body["name"].(string); ok && len(name) > n {
		body["name"] = name[:n]
	}
	b, _ = json.Marshal(body)
	r = r.Clone(r.Context())
	r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
	return r
}

// takeLongName sends a create whose name is too long as a service that
// took it would: the mock is sent the name cut to 255 characters, and its
// answer is given the whole name back.
func takeLongName(r *http.Request, send func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	var body struct{ Name string }
	b, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(b, &body)
	r.Body = io.NopCloser(bytes.NewReader(b))
	resp, err := send(withName(r, 255))
	if err != nil || len(body.Name) <= 255 {
		return resp, err
	}
	got, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	got = bytes.Replace(got, []byte(body.Name[:255]+`"`), []byte(body.Name+`"`), 1)
	resp.Body, resp.ContentLength = io.NopCloser(bytes.NewReader(got)), int64(len(got))
	resp.Header.Del("Content-Length")
	return resp, err
}

// wrap serves the service at base behind h, which answers some requests
// itself or changes them.
func wrap(t *testing.T, base string, h func(w http.ResponseWriter, r *http.Request, next http.Handler)) string {
	t.Helper()
	target, err := url.Parse(base)
	require.NoError(t, err)
	rp := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(target) }}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h(w, r, rp) }))
	t.Cleanup(ts.Close)
	return ts.URL
}

// elsewhere starts a server on another port, another origin, and counts
// the requests it gets: a redirect there must bring it none, neither key
// nor body.
func elsewhere(t *testing.T) (string, *atomic.Int32) {
	t.Helper()
	var got atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Add(1)
		w.WriteHeader(http.StatusNotFound)
	}))
	t.Cleanup(ts.Close)
	return ts.URL, &got
}

// redirect answers a request with a 307 to location.
func redirect(w http.ResponseWriter, location string) {
	w.Header().Set("Location", location)
	w.WriteHeader(http.StatusTemporaryRedirect)
}

// sent is a request as a server got it: its path escaped, its query.
type sent struct{ method, path, query string }

// renamed serves the service at base behind a proxy that gives the first
// profile made the ID fake in every answer, and gives the profile its own
// ID back in the paths it is sent, where fake is a segment, escaped: a
// service whose IDs hold what a path must not take. It returns its
// address and the requests it got, as they came.
func renamed(t *testing.T, base, fake string) (string, func() []sent) {
	t.Helper()
	var (
		mu   sync.Mutex
		real string
		got  []sent
	)
	quoted, err := json.Marshal(fake)
	require.NoError(t, err)
	addr := wrap(t, base, func(w http.ResponseWriter, r *http.Request, next http.Handler) {
		mu.Lock()
		got = append(got, sent{r.Method, r.URL.EscapedPath(), r.URL.RawQuery})
		own := real
		mu.Unlock()
		if own != "" {
			segs := strings.Split(r.URL.EscapedPath(), "/")
			for i, seg := range segs {
				if seg == url.PathEscape(fake) {
					segs[i] = own
				}
			}
			r.URL.RawPath = strings.Join(segs, "/")
			r.URL.Path, _ = url.PathUnescape(r.URL.RawPath)
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		body := rec.Body.Bytes()
		var p struct{ ID string }
		if own == "" && isCreate(r) && rec.Code == http.StatusCreated && json.Unmarshal(body, &p) == nil {
			mu.Lock()
			real, own = p.ID, p.ID
			mu.Unlock()
		}
		if own != "" {
			body = bytes.ReplaceAll(body, []byte(`"`+own+`"`), quoted)
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.Header().Del("Content-Length")
		w.WriteHeader(rec.Code)
		_, _ = w.Write(body)
	})
	return addr, func() []sent {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(got)
	}
}

// pollDriver plays the long polls on a mock whose clock is clock, in
// front of its handler: the mock holds each poll on the clock, and the
// driver advances the clock by the poll's timeout once the poll's timer
// is armed, so that the poll answers as the service would, at its timeout
// or when the analysis ends first, without waiting. It moves the clock a
// millisecond before each write (a POST, PATCH or DELETE), so that what
// the suite makes has times of its own to order by, as on a real clock.
// before, when set, runs before a poll is sent; after is how much further
// the clock moves once it is answered (a slow network).
type pollDriver struct {
	clock  *mockserver.FakeClock
	srv    *mockserver.Server
	before func(srv *mockserver.Server, analysisID string)
	after  time.Duration
}

func (d pollDriver) serve(w http.ResponseWriter, r *http.Request, next http.Handler) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		d.clock.Advance(time.Millisecond)
	}
	q := r.URL.Query()
	n, err := strconv.Atoi(q.Get("timeoutSeconds"))
	if r.Method != http.MethodGet || q.Get("waitForReport") != "true" || err != nil {
		next.ServeHTTP(w, r)
		return
	}
	if d.before != nil {
		d.before(d.srv, path.Base(r.URL.Path))
	}
	armed := d.clock.Timers()
	answered := make(chan struct{})
	rec := httptest.NewRecorder()
	go func() {
		defer close(answered)
		next.ServeHTTP(rec, r)
	}()
	ctx, cancel := context.WithCancel(r.Context())
	go func() {
		<-answered
		cancel()
	}()
	if d.clock.BlockUntil(ctx, armed+1) == nil {
		d.clock.Advance(time.Duration(n) * time.Second)
	}
	<-answered
	d.clock.Advance(d.after)
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	_, _ = w.Write(rec.Body.Bytes())
}

// drivenMock starts a mock on a fake clock, its handler served through a
// pollDriver (a server of the driver's own, with no second hop to the
// mock's), and returns it, the driver's address and the change of the
// configuration that makes the suite read time from the same clock.
func drivenMock(t *testing.T, d pollDriver) (*mockserver.Server, string, func(*contract.Config)) {
	t.Helper()
	d.clock = mockserver.NewFakeClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	srv := newMock(t, mockserver.WithClock(d.clock))
	d.srv = srv
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { d.serve(w, r, srv.Handler()) }))
	t.Cleanup(ts.Close)
	return srv, ts.URL, func(cfg *contract.Config) { cfg.Now = d.clock.Now }
}

// result returns the result of a check, failing the test when it did not
// run.
func result(t *testing.T, r *contract.Report, id string) contract.Result {
	t.Helper()
	for _, res := range r.Results {
		if res.ID == id {
			return res
		}
	}
	t.Fatalf("no result for check %s", id)
	return contract.Result{}
}

// failures lists the ids of the failed checks.
func failures(r *contract.Report) []string {
	var out []string
	for _, res := range r.Results {
		if res.Status == contract.Fail {
			out = append(out, res.ID+": "+res.Got)
		}
	}
	return out
}

// requireCleanedUp checks that the suite left nothing in the mock.
func requireCleanedUp(t *testing.T, srv *mockserver.Server, r *contract.Report) {
	t.Helper()
	require.Empty(t, srv.Profiles(), "the suite deletes what it made")
	require.False(t, r.CleanupFailed, "%v", r.Cleanup)
}

// alter is a change a proxy makes to the answers of the requests it
// matches: a method and a path pattern ("*" for one segment).
type alter struct {
	method, path string
	change       func(status int, body []byte) (int, []byte)
}

// proxy serves the service at base through a reverse proxy that changes
// some of its answers: a service that breaks a rule.
func proxy(t *testing.T, base string, alters ...alter) string {
	t.Helper()
	target, err := url.Parse(base)
	require.NoError(t, err)
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(target) },
		ModifyResponse: func(resp *http.Response) error {
			for _, a := range alters {
				if ok, _ := path.Match(a.path, resp.Request.URL.EscapedPath()); !ok || a.method != resp.Request.Method {
					continue
				}
				body, err := io.ReadAll(resp.Body)
				if err != nil {
					return err
				}
				_ = resp.Body.Close()
				status, changed := a.change(resp.StatusCode, body)
				resp.StatusCode, resp.Status = status, strconv.Itoa(status)+" "+http.StatusText(status)
				resp.Body = io.NopCloser(bytes.NewReader(changed))
				resp.ContentLength = int64(len(changed))
				resp.Header.Set("Content-Length", strconv.Itoa(len(changed)))
			}
			return nil
		},
	}
	ts := httptest.NewServer(rp)
	t.Cleanup(ts.Close)
	return ts.URL
}

// reverseItems reverses the items of a page.
func reverseItems(body []byte) []byte {
	var page map[string]any
	if json.Unmarshal(body, &page) != nil {
		return body
	}
	items, _ := page["items"].([]any)
	slices.Reverse(items)
	b, _ := json.Marshal(page)
	return b
}

func TestTheMockPasses(t *testing.T) {
	t.Parallel()
	srv := newMock(t)
	var emitted []string
	r, err := runSuite(t, t.Context(), srv, srv.URL+"/v1/", true, func(res contract.Result) { emitted = append(emitted, res.ID) })
	require.NoError(t, err)
	require.Empty(t, failures(r))
	require.True(t, r.Mock)
	require.Equal(t, 3, r.Skipped, "the long checks alone are skipped with -short")
	for _, id := range []string{"limits.analyses-retained", "longpoll.holds", "assume.client-metadata"} {
		require.Equal(t, contract.Skip, result(t, r, id).Status, id)
	}
	require.Len(t, emitted, len(r.Results), "every result is emitted as it comes")
	require.Greater(t, r.Passed, 60)
	kinds := map[contract.Kind]int{}
	for _, res := range r.Results {
		kinds[res.Kind]++
		require.NotEmpty(t, res.Section, res.ID)
		require.NotEmpty(t, res.What, res.ID)
		require.Equal(t, strings.HasPrefix(res.ID, "assume."), res.Kind == contract.Assumption, res.ID)
	}
	require.Greater(t, kinds[contract.Rule], 30)
	require.Greater(t, kinds[contract.Assumption], 20)
	requireCleanedUp(t, srv, r)
}

// TestTheMockPassesTheLongChecks runs every check against a mock on a
// fake clock whose long polls a pollDriver plays: the hold of a poll to
// its timeout is measured on that clock.
func TestTheMockPassesTheLongChecks(t *testing.T) {
	t.Parallel()
	srv, base, clock := drivenMock(t, pollDriver{})
	var cfg contract.Config
	r, err := runSuite(t, t.Context(), srv, base, false, nil, clock, func(c *contract.Config) { cfg = *c })
	require.NoError(t, err)
	require.Empty(t, failures(r))
	require.Zero(t, r.Skipped)
	require.Equal(t, contract.Planned(cfg), r.Created, "the plan says what the run makes")
	requireCleanedUp(t, srv, r)
}

// TestLongPolls runs the suite against a mock whose long polls break the
// rules of their timeout: each breach is a failure.
func TestLongPolls(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		driver pollDriver
		short  bool
		check  string
		got    string
	}{
		{"the analysis ends before the poll's timeout although its document says 15 s",
			pollDriver{before: func(srv *mockserver.Server, id string) { _ = srv.CompleteAnalysis(id) }}, false, "longpoll.holds", "status completed"},
		{"the poll answers long after its timeout", pollDriver{after: 40 * time.Second}, false, "longpoll.holds", "an answer after 50s"},
		{"a poll on an ended analysis is held", pollDriver{after: 10 * time.Second}, true, "limits.long-poll-bounds", "an answer after 10s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, base, clock := drivenMock(t, tt.driver)
			r, err := runSuite(t, t.Context(), srv, base, tt.short, nil, clock)
			require.NoError(t, err)
			res := result(t, r, tt.check)
			require.Equal(t, contract.Fail, res.Status, "%+v", res)
			require.Contains(t, res.Got, tt.got)
			requireCleanedUp(t, srv, r)
		})
	}
}

// TestAPollThatEndsAtOnce runs the suite against a service that does not
// hold a long poll of timeoutSeconds=10: it answers at once, the analysis
// still running.
func TestAPollThatEndsAtOnce(t *testing.T) {
	t.Parallel()
	srv, driven, clock := drivenMock(t, pollDriver{})
	base := wrap(t, driven, func(w http.ResponseWriter, r *http.Request, next http.Handler) {
		if q := r.URL.Query(); q.Get("timeoutSeconds") == "10" {
			q.Del("waitForReport")
			q.Del("timeoutSeconds")
			r.URL.RawQuery = q.Encode()
		}
		next.ServeHTTP(w, r)
	})
	r, err := runSuite(t, t.Context(), srv, base, false, nil, clock)
	require.NoError(t, err)
	res := result(t, r, "longpoll.holds")
	require.Equal(t, contract.Fail, res.Status, "%+v", res)
	require.Contains(t, res.Got, "an answer after 0s")
	requireCleanedUp(t, srv, r)
}

// TestFaults runs the suite against a mock whose answers a proxy or an
// injected fault has broken, and checks that the suite says so, with what
// was expected and what came. The faults share three runs, each fault
// with its own endpoint and its own check: a fault of a run breaks no
// other fault's check, nor what that check needs (the two that answer a
// start with a false analysis, whose waits then fail, have a run each,
// with faults whose checks come first or need no analysis), so that each
// case fails when its fault is taken out of its run, and only that case.
func TestFaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		run    string // the run the fault shares
		alters []alter
		fault  *mockserver.Fault
		check  string
		got    string   // in the failure's Got
		passes []string // checks that pass all the same
	}{
		{
			name: "a wrong status", run: "analyses in progress",
			alters: []alter{{"DELETE", "/v1/folders/*", func(status int, body []byte) (int, []byte) {
				if status == http.StatusNoContent {
					return http.StatusOK, nil
				}
				return status, body
			}}},
			check: "endpoints.delete-folder", got: "200",
		},
		{
			name: "a missing field", run: "analyses in progress",
			alters: []alter{{"PATCH", "/v1/profiles/*", func(status int, body []byte) (int, []byte) {
				return status, bytes.Replace(body, []byte(`"lastAnalysisAt":null,`), nil, 1)
			}}},
			check: "endpoints.update-profile", got: "answer body /lastAnalysisAt",
		},
		{
			name: "a field the document does not have", run: "items of another profile",
			alters: []alter{{"GET", "/v1/folders/*", func(status int, body []byte) (int, []byte) {
				return status, bytes.Replace(body, []byte(`{"id"`), []byte(`{"owner":"someone","id"`), 1)
			}}},
			check: "assume.documented-fields", got: "getFolder: answer body /owner",
			// A field more breaks no rule: only the assumption fails.
			passes: []string{"endpoints.get-folder"},
		},
		{
			name: "the rule of one running analysis broken", run: "analyses in progress",
			alters: []alter{{"POST", "/v1/analyses/*/analyze", func(status int, body []byte) (int, []byte) {
				if status == http.StatusConflict {
					return http.StatusAccepted, []byte(`{"id":"analysis_second"}`)
				}
				return status, body
			}}},
			check: "states.analysis-in-progress", got: "202",
		},
		{
			name: "the code of another call", run: "items of another profile",
			alters: []alter{{"GET", "/v1/profiles/*/folders", func(status int, body []byte) (int, []byte) {
				return status, bytes.Replace(body, []byte("SVC_3005"), []byte("PROFILE_NOT_FOUND"), 1)
			}}},
			check: "errors.svc-3005", got: "404 PROFILE_NOT_FOUND",
		},
		{
			name: "an injected fault", run: "reports",
			fault: &mockserver.Fault{Method: "GET", Path: "/v1/analyses/*/report", Status: http.StatusServiceUnavailable, Times: 1},
			check: "errors.report-not-available", got: "503 SERVICE_UNAVAILABLE",
		},
		{
			name: "an inferred endpoint that is not there", run: "reports",
			alters: []alter{{"GET", "/v1/profiles/*/analyses", func(int, []byte) (int, []byte) {
				return http.StatusNotFound, []byte(`{"error":{"code":"NOT_FOUND","status":404,"message":"no route"}}`)
			}}},
			check: "assume.list-analyses", got: "404 NOT_FOUND",
		},
		{
			name: "the folders oldest first by default", run: "reports",
			alters: []alter{{"GET", "/v1/profiles/*/folders", func(status int, body []byte) (int, []byte) {
				if !bytes.Contains(body, []byte(`"isDefault":true`)) && bytes.Contains(body, []byte(`"nextCursor":"`)) {
					return status, reverseItems(body)
				}
				return status, body
			}}},
			check: "endpoints.list-folders-default-order", got: "folder 01",
		},
		{
			name: "a 255-character name refused", run: "items of another profile",
			alters: []alter{{"PATCH", "/v1/profiles/*", func(status int, body []byte) (int, []byte) {
				if bytes.Contains(body, []byte(strings.Repeat("n", 200))) {
					return http.StatusBadRequest, []byte(`{"error":{"code":"VALIDATION_ERROR","status":400,"message":"name too long"}}`)
				}
				return status, body
			}}},
			check: "limits.profile-name-max", got: "400 VALIDATION_ERROR",
		},
		{
			name: "an item of another profile taken", run: "items of another profile",
			alters: []alter{{"POST", "/v1/analyses/*/analyze", func(status int, body []byte) (int, []byte) {
				if bytes.Contains(body, []byte("INVALID_ITEM_IDS")) {
					return http.StatusAccepted, []byte(`{"id":"analysis_other"}`)
				}
				return status, body
			}}},
			check: "errors.invalid-item-ids-other-profile", got: "202",
		},
		{
			name: "the report of a failed analysis given", run: "reports",
			alters: []alter{{"GET", "/v1/analyses/*/report", func(status int, body []byte) (int, []byte) {
				if status == http.StatusBadRequest {
					return http.StatusOK, []byte("%PDF-1.4")
				}
				return status, body
			}}},
			check: "errors.report-not-available-failed", got: "200",
		},
	}
	runs := map[string][]int{}
	var order []string
	for i, tt := range tests {
		if runs[tt.run] == nil {
			order = append(order, tt.run)
		}
		runs[tt.run] = append(runs[tt.run], i)
	}
	for _, name := range order {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv, base, clock := drivenMock(t, pollDriver{})
			var alters []alter
			for _, i := range runs[name] {
				if f := tests[i].fault; f != nil {
					_, err := srv.InjectFault(*f)
					require.NoError(t, err)
				}
				alters = append(alters, tests[i].alters...)
			}
			r, err := runSuite(t, t.Context(), srv, proxy(t, base, alters...), true, nil, clock)
			require.NoError(t, err)
			requireCleanedUp(t, srv, r)
			require.Positive(t, r.Failed)
			for _, i := range runs[name] {
				tt := tests[i]
				t.Run(tt.name, func(t *testing.T) {
					res := result(t, r, tt.check)
					require.Equal(t, contract.Fail, res.Status, "%+v", res)
					require.Contains(t, res.Got, tt.got)
					require.NotEmpty(t, res.Expected)
					for _, id := range tt.passes {
						require.Equal(t, contract.Pass, result(t, r, id).Status, id)
					}
				})
			}
		})
	}
}

func TestCannotRun(t *testing.T) {
	t.Parallel()
	srv := newMock(t)
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	tests := []struct {
		name string
		cfg  contract.Config
		want string
	}{
		{"a wrong key", contract.Config{BaseURL: srv.URL, APIKey: "wrong", WorkflowID: "wf_default"}, "refused the API key"},
		{"no connection", contract.Config{BaseURL: closed.URL, APIKey: srv.APIKey, WorkflowID: "wf_default"}, "no connection"},
		{"an unknown workflow", contract.Config{BaseURL: srv.URL, APIKey: srv.APIKey, WorkflowID: "wf_nope"}, "workflow wf_nope"},
		{"no key", contract.Config{BaseURL: srv.URL, WorkflowID: "wf_default"}, "no API key"},
		{"no workflow", contract.Config{BaseURL: srv.URL, APIKey: srv.APIKey}, "no workflow"},
		{"a bad address", contract.Config{BaseURL: "ftp://host", APIKey: srv.APIKey, WorkflowID: "wf_default"}, "http:// or https://"},
		{"a workflow that cannot be a path segment", contract.Config{BaseURL: srv.URL, APIKey: srv.APIKey, WorkflowID: ".."}, `workflowId ".." cannot be used in a path`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := contract.Run(t.Context(), tt.cfg, nil)
			require.ErrorIs(t, err, contract.ErrCannotRun)
			require.ErrorContains(t, err, tt.want)
			if r != nil {
				require.Empty(t, r.Results)
			}
		})
	}
	require.Empty(t, srv.Profiles())
}

// TestInterruptedRunCleansUp cancels the run once the suite has made its
// folders: the profile is deleted all the same.
func TestInterruptedRunCleansUp(t *testing.T) {
	t.Parallel()
	srv := newMock(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	r, err := runSuite(t, ctx, srv, srv.URL, true, func(res contract.Result) {
		if res.ID == "assume.create-folder" {
			require.Len(t, srv.Profiles(), 1, "the profile is there when the run is cut")
			cancel()
		}
	})
	require.ErrorIs(t, err, contract.ErrInterrupted)
	require.Equal(t, "assume.create-folder", r.Results[len(r.Results)-1].ID, "no check runs after the interruption")
	requireCleanedUp(t, srv, r)
	require.Len(t, r.Cleanup, 1)
	require.Contains(t, r.Cleanup[0], "deleted")
}

// TestTouchesNothingElse runs the suite, not told that the service is the
// mock, behind a gateway that answers 200 to every HEAD, beside a profile
// that is not the suite's: the suite never lists profiles, never reaches
// the other profile, never uses the control API, and skips what only the
// mock can do.
func TestTouchesNothingElse(t *testing.T) {
	t.Parallel()
	srv, driven, clock := drivenMock(t, pollDriver{})
	other, err := srv.CreateProfile(mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Someone else"})
	require.NoError(t, err)
	item, err := srv.AddTextItem(other.Folders[0].ID, "Their document", "PASSPORT")
	require.NoError(t, err)
	gateway := wrap(t, driven, func(w http.ResponseWriter, r *http.Request, next http.Handler) {
		if r.Method == http.MethodHead {
			w.WriteHeader(http.StatusOK)
			return
		}
		next.ServeHTTP(w, r)
	})

	r, err := runSuite(t, t.Context(), srv, gateway, true, nil, notMock, clock)
	require.NoError(t, err)
	require.Empty(t, failures(r))
	require.False(t, r.Mock)
	require.Equal(t, contract.Skip, result(t, r, "assume.list-profiles").Status)
	require.Equal(t, contract.Skip, result(t, r, "states.inactive-item").Status)
	require.Equal(t, contract.Skip, result(t, r, "assume.inactive-item").Status)
	require.Equal(t, contract.Skip, result(t, r, "errors.report-not-available-failed").Status)
	for _, req := range srv.Requests() {
		require.False(t, req.Method == "GET" && strings.HasPrefix(req.Path, "/v1/workflows/"), "listed profiles: %s %s", req.Method, req.Path)
		for _, id := range []string{other.ID, other.Folders[0].ID, item.ID} {
			require.NotContains(t, req.Path, id, "reached what is not the suite's")
		}
		require.False(t, strings.HasPrefix(req.Path, "/_mock/"), "used the control API: %s", req.Path)
	}
	got, ok := srv.Profile(other.ID)
	require.True(t, ok)
	require.Equal(t, "Someone else", got.Name)
	require.Len(t, srv.Profiles(), 1, "only the other profile is left")
}

func TestPlan(t *testing.T) {
	t.Parallel()
	plan := contract.Plan(contract.Config{WorkflowID: "wf_kyc", Name: "profilesvc-contract X"})
	require.Contains(t, plan, `"profilesvc-contract X"`)
	require.Contains(t, plan, `"profilesvc-contract X second"`)
	require.Contains(t, plan, "wf_kyc")
	require.Contains(t, plan, "up to 12 folders, 7 items and 7 analyses")
	require.Contains(t, plan, "deletes the profiles at the end")
	require.Contains(t, contract.Plan(contract.Config{WorkflowID: "wf_kyc", Mock: true}), "up to 12 folders, 8 items and 7 analyses")
}

// TestInterruptedCreate interrupts the run, or loses the answer, while a
// create of a profile is under way, after the service has made the
// profile: the profile is deleted all the same, or the report says that it
// may exist.
func TestInterruptedCreate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		nth  int // of the creates
		lose bool
		// left is whether the profile is left, the report saying so.
		left bool
	}{
		{"Ctrl-C before the answer of the profile's create", 1, false, false},
		{"Ctrl-C before the answer of the 256-character create, which the service takes", 2, false, false},
		{"no answer to the profile's create", 1, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newMock(t)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			rt := onNth(isCreate, tt.nth, func(r *http.Request, send func(*http.Request) (*http.Response, error)) (*http.Response, error) {
				resp, err := takeLongName(r, send)
				cancel()
				if tt.lose {
					return nil, errors.New("connection reset by peer")
				}
				if r.Context().Err() != nil { // an answer after the cancel is lost
					return nil, r.Context().Err()
				}
				return resp, err
			})
			r, err := runSuite(t, ctx, srv, srv.URL, true, nil, transport(rt))
			require.NotNil(t, r)
			if !tt.left {
				require.ErrorIs(t, err, contract.ErrInterrupted)
				requireCleanedUp(t, srv, r)
				return
			}
			require.ErrorIs(t, err, contract.ErrCannotRun)
			require.ErrorContains(t, err, "may exist: delete it yourself")
			require.True(t, r.CleanupFailed)
			require.Contains(t, strings.Join(r.Cleanup, "\n"), `a profile named "`+r.ProfileName+`" may exist`)
			require.Len(t, srv.Profiles(), 1)
		})
	}
}

// TestPanic runs the suite with a transport that panics on one request: in
// a check, the panic is the check's failure and the run goes on; outside
// one, Run panics, but only after the cleanup.
func TestPanic(t *testing.T) {
	t.Parallel()
	boom := func(*http.Request, func(*http.Request) (*http.Response, error)) (*http.Response, error) {
		panic("boom")
	}
	t.Run("in a check", func(t *testing.T) {
		t.Parallel()
		srv, base, clock := drivenMock(t, pollDriver{})
		rt := onNth(func(r *http.Request) bool {
			return r.Method == http.MethodPatch && strings.HasPrefix(r.URL.Path, "/v1/folders/")
		}, 1, boom)
		r, err := runSuite(t, t.Context(), srv, base, true, nil, transport(rt), clock)
		require.NoError(t, err)
		res := result(t, r, "errors.cannot-modify-default-folder")
		require.Equal(t, contract.Fail, res.Status)
		require.Contains(t, res.Got, "panic: boom")
		require.Equal(t, contract.Pass, result(t, r, "endpoints.delete-profile").Status, "the run goes on")
		requireCleanedUp(t, srv, r)
	})
	t.Run("outside a check", func(t *testing.T) {
		t.Parallel()
		srv := newMock(t)
		rt := onNth(isCreate, 2, boom)
		require.PanicsWithValue(t, "boom", func() { _, _ = runSuite(t, t.Context(), srv, srv.URL, true, nil, transport(rt)) })
		require.Empty(t, srv.Profiles(), "the cleanup ran")
	})
}

// TestCreateAnswers runs the suite against services whose answers to the
// creates of profiles break the rules.
func TestCreateAnswers(t *testing.T) {
	t.Parallel()
	t.Run("the answer describes another profile", func(t *testing.T) {
		t.Parallel()
		srv := newMock(t)
		base := proxy(t, srv.URL, alter{"POST", "/v1/workflows/*/profiles", func(status int, body []byte) (int, []byte) {
			return status, bytes.Replace(body, []byte(`"name":"profilesvc-contract`), []byte(`"name":"Someone else`), 1)
		}})
		r, err := runSuite(t, t.Context(), srv, base, true, nil)
		require.ErrorIs(t, err, contract.ErrCannotRun)
		require.ErrorContains(t, err, "describes another profile")
		res := result(t, r, "endpoints.create-profile")
		require.Equal(t, contract.Fail, res.Status)
		require.Contains(t, res.Got, "name Someone else")
		require.Len(t, r.Results, 1)
		require.Empty(t, srv.RequestsMatching(mockserver.RequestMatch{Method: "DELETE"}), "nothing of another's is deleted")
		require.Empty(t, r.ProfileID)
		require.True(t, r.CleanupFailed)
	})
	t.Run("a 256-character name is taken", func(t *testing.T) {
		t.Parallel()
		srv, base, clock := drivenMock(t, pollDriver{})
		rt := onNth(isCreate, 2, takeLongName)
		r, err := runSuite(t, t.Context(), srv, base, true, nil, transport(rt), clock)
		require.NoError(t, err)
		require.Equal(t, contract.Fail, result(t, r, "limits.profile-name-length").Status)
		for _, req := range srv.RequestsMatching(mockserver.RequestMatch{Method: "POST", Path: "/v1/workflows/wf_default/profiles"}) {
			var body struct{ Name string }
			require.NoError(t, req.DecodeJSON(&body))
			require.True(t, strings.HasPrefix(body.Name, r.ProfileName), "a name a person recognises: %s", body.Name)
		}
		requireCleanedUp(t, srv, r)
	})
}

// TestCleanupTrustsNoDelete runs the suite against a service that answers
// 204 to the delete of a profile without deleting it: the cleanup's
// second DELETE shows it.
func TestCleanupTrustsNoDelete(t *testing.T) {
	t.Parallel()
	srv, driven, clock := drivenMock(t, pollDriver{})
	base := wrap(t, driven, func(w http.ResponseWriter, r *http.Request, next http.Handler) {
		if r.Method == http.MethodDelete && strings.HasPrefix(r.URL.Path, "/v1/profiles/") {
			w.Header().Set("X-Request-Id", "req_00000000000000000000")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next.ServeHTTP(w, r)
	})
	r, err := runSuite(t, t.Context(), srv, base, true, nil, clock)
	require.NoError(t, err)
	require.Equal(t, contract.Pass, result(t, r, "endpoints.delete-profile").Status)
	require.True(t, r.CleanupFailed)
	require.Contains(t, strings.Join(r.Cleanup, "\n"), "profile "+r.ProfileID+": STILL THERE")
	require.Contains(t, r.Error, "the cleanup failed")
}
