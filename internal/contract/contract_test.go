package contract_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/internal/contract"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

// newMock starts a mock whose analyses take a second: long enough for a
// second start to meet the first still running, short enough for a test.
func newMock(t *testing.T, opts ...mockserver.Option) *mockserver.Server {
	t.Helper()
	return mockserver.NewTest(t, append([]mockserver.Option{mockserver.WithAnalysisDuration(time.Second)}, opts...)...)
}

// runSuite runs the suite against base with the mock's key.
func runSuite(t *testing.T, ctx context.Context, srv *mockserver.Server, base string, short bool, emit func(contract.Result)) (*contract.Report, error) {
	t.Helper()
	return contract.Run(ctx, contract.Config{
		BaseURL: base, APIKey: srv.APIKey, WorkflowID: mockserver.DefaultWorkflowID, Short: short, AnalysisTimeout: time.Minute,
	}, emit)
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

// proxy serves the mock through a reverse proxy that changes some of its
// answers: a service that breaks a rule.
func proxy(t *testing.T, srv *mockserver.Server, alters ...alter) string {
	t.Helper()
	target, err := url.Parse(srv.URL)
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

func TestTheMockPasses(t *testing.T) {
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

func TestTheMockPassesTheLongChecks(t *testing.T) {
	if testing.Short() {
		t.Skip("holds a long poll for its 10 seconds")
	}
	srv := newMock(t)
	r, err := runSuite(t, t.Context(), srv, srv.URL, false, nil)
	require.NoError(t, err)
	require.Empty(t, failures(r))
	require.Zero(t, r.Skipped)
	requireCleanedUp(t, srv, r)
}

// TestFaults runs the suite against a mock whose answers a proxy or an
// injected fault has broken, and checks that the suite says so, with what
// was expected and what came.
func TestFaults(t *testing.T) {
	tests := []struct {
		name   string
		alters []alter
		fault  *mockserver.Fault
		check  string
		got    string // in the failure's Got
	}{
		{
			name: "a wrong status",
			alters: []alter{{"DELETE", "/v1/folders/*", func(status int, body []byte) (int, []byte) {
				if status == http.StatusNoContent {
					return http.StatusOK, nil
				}
				return status, body
			}}},
			check: "endpoints.delete-folder", got: "200",
		},
		{
			name: "a missing field",
			alters: []alter{{"PATCH", "/v1/profiles/*", func(status int, body []byte) (int, []byte) {
				return status, bytes.Replace(body, []byte(`"lastAnalysisAt":null,`), nil, 1)
			}}},
			check: "endpoints.update-profile", got: "answer body /lastAnalysisAt",
		},
		{
			name: "a field the document does not have",
			alters: []alter{{"GET", "/v1/folders/*", func(status int, body []byte) (int, []byte) {
				return status, bytes.Replace(body, []byte(`{"id"`), []byte(`{"owner":"someone","id"`), 1)
			}}},
			check: "endpoints.get-folder", got: "answer body /owner",
		},
		{
			name: "the rule of one running analysis broken",
			alters: []alter{{"POST", "/v1/analyses/*/analyze", func(status int, body []byte) (int, []byte) {
				if status == http.StatusConflict {
					return http.StatusAccepted, []byte(`{"id":"analysis_second"}`)
				}
				return status, body
			}}},
			check: "states.analysis-in-progress", got: "202",
		},
		{
			name: "the code of another call",
			alters: []alter{{"GET", "/v1/profiles/*/folders", func(status int, body []byte) (int, []byte) {
				return status, bytes.Replace(body, []byte("SVC_3005"), []byte("PROFILE_NOT_FOUND"), 1)
			}}},
			check: "errors.svc-3005", got: "404 PROFILE_NOT_FOUND",
		},
		{
			name:  "an injected fault",
			fault: &mockserver.Fault{Method: "GET", Path: "/v1/analyses/*/report", Status: http.StatusServiceUnavailable, Times: 1},
			check: "errors.report-not-available", got: "503 SERVICE_UNAVAILABLE",
		},
		{
			name: "an inferred endpoint that is not there",
			alters: []alter{{"GET", "/v1/profiles/*/analyses", func(int, []byte) (int, []byte) {
				return http.StatusNotFound, []byte(`{"error":{"code":"NOT_FOUND","status":404,"message":"no route"}}`)
			}}},
			check: "assume.list-analyses", got: "404 NOT_FOUND",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newMock(t)
			if tt.fault != nil {
				_, err := srv.InjectFault(*tt.fault)
				require.NoError(t, err)
			}
			r, err := runSuite(t, t.Context(), srv, proxy(t, srv, tt.alters...), true, nil)
			require.NoError(t, err)
			res := result(t, r, tt.check)
			require.Equal(t, contract.Fail, res.Status, "%+v", res)
			require.Contains(t, res.Got, tt.got)
			require.NotEmpty(t, res.Expected)
			require.Positive(t, r.Failed)
			requireCleanedUp(t, srv, r)
		})
	}
}

func TestCannotRun(t *testing.T) {
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

// TestTouchesNothingElse runs the suite against a mock that hides its
// control API, as a real service would have none, beside a profile that is
// not the suite's: the suite never lists profiles, never reaches the other
// profile, and skips what only the mock can do.
func TestTouchesNothingElse(t *testing.T) {
	srv := newMock(t)
	other, err := srv.CreateProfile(mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Someone else"})
	require.NoError(t, err)
	item, err := srv.AddTextItem(other.Folders[0].ID, "Their document", "PASSPORT")
	require.NoError(t, err)
	hidden := proxy(t, srv, alter{"HEAD", "/_mock/*", func(int, []byte) (int, []byte) { return http.StatusNotFound, nil }})

	r, err := runSuite(t, t.Context(), srv, hidden, true, nil)
	require.NoError(t, err)
	require.Empty(t, failures(r))
	require.False(t, r.Mock)
	require.Equal(t, contract.Skip, result(t, r, "assume.list-profiles").Status)
	require.Equal(t, contract.Skip, result(t, r, "states.inactive-item").Status)
	require.Equal(t, contract.Skip, result(t, r, "assume.inactive-item").Status)
	for _, req := range srv.Requests() {
		require.False(t, req.Method == "GET" && strings.HasPrefix(req.Path, "/v1/workflows/"), "listed profiles: %s %s", req.Method, req.Path)
		for _, id := range []string{other.ID, other.Folders[0].ID, item.ID} {
			require.NotContains(t, req.Path, id, "reached what is not the suite's")
		}
		require.False(t, strings.HasPrefix(req.Path, "/_mock/") && req.Method != "HEAD", "used the control API: %s", req.Path)
	}
	got, ok := srv.Profile(other.ID)
	require.True(t, ok)
	require.Equal(t, "Someone else", got.Name)
	require.Len(t, srv.Profiles(), 1, "only the other profile is left")
}

func TestPlan(t *testing.T) {
	plan := contract.Plan(contract.Config{WorkflowID: "wf_kyc", Name: "profilesvc-contract X"})
	require.Contains(t, plan, `"profilesvc-contract X"`)
	require.Contains(t, plan, "wf_kyc")
	require.Contains(t, plan, "deletes the profile at the end")
}
