package profilesvc

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go/internal/apiroutes"
)

func TestMiddleware_OrderClientFirstThenCall(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, answerOK)
	var log middlewareLog
	c := srv.client(t, WithMiddleware(log.named("c1"), log.named("c2")), WithMiddleware(log.named("c3")))

	_, err := c.GetProfile(t.Context(), "pf_1", WithCallMiddleware(log.named("r1"), log.named("r2")))
	require.NoError(t, err)
	want := []string{"c1>", "c2>", "c3>", "r1>", "r2>", "<r2 200", "<r1 200", "<c3 200", "<c2 200", "<c1 200"}
	if diff := cmp.Diff(want, log.get()); diff != "" {
		t.Errorf("middleware order (-want +got):\n%s", diff)
	}

	// A call without middleware of its own runs the client's alone.
	_, err = c.GetProfile(t.Context(), "pf_1")
	require.NoError(t, err)
	assert.Len(t, log.get(), 16)
}

func TestMiddleware_RunsOncePerAttempt(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, answerInTurn(answerStatus(503), answerStatus(502), answerOK))
	var log middlewareLog
	c := srv.client(t, WithMiddleware(log.named("c")))
	_, err := c.GetProfile(t.Context(), "pf_1", WithCallMiddleware(log.named("r")))
	require.NoError(t, err)
	want := []string{
		"c>", "r>", "<r 503", "<c 503",
		"c>", "r>", "<r 502", "<c 502",
		"c>", "r>", "<r 200", "<c 200",
	}
	if diff := cmp.Diff(want, log.get()); diff != "" {
		t.Errorf("middleware runs (-want +got):\n%s", diff)
	}
	assert.Len(t, srv.requests(), 3)
}

func TestAttempt_NumbersEachAttemptOfACall(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, answerInTurn(answerStatus(503), answerStatus(502), answerOK, answerOK))
	var mu sync.Mutex
	var seen []int
	record := func(req *http.Request, next MiddlewareNext) (*http.Response, error) {
		mu.Lock()
		seen = append(seen, Attempt(req.Context()))
		mu.Unlock()
		return next(req)
	}
	c := srv.client(t, WithMiddleware(record))
	_, err := c.GetProfile(t.Context(), "pf_1")
	require.NoError(t, err)
	_, err = c.GetProfile(t.Context(), "pf_1")
	require.NoError(t, err)
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []int{1, 2, 3, 1}, seen, "the attempts of the first call, then the second call's first")
	assert.Zero(t, Attempt(t.Context()), "a context no attempt made")
}

func TestMiddleware_SeesTheRequestAndCanChangeIt(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, answerOK)
	var sawKey, sawRoute string
	tag := func(req *http.Request, next MiddlewareNext) (*http.Response, error) {
		sawKey = req.Header.Get("x-api-key")
		sawRoute = RouteTemplate(req.Context())
		req.Header.Set("X-Trace", "t-1")
		return next(req)
	}
	_, err := srv.client(t, WithMiddleware(tag)).GetProfile(t.Context(), "pf_1")
	require.NoError(t, err)
	assert.Equal(t, testAPIKey, sawKey, "a middleware sees the key (and must not log it)")
	assert.Equal(t, apiroutes.Profile, sawRoute)
	reqs := srv.requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, "t-1", reqs[0].Header.Get("X-Trace"))
}

func TestMiddleware_AnswersWithoutTheNetwork(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, answerOK)
	canned := func(req *http.Request, next MiddlewareNext) (*http.Response, error) {
		return &http.Response{
			StatusCode: http.StatusNotFound,
			Status:     "404 Not Found",
			Header:     http.Header{"Content-Type": {"application/json"}},
			Body:       http.NoBody,
			Request:    req,
		}, nil
	}
	_, err := srv.client(t, WithMiddleware(canned)).GetProfile(t.Context(), "pf_1")
	assert.ErrorIs(t, err, ErrNotFound)
	assert.Empty(t, srv.requests())

	silent := func(*http.Request, MiddlewareNext) (*http.Response, error) { return nil, nil }
	_, err = srv.client(t, WithMaxRetries(0)).GetProfile(t.Context(), "pf_1", WithCallMiddleware(silent))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "middleware returned no response")

	failing := func(*http.Request, MiddlewareNext) (*http.Response, error) { return nil, errors.New("circuit open") }
	_, err = srv.client(t, WithMaxRetries(0)).GetProfile(t.Context(), "pf_1", WithCallMiddleware(failing))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "circuit open")
	assert.Empty(t, srv.requests())
}

