package profilesvc

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStartAnalysis_ReconcilesALostAnswer(t *testing.T) {
	t.Parallel()
	firstLost := func(how string) func(int) string {
		return func(n int) string {
			if n == 1 {
				return how
			}
			return ""
		}
	}
	tests := []struct {
		name    string
		service *startService
		setup   func(*startService)
		items   []string
		opts    []Option
		// wantID is the ID returned, or "" for an error matching
		// ErrOutcomeUnknown.
		wantID        string
		wantAnalyses  int
		wantRequests  int
		wantListCalls bool
	}{
		{
			name:    "the first start acted and its answer was lost",
			service: &startService{lose: firstLost("after")},
			items:   []string{"item_1", "item_2"}, wantID: "analysis_1", wantAnalyses: 1, wantRequests: 3, wantListCalls: true,
		},
		{
			name:    "the same items in another order",
			service: &startService{lose: firstLost("after")},
			items:   []string{"item_2", "item_1", "item_2"}, wantID: "analysis_1", wantAnalyses: 1, wantRequests: 3, wantListCalls: true,
		},
		{
			name:    "the first start ran out of time after it was written",
			service: &startService{lose: firstLost("hold")},
			opts:    []Option{WithRequestTimeout(100 * time.Millisecond)},
			items:   []string{"item_1"}, wantID: "analysis_1", wantAnalyses: 1, wantRequests: 3, wantListCalls: true,
		},
		{
			name:    "the first start never acted: the second starts it",
			service: &startService{lose: firstLost("before")},
			items:   []string{"item_1"}, wantID: "analysis_1", wantAnalyses: 1, wantRequests: 2,
		},
		{
			name:    "another analysis of other items is running",
			service: &startService{lose: firstLost("before")},
			setup:   func(s *startService) { s.running(time.Now(), "item_9") },
			items:   []string{"item_1"}, wantAnalyses: 1, wantRequests: 3, wantListCalls: true,
		},
		{
			name:    "an analysis of the same items was running before the first start",
			service: &startService{lose: firstLost("before")},
			setup:   func(s *startService) { s.running(time.Now().Add(-time.Minute), "item_1") },
			items:   []string{"item_1"}, wantAnalyses: 1, wantRequests: 3, wantListCalls: true,
		},
		{
			name:    "within the clock skew allowed",
			service: &startService{lose: firstLost("before")},
			setup:   func(s *startService) { s.running(time.Now().Add(-3*time.Second), "item_1") },
			items:   []string{"item_1"}, wantID: "analysis_1", wantAnalyses: 1, wantRequests: 3, wantListCalls: true,
		},
		{
			name:    "the listing is not there (404 NOT_FOUND)",
			service: &startService{lose: firstLost("after"), listStatus: http.StatusNotFound},
			items:   []string{"item_1"}, wantAnalyses: 1, wantRequests: 3, wantListCalls: true,
		},
		{
			name:    "the listing is not allowed (405)",
			service: &startService{lose: firstLost("after"), listStatus: http.StatusMethodNotAllowed},
			items:   []string{"item_1"}, wantAnalyses: 1, wantRequests: 3, wantListCalls: true,
		},
		{
			name:    "the second start is lost too",
			service: &startService{lose: func(int) string { return "after" }},
			items:   []string{"item_1"}, wantAnalyses: 1, wantRequests: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := tt.service
			if tt.setup != nil {
				tt.setup(s)
			}
			srv := newTestServer(t, s.handle)
			id, err := srv.client(t, tt.opts...).StartAnalysis(t.Context(), "pf_1", StartAnalysisParams{ItemIDs: tt.items})
			if tt.wantID != "" {
				require.NoError(t, err)
				assert.Equal(t, tt.wantID, id)
			} else {
				require.ErrorIs(t, err, ErrOutcomeUnknown)
				assert.Empty(t, id)
				assert.Contains(t, err.Error(), "outcome unknown")
			}
			assert.Equal(t, tt.wantAnalyses, s.count(), "analyses on the service")
			reqs := srv.requests()
			assert.Len(t, reqs, tt.wantRequests)
			listed := slices.ContainsFunc(reqs, func(r recordedRequest) bool { return r.Method == http.MethodGet })
			assert.Equal(t, tt.wantListCalls, listed, "the listing was read")
		})
	}
}

func TestStartAnalysis_OtherFailuresAreNotReconciled(t *testing.T) {
	t.Parallel()
	s := &startService{}
	s.running(time.Now(), "item_1")
	srv := newTestServer(t, s.handle)
	_, err := srv.client(t).StartAnalysis(t.Context(), "pf_1", StartAnalysisParams{ItemIDs: []string{"item_1"}})
	assert.ErrorIs(t, err, ErrAnalysisInProgress, "an answered 409 is the caller's to handle")
	assert.NotErrorIs(t, err, ErrOutcomeUnknown)
	assert.Len(t, srv.requests(), 1)
}

func TestRunningAnalysis(t *testing.T) {
	t.Parallel()
	s := &startService{}
	srv := newTestServer(t, s.handle)
	c := srv.client(t)

	a, err := c.RunningAnalysis(t.Context(), "pf_1")
	require.NoError(t, err)
	assert.Nil(t, a, "no analysis at all")

	s.mu.Lock()
	s.analyses = append(s.analyses, Analysis{ID: "analysis_old", Status: AnalysisCompleted})
	s.mu.Unlock()
	a, err = c.RunningAnalysis(t.Context(), "pf_1")
	require.NoError(t, err)
	assert.Nil(t, a, "only a finished one")

	s.running(time.Now(), "item_1")
	a, err = c.RunningAnalysis(t.Context(), "pf_1")
	require.NoError(t, err)
	require.NotNil(t, a)
	assert.Equal(t, "analysis_2", a.ID)
	assert.Equal(t, AnalysisProcessing, a.Status)

	s.mu.Lock()
	s.listStatus = http.StatusNotFound
	s.mu.Unlock()
	_, err = c.RunningAnalysis(t.Context(), "pf_1")
	assert.ErrorIs(t, err, ErrNotFound)
}
