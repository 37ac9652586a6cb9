package mockserver_test

// WithOpenAPICheck, and NewTest, which turns it on: what is held to
// api/openapi.yaml and what is not.

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go/mockserver"
	"github.com/profilesvc/profilesvc-go/mockserver/engine"
)

// reports collects what an OpenAPI check reports.
type reports struct {
	mu   sync.Mutex
	errs []string
}

func (r *reports) add(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, err.Error())
}

func (r *reports) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.errs...)
}

// extremeRisk is an analyzer whose result the service could not give: a
// risk level outside the document's enum.
func extremeRisk(ctx context.Context, in engine.Input) (engine.Result, error) {
	res, err := engine.Default(ctx, in)
	res.RiskAssessment.RiskLevel = "extreme"
	return res, err
}

// completedAnalysis starts an analysis of a profile holding one passport
// and completes it; it returns the analysis's ID.
func completedAnalysis(t *testing.T, srv *mockserver.Server) string {
	t.Helper()
	pid, _, iid := addProfileWithItem(t, srv.Tenant, "Jane Doe")
	id := startAnalysis(t, srv, pid, iid)
	require.NoError(t, srv.CompleteAnalysis(id), "CompleteAnalysis")
	return id
}

func TestOpenAPICheck(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		opts []mockserver.Option
		// exchange sends what the case is about.
		exchange func(t *testing.T, srv *mockserver.Server)
		// want are the texts each report must hold; none means no report.
		want []string
	}{
		{
			name: "an answer the service could not give is reported, naming the operation and the field",
			opts: []mockserver.Option{mockserver.WithAnalyzer(extremeRisk)},
			exchange: func(t *testing.T, srv *mockserver.Server) {
				id := completedAnalysis(t, srv)
				wantStatus(t, do(t, srv, "GET", "/v1/analyses/"+id, nil), 200)
			},
			want: []string{"getAnalysis (GET /v1/analyses/", "riskAssessment/riskLevel"},
		},
		{
			name: "a request the document refuses and the mock refuses too passes",
			exchange: func(t *testing.T, srv *mockserver.Server) {
				pid, _, _ := addProfileWithItem(t, srv.Tenant, "Jane Doe")
				wantError(t, do(t, srv, "GET", "/v1/profiles/"+pid+"/analyses?limit=1000", nil), 400, "VALIDATION_ERROR", "limit")
				wantError(t, do(t, srv, "POST", "/v1/analyses/"+pid+"/analyze", map[string]any{"targets": "all"}), 400, "VALIDATION_ERROR")
			},
		},
		{
			name: "an injected fault's answer is the test's own",
			exchange: func(t *testing.T, srv *mockserver.Server) {
				_, err := srv.InjectFault(mockserver.Fault{Path: "/v1/profiles/*", Status: 418, Code: "TEAPOT"})
				require.NoError(t, err, "InjectFault")
				wantError(t, do(t, srv, "GET", "/v1/profiles/pf_1", nil), 418, "TEAPOT")
			},
		},
		{
			name: "the control API is not the service's",
			exchange: func(t *testing.T, srv *mockserver.Server) {
				wantStatus(t, do(t, srv, "GET", "/_mock/requests", nil), 200)
				wantStatus(t, do(t, srv, "POST", "/_mock/reset", nil), 204)
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got reports
			srv := mockserver.NewTest(t, append(tc.opts, mockserver.WithManualAnalyses(), mockserver.WithOpenAPICheck(got.add))...)
			tc.exchange(t, srv)
			srv.Close() // every exchange checked
			errs := got.all()
			if len(tc.want) == 0 {
				assert.Empty(t, errs, "reports")
				return
			}
			require.NotEmpty(t, errs, "no report, want one holding %q", tc.want)
			for _, e := range errs {
				for _, w := range tc.want {
					assert.Contains(t, e, w, "report")
				}
			}
		})
	}
}

// recordingT is a testing.TB whose failures are recorded, not raised, so
// that a test can see what NewTest reports to its test.
type recordingT struct {
	testing.TB
	mu     sync.Mutex
	errors []string
}

func (r *recordingT) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recordingT) failures() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.errors...)
}

func TestNewTestHoldsTheMockToTheDocument(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		opts []mockserver.Option
		want bool // whether the test fails
	}{
		{"a disagreement fails the test", nil, true},
		{"WithOpenAPICheck(nil) turns the check off", []mockserver.Option{mockserver.WithOpenAPICheck(nil)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rt := &recordingT{TB: t}
			opts := append([]mockserver.Option{mockserver.WithAnalyzer(extremeRisk), mockserver.WithManualAnalyses()}, tc.opts...)
			srv := mockserver.NewTest(rt, opts...)
			id := completedAnalysis(t, srv)
			wantStatus(t, do(t, srv, "GET", "/v1/analyses/"+id, nil), 200)
			srv.Close()
			failures := rt.failures()
			if !tc.want {
				assert.Empty(t, failures, "the test's failures")
				return
			}
			require.Len(t, failures, 1, "the test's failures")
			assert.True(t, strings.Contains(failures[0], "api/openapi.yaml") && strings.Contains(failures[0], "getAnalysis") && strings.Contains(failures[0], "riskLevel"),
				"the failure %q, want it to name the document, the operation and the field", failures[0])
		})
	}
}