// TestRouteTemplate_EveryCall checks that each SDK method's requests carry
// the template of its route, never an ID, and that Do carries its path as
// given.
func TestRouteTemplate_EveryCall(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/report"):
			w.Header().Set("Content-Type", "application/pdf")
			_, _ = w.Write([]byte("%PDF-1.7\n%%EOF\n"))
		case strings.HasPrefix(r.URL.Path, "/v1/analyses/") && r.Method == http.MethodGet:
			respond(w, http.StatusOK, analysisJSON(AnalysisCompleted, "rpt_1", ""))
		case strings.HasSuffix(r.URL.Path, "/analyses") || strings.HasSuffix(r.URL.Path, "/folders") && r.Method == http.MethodGet ||
			r.URL.Path == "/v1/workflows/wf_1/profiles" && r.Method == http.MethodGet:
			respond(w, http.StatusOK, `{"count":0,"nextCursor":null,"items":[]}`)
		default:
			answerOK(w, r)
		}
	})
	var mu sync.Mutex
	var routes []string
	record := func(req *http.Request, next MiddlewareNext) (*http.Response, error) {
		mu.Lock()
		routes = append(routes, req.Method+" "+RouteTemplate(req.Context()))
		mu.Unlock()
		return next(req)
	}
	c := srv.client(t, WithMiddleware(record))
	ctx := t.Context()
	calls := []struct {
		want string
		call func() error
	}{
		{"POST " + apiroutes.WorkflowProfiles, func() error {
			_, err := c.CreateProfile(ctx, "wf_1", CreateProfileParams{Name: "J"})
			return err
		}},
		{"GET " + apiroutes.WorkflowProfiles, func() error { _, err := c.ListProfilesPage(ctx, "wf_1", nil); return err }},
		{"GET " + apiroutes.Profile, func() error { _, err := c.GetProfile(ctx, "pf_1"); return err }},
		{"PATCH " + apiroutes.Profile, func() error {
			_, err := c.UpdateProfile(ctx, "pf_1", UpdateProfileParams{Name: Ptr("K")})
			return err
		}},
		{"DELETE " + apiroutes.Profile, func() error { return c.DeleteProfile(ctx, "pf_1") }},
		{"GET " + apiroutes.ProfileFolders, func() error { _, err := c.ListFoldersPage(ctx, "pf_1", nil); return err }},
		{"GET " + apiroutes.Folder, func() error { _, err := c.GetFolder(ctx, "fld_1"); return err }},
		{"DELETE " + apiroutes.Item, func() error { return c.DeleteItem(ctx, "item_1") }},
		{"GET " + apiroutes.Analysis, func() error { _, err := c.GetAnalysis(ctx, "analysis_1", nil); return err }},
		{"GET " + apiroutes.ProfileAnalyses, func() error { _, err := c.ListAnalysesPage(ctx, "pf_1", nil); return err }},
		{"GET " + apiroutes.AnalysisReport, func() error {
			rep, err := c.DownloadReport(ctx, "analysis_1", nil)
			if err == nil {
				rep.Body.Close()
			}
			return err
		}},
		{"POST " + apiroutes.Analyze, func() error {
			_, err := c.StartAnalysis(ctx, "pf_1", StartAnalysisParams{ItemIDs: []string{"item_1"}})
			return err
		}},
		{"GET /profiles/pf_1", func() error { return c.Do(ctx, "GET", "/profiles/pf_1?x=1", nil, nil) }},
	}
	for i, tc := range calls {
		require.NoError(t, tc.call(), tc.want)
		mu.Lock()
		require.Len(t, routes, i+1, tc.want)
		assert.Equal(t, tc.want, routes[i])
		mu.Unlock()
	}
	assert.Empty(t, RouteTemplate(context.Background()), "a context no call made")
}

func TestWithResponseInto(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Request-Id", "req_42")
		if r.URL.Path == "/v1/profiles/pf_missing" {
			respondError(w, http.StatusNotFound, CodeProfileNotFound, "no such profile")
			return
		}
		if strings.HasSuffix(r.URL.Path, "/report") {
			w.Header().Set("Content-Type", "application/pdf")
			_, _ = w.Write([]byte("%PDF-1.7\n%%EOF\n"))
			return
		}
		answerOK(w, r)
	})
	c := srv.client(t)

	var resp *http.Response
	p, err := c.GetProfile(t.Context(), "pf_1", WithResponseInto(&resp))
	require.NoError(t, err)
	assert.Equal(t, "pf_1", p.ID)
	require.NotNil(t, resp)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "req_42", resp.Header.Get("X-Request-Id"))
	assert.Equal(t, http.NoBody, resp.Body, "the body is consumed")

	var deleted *http.Response
	require.NoError(t, c.DeleteProfile(t.Context(), "pf_1", WithResponseInto(&deleted)))
	require.NotNil(t, deleted)
	assert.Equal(t, http.StatusNoContent, deleted.StatusCode)

	var report *http.Response
	rep, err := c.DownloadReport(t.Context(), "analysis_1", nil, WithResponseInto(&report))
	require.NoError(t, err)
	defer rep.Body.Close()
	require.NotNil(t, report)
	assert.Equal(t, "application/pdf", report.Header.Get("Content-Type"))
	assert.Equal(t, http.NoBody, report.Body, "the report's body stays with the Report")

	var failed *http.Response
	_, err = c.GetProfile(t.Context(), "pf_missing", WithResponseInto(&failed))
	var apiErr *APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Nil(t, failed, "left as it is when the call fails")
	assert.Equal(t, "req_42", apiErr.RequestID, "the error carries the request ID instead")
}
