package profilesvc

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// startService is a fake of the service's analysis routes for one profile,
// pf_1, with the one-running-analysis rule, whose answers to start
// requests can be lost on purpose.
type startService struct {
	mu       sync.Mutex
	analyses []Analysis // oldest first
	// lose says what happens to start request number n (from 1): "" to
	// answer it, "after" to act on it and then close the connection
	// unanswered, "before" to close it without acting, "hold" to act and
	// then never answer.
	lose func(n int) string
	// listStatus, if not 0, is the error status of the listing.
	listStatus int
	starts     int
}

func (s *startService) handle(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/analyses/pf_1/analyze":
		s.start(w, r)
	case r.Method == http.MethodGet && r.URL.Path == "/v1/profiles/pf_1/analyses":
		s.list(w)
	default:
		respondError(w, http.StatusNotFound, CodeNotFound, "no route")
	}
}

func (s *startService) start(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.starts++
	how := ""
	if s.lose != nil {
		how = s.lose(s.starts)
	}
	if how == "before" {
		s.mu.Unlock()
		retryTestDrop(w, r)
		return
	}
	for _, a := range s.analyses {
		if !a.Status.IsTerminal() {
			s.mu.Unlock()
			if how != "" {
				retryTestDrop(w, r)
				return
			}
			respondError(w, http.StatusConflict, CodeAnalysisInProgress, "an analysis is running")
			return
		}
	}
	var body startAnalysisBody
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		s.mu.Unlock()
		respondError(w, http.StatusBadRequest, CodeValidation, err.Error())
		return
	}
	a := Analysis{ID: fmt.Sprintf("analysis_%d", len(s.analyses)+1), ProfileID: "pf_1", Status: AnalysisPending,
		RequestedAt: time.Now().UTC(), CreatedAt: time.Now().UTC()}
	for _, ref := range body.TargetItems {
		a.TargetItems = append(a.TargetItems, TargetItem{ItemID: ref.ItemID})
	}
	s.analyses = append(s.analyses, a)
	s.mu.Unlock()
	switch how {
	case "after":
		retryTestDrop(w, r)
	case "hold":
		<-r.Context().Done()
	default:
		respond(w, http.StatusAccepted, `{"id":"`+a.ID+`"}`)
	}
}

func (s *startService) list(w http.ResponseWriter) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.listStatus != 0 {
		respondError(w, s.listStatus, CodeNotFound, "no such route")
		return
	}
	items := slices.Clone(s.analyses)
	slices.Reverse(items)
	b, _ := json.Marshal(Page[Analysis]{Count: len(items), Items: items})
	respond(w, http.StatusOK, string(b))
}

// running adds an analysis that is already running, of the given items,
// requested at the given time.
func (s *startService) running(requestedAt time.Time, items ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := Analysis{ID: fmt.Sprintf("analysis_%d", len(s.analyses)+1), ProfileID: "pf_1", Status: AnalysisProcessing,
		RequestedAt: requestedAt, CreatedAt: requestedAt}
	for _, id := range items {
		a.TargetItems = append(a.TargetItems, TargetItem{ItemID: id})
	}
	s.analyses = append(s.analyses, a)
}

func (s *startService) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.analyses)
}

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
