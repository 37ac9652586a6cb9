package mockserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

func TestStartAnalysis(t *testing.T) {
	t.Parallel()
	srv := newServer(t, mockserver.WithManualAnalyses())
	pid, items := analysisFixture(t, srv)
	options := map[string]any{"language": "ko", "depth": float64(2), "flags": []any{"a"}}
	clientMeta := map[string]any{"ticket": "T-1", "nested": map[string]any{"x": true}}
	body := targets(items...)
	body["options"], body["clientMetadata"] = options, clientMeta
	r := do(t, srv, "POST", "/v1/analyses/"+pid+"/analyze", body)
	started := jsonObject(t, r, http.StatusAccepted)
	wantExactKeys(t, "start answer", started, "id")
	id := idField(t, "start answer", started, "id", "analysis_")

	a := getAnalysis(t, srv, id)
	checkAnalysis(t, a, pid, "pending")
	assert.Equal(t, "pending_review", a["verificationStatus"], "verificationStatus")
	wantSameJSON(t, "options", a["options"], options)
	wantSameJSON(t, "clientMetadata", a["clientMetadata"], clientMeta)
	for _, k := range resultFields {
		if k != "targetItems" {
			assert.Nil(t, a[k], "pending analysis has %s = %v", k, a[k])
		}
	}

	require.NoError(t, srv.CompleteAnalysis(id))
	a = getAnalysis(t, srv, id)
	checkAnalysis(t, a, pid, "completed")
	wantSameJSON(t, "options after completion", a["options"], options)
	wantSameJSON(t, "clientMetadata after completion", a["clientMetadata"], clientMeta)

	t.Run("without options", func(t *testing.T) {
		id := startAnalysis(t, srv, pid, items[0])
		a := getAnalysis(t, srv, id)
		checkAnalysis(t, a, pid, "pending")
		wantNull(t, "analysis", a, "options")
		wantNull(t, "analysis", a, "clientMetadata")
	})
}

func TestStartAnalysisUnknownProfileFirst(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	path := "/v1/analyses/pf_nope/analyze"
	cases := []struct {
		name  string
		ctype string
		body  string
	}{
		{"good body", "application/json", `{"targetItems":[{"itemId":"item_x"}]}`},
		{"malformed JSON", "application/json", `{"targetItems":`},
		{"empty targetItems", "application/json", `{"targetItems":[]}`},
		{"no body", "application/json", ``},
		{"unknown field", "application/json", `{"nope":1}`},
		{"text/plain", "text/plain", `hello`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := send(t, srv, request{Method: "POST", Path: path, ContentType: c.ctype, Body: []byte(c.body)})
			wantError(t, r, http.StatusNotFound, "PROFILE_NOT_FOUND", "pf_nope")
		})
	}
}

func TestStartAnalysisValidation(t *testing.T) {
	t.Parallel()
	srv := newServer(t, mockserver.WithManualAnalyses())
	pid, items := analysisFixture(t, srv)
	cases := []struct {
		name, body, field string
	}{
		{"missing targetItems", `{}`, "targetItems"},
		{"null targetItems", `{"targetItems":null}`, "targetItems"},
		{"empty targetItems", `{"targetItems":[]}`, "targetItems"},
		{"entry without itemId", `{"targetItems":[{}]}`, "itemId"},
		{"empty itemId", `{"targetItems":[{"itemId":""}]}`, "itemId"},
		{"options not an object", `{"targetItems":[{"itemId":"` + items[0] + `"}],"options":"x"}`, "options"},
		{"clientMetadata not an object", `{"targetItems":[{"itemId":"` + items[0] + `"}],"clientMetadata":[1]}`, "clientMetadata"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := send(t, srv, request{Method: "POST", Path: "/v1/analyses/" + pid + "/analyze", ContentType: "application/json", Body: []byte(c.body)})
			wantError(t, r, http.StatusBadRequest, "VALIDATION_ERROR", c.field)
		})
	}
	assert.Empty(t, srv.Analyses(pid), "analyses after refused starts")
}

func TestStartAnalysisInvalidItems(t *testing.T) {
	t.Parallel()
	srv := newServer(t, mockserver.WithManualAnalyses())
	pid, items := analysisFixture(t, srv)
	_, otherFolder := createProfile(t, srv, "Other")
	foreign := createTextItem(t, srv, otherFolder, "foreign", "x")
	_, fid := func() (string, string) {
		p := doJSON(t, srv, "GET", "/v1/profiles/"+pid+"/folders", nil, http.StatusOK)
		f := objectsField(t, "page", p, "items")[0]
		return pid, f["id"].(string)
	}()
	processing := createTextItem(t, srv, fid, "processing", "x")
	require.NoError(t, srv.SetItemStatus(processing, profilesvc.ItemProcessing))
	failed := createTextItem(t, srv, fid, "failed", "x")
	require.NoError(t, srv.SetItemStatus(failed, profilesvc.ItemFailed))
	deleted := createTextItem(t, srv, fid, "deleted", "x")
	wantNoContent(t, do(t, srv, "DELETE", "/v1/items/"+deleted, nil))

	cases := []struct {
		name string
		ids  []string
		bad  []string
	}{
		{"does not exist", []string{"item_doesnotexist"}, []string{"item_doesnotexist"}},
		{"deleted", []string{deleted}, []string{deleted}},
		{"in another profile", []string{foreign}, []string{foreign}},
		{"PROCESSING", []string{processing}, []string{processing}},
		{"FAILED", []string{failed}, []string{failed}},
		{"not an item ID", []string{pid}, []string{pid}},
		{"mixed with good ones", []string{items[0], foreign, items[1], "item_ghost"}, []string{foreign, "item_ghost"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := do(t, srv, "POST", "/v1/analyses/"+pid+"/analyze", targets(c.ids...))
			wantError(t, r, http.StatusBadRequest, "INVALID_ITEM_IDS", c.bad...)
			var body struct {
				Error struct{ Message string }
			}
			_ = json.Unmarshal(r.Body, &body)
			for _, id := range c.ids {
				if !slices.Contains(c.bad, id) {
					assert.NotContains(t, body.Error.Message, id, "the message names the valid item %s", id)
				}
			}
		})
	}
	assert.Empty(t, srv.Analyses(pid), "analyses after refused starts")
	// Set back to ACTIVE, the item is accepted.
	require.NoError(t, srv.SetItemStatus(processing, profilesvc.ItemActive))
	startAnalysis(t, srv, pid, processing)
}

func TestStartAnalysisInProgress(t *testing.T) {
	t.Parallel()
	srv := newServer(t, mockserver.WithManualAnalyses())
	pid, items := analysisFixture(t, srv)
	first := startAnalysis(t, srv, pid, items...)
	wantError(t, do(t, srv, "POST", "/v1/analyses/"+pid+"/analyze", targets(items[0])), http.StatusConflict, "ANALYSIS_IN_PROGRESS")
	require.NoError(t, srv.StartProcessing(first))
	wantError(t, do(t, srv, "POST", "/v1/analyses/"+pid+"/analyze", targets(items[0])), http.StatusConflict, "ANALYSIS_IN_PROGRESS")
	require.NoError(t, srv.CompleteAnalysis(first))
	second := startAnalysis(t, srv, pid, items[0])
	require.NoError(t, srv.FailAnalysis(second, "boom"))
	startAnalysis(t, srv, pid, items[1])

	// Another profile is not held up.
	other, otherFolder := createProfile(t, srv, "Other")
	startAnalysis(t, srv, other, createTextItem(t, srv, otherFolder, "x", "y"))
}

func TestStartAnalysisRace(t *testing.T) {
	t.Parallel()
	srv := newServer(t, mockserver.WithManualAnalyses())
	pid, items := analysisFixture(t, srv)
	const n = 50
	results := make([]*response, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			r, err := sendWith(rawClient, srv, request{Method: "POST", Path: "/v1/analyses/" + pid + "/analyze", JSON: targets(items...)})
			if !assert.NoError(t, err, "request %d", i) {
				return
			}
			results[i] = r
		}(i)
	}
	close(start)
	wg.Wait()
	accepted, conflicts := 0, 0
	for _, r := range results {
		if r == nil {
			continue
		}
		switch r.Status {
		case http.StatusAccepted:
			accepted++
		case http.StatusConflict:
			conflicts++
			wantError(t, r, http.StatusConflict, "ANALYSIS_IN_PROGRESS")
		default:
			assert.Failf(t, "unexpected answer", "%s", r)
		}
	}
	assert.Equal(t, 1, accepted, "accepted starts")
	assert.Equal(t, n-1, conflicts, "conflicts")
	assert.Len(t, srv.Analyses(pid), 1, "analyses stored")
}

func TestAnalysisLifecycleOverDuration(t *testing.T) {
	t.Parallel()
	start := time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC)
	clock := mockserver.NewFakeClock(start)
	srv := newServer(t, mockserver.WithClock(clock), mockserver.WithAnalysisDuration(10*time.Second))
	pid, items := analysisFixture(t, srv)
	id := startAnalysis(t, srv, pid, items...)

	steps := []struct {
		advance time.Duration
		status  string
	}{
		{0, "pending"},
		{500 * time.Millisecond, "pending"},
		{600 * time.Millisecond, "processing"}, // past a tenth of the run
		{8 * time.Second, "processing"},        // 9.1s
		{time.Second, "completed"},             // 10.1s
	}
	for _, s := range steps {
		clock.Advance(s.advance)
		a := getAnalysis(t, srv, id)
		checkAnalysis(t, a, pid, s.status)
		assert.Equal(t, "pending_review", a["verificationStatus"], "verificationStatus")
		req := timeField(t, "analysis", a, "requestedAt")
		assert.True(t, req.Equal(start), "requestedAt = %v, want %v", req, start)
		if s.status == "completed" {
			done := timeField(t, "analysis", a, "completedAt")
			assert.True(t, done.Equal(start.Add(10*time.Second)), "completedAt = %v, want the end of the run %v", done, start.Add(10*time.Second))
			checkResult(t, a, pid, items)
		}
	}
	// It is over: more time changes nothing, and the report is there.
	clock.Advance(time.Hour)
	checkAnalysis(t, getAnalysis(t, srv, id), pid, "completed")
	r := do(t, srv, "GET", "/v1/analyses/"+id+"/report", nil)
	assert.Equal(t, http.StatusOK, r.Status, "report: %s", r)
}

func TestAnalysisLifecycleManual(t *testing.T) {
	t.Parallel()
	clock := mockserver.NewFakeClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	srv := newServer(t, mockserver.WithManualAnalyses(), mockserver.WithClock(clock))
	pid, items := analysisFixture(t, srv)
	id := startAnalysis(t, srv, pid, items...)
	checkAnalysis(t, getAnalysis(t, srv, id), pid, "pending")
	// Nothing moves on its own: the analysis arms no timer, and an hour
	// passing changes nothing.
	assert.Zero(t, clock.Timers(), "timers armed by a manual analysis")
	clock.Advance(time.Hour)
	checkAnalysis(t, getAnalysis(t, srv, id), pid, "pending")
	require.NoError(t, srv.StartProcessing(id))
	checkAnalysis(t, getAnalysis(t, srv, id), pid, "processing")
	require.NoError(t, srv.CompleteAnalysis(id))
	a := getAnalysis(t, srv, id)
	checkAnalysis(t, a, pid, "completed")
	checkResult(t, a, pid, items)
	assert.Error(t, srv.FailAnalysis(id, "late"), "a completed analysis could be failed")
	checkAnalysis(t, getAnalysis(t, srv, id), pid, "completed")

	t.Run("real time", func(t *testing.T) {
		// The real clock, its timers held until the first look: however
		// slow the machine, the run cannot end before it.
		clock := newGatedClock(t)
		srv := newServer(t, mockserver.WithAnalysisDuration(100*time.Millisecond), mockserver.WithClock(clock))
		pid, items := analysisFixture(t, srv)
		id := startAnalysis(t, srv, pid, items...)
		// Not completed at once ...
		first := getAnalysis(t, srv, id)
		wantOneOf(t, "status right after the start of a 100ms run (completed at once?)", first["status"], "pending", "processing")
		clock.release()
		// ... but by itself: a long poll waits for the completion.
		r := awaitAnswer(t, longPoll(t, srv, context.Background(), "/v1/analyses/"+id+"?waitForReport=true&timeoutSeconds=10"), 20*time.Second)
		a := jsonObject(t, r, http.StatusOK)
		require.Equal(t, "completed", a["status"], "status at the end of a 10s long poll on a 100ms run")
		checkAnalysis(t, a, pid, "completed")
		checkResult(t, a, pid, items)
	})
}

func TestAnalysisFailed(t *testing.T) {
	t.Parallel()
	srv := newServer(t, mockserver.WithManualAnalyses())
	pid, items := analysisFixture(t, srv)
	id := startAnalysis(t, srv, pid, items...)
	require.NoError(t, srv.FailAnalysis(id, "the engine could not read the documents"))
	a := getAnalysis(t, srv, id)
	checkAnalysis(t, a, pid, "failed")
	assert.Equal(t, "the engine could not read the documents", a["error"], "error")
	wantError(t, do(t, srv, "GET", "/v1/analyses/"+id+"/report", nil), http.StatusBadRequest, "REPORT_NOT_AVAILABLE")
	// A failed analysis frees the profile.
	startAnalysis(t, srv, pid, items...)
}

func TestAnalysisUnknown(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	const nope = "analysis_doesnotexist"
	for _, c := range []struct{ method, path string }{
		{"GET", "/v1/analyses/" + nope},
		{"GET", "/v1/analyses/" + nope + "?waitForReport=true&timeoutSeconds=10"},
		{"GET", "/v1/analyses/" + nope + "/report"},
		{"DELETE", "/v1/analyses/" + nope},
	} {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			wantError(t, do(t, srv, c.method, c.path, nil), http.StatusNotFound, "ANALYSIS_NOT_FOUND", nope)
		})
	}
	wantError(t, do(t, srv, "GET", "/v1/profiles/pf_nope/analyses", nil), http.StatusNotFound, "PROFILE_NOT_FOUND", "pf_nope")
}

func TestAnalysisRetention(t *testing.T) {
	t.Parallel()
	srv := newServer(t, mockserver.WithManualAnalyses())
	pid, items := analysisFixture(t, srv)
	var ids []string
	for i := 0; i < 5; i++ {
		id := startAnalysis(t, srv, pid, items...)
		require.NoError(t, srv.CompleteAnalysis(id))
		ids = append(ids, id)
	}
	// The oldest one's report is rendered (and cached) before it goes.
	r := do(t, srv, "GET", "/v1/analyses/"+ids[0]+"/report", nil)
	require.Equal(t, http.StatusOK, r.Status, "report of the oldest: %s", r)
	for _, id := range ids {
		getAnalysis(t, srv, id)
	}
	sixth := startAnalysis(t, srv, pid, items...)
	wantError(t, do(t, srv, "GET", "/v1/analyses/"+ids[0], nil), http.StatusNotFound, "ANALYSIS_NOT_FOUND", ids[0])
	wantError(t, do(t, srv, "GET", "/v1/analyses/"+ids[0]+"/report", nil), http.StatusNotFound, "ANALYSIS_NOT_FOUND", ids[0])
	wantError(t, do(t, srv, "DELETE", "/v1/analyses/"+ids[0], nil), http.StatusNotFound, "ANALYSIS_NOT_FOUND", ids[0])
	for _, id := range append(ids[1:], sixth) {
		getAnalysis(t, srv, id)
	}
	page := doJSON(t, srv, "GET", "/v1/profiles/"+pid+"/analyses", nil, http.StatusOK)
	assert.Equal(t, float64(5), page["count"], "analyses the profile lists")
	// Another profile's analyses do not count towards this one's five.
	other, otherFolder := createProfile(t, srv, "Other")
	oid := startAnalysis(t, srv, other, createTextItem(t, srv, otherFolder, "x", "y"))
	require.NoError(t, srv.CompleteAnalysis(sixth))
	startAnalysis(t, srv, pid, items...)
	wantError(t, do(t, srv, "GET", "/v1/analyses/"+ids[1], nil), http.StatusNotFound, "ANALYSIS_NOT_FOUND")
	getAnalysis(t, srv, ids[2])
	getAnalysis(t, srv, oid)
}

func TestDeleteAnalysis(t *testing.T) {
	t.Parallel()
	t.Run("manual", func(t *testing.T) {
		t.Parallel()
		srv := newServer(t, mockserver.WithManualAnalyses())
		pid, items := analysisFixture(t, srv)
		id := startAnalysis(t, srv, pid, items...)
		wantNoContent(t, do(t, srv, "DELETE", "/v1/analyses/"+id, nil))
		wantError(t, do(t, srv, "GET", "/v1/analyses/"+id, nil), http.StatusNotFound, "ANALYSIS_NOT_FOUND", id)
		wantError(t, do(t, srv, "DELETE", "/v1/analyses/"+id, nil), http.StatusNotFound, "ANALYSIS_NOT_FOUND", id)
		next := startAnalysis(t, srv, pid, items...)
		assert.Error(t, srv.CompleteAnalysis(id), "the deleted analysis could still be completed")
		require.NoError(t, srv.CompleteAnalysis(next))
		// A completed one goes with its report.
		r := do(t, srv, "GET", "/v1/analyses/"+next+"/report", nil)
		require.Equal(t, http.StatusOK, r.Status, "report: %s", r)
		wantNoContent(t, do(t, srv, "DELETE", "/v1/analyses/"+next, nil))
		wantError(t, do(t, srv, "GET", "/v1/analyses/"+next+"/report", nil), http.StatusNotFound, "ANALYSIS_NOT_FOUND")
		page := doJSON(t, srv, "GET", "/v1/profiles/"+pid+"/analyses", nil, http.StatusOK)
		assert.Equal(t, float64(0), page["count"], "analyses the profile still lists")
	})
	t.Run("running on the clock", func(t *testing.T) {
		t.Parallel()
		clock := mockserver.NewFakeClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
		srv := newServer(t, mockserver.WithClock(clock), mockserver.WithAnalysisDuration(10*time.Second))
		pid, items := analysisFixture(t, srv)
		a := startAnalysis(t, srv, pid, items...)
		clock.Advance(2 * time.Second)
		checkAnalysis(t, getAnalysis(t, srv, a), pid, "processing")
		wantNoContent(t, do(t, srv, "DELETE", "/v1/analyses/"+a, nil))
		b := startAnalysis(t, srv, pid, items[0])
		clock.Advance(20 * time.Second)
		wantError(t, do(t, srv, "GET", "/v1/analyses/"+a, nil), http.StatusNotFound, "ANALYSIS_NOT_FOUND")
		got := getAnalysis(t, srv, b)
		checkAnalysis(t, got, pid, "completed")
		checkResult(t, got, pid, items[:1])
		page := doJSON(t, srv, "GET", "/v1/profiles/"+pid+"/analyses", nil, http.StatusOK)
		list := objectsField(t, "page", page, "items")
		assert.True(t, len(list) == 1 && list[0]["id"] == b, "analyses listed = %v, want only %s", page["items"], b)
	})
}

func TestAnalysisReport(t *testing.T) {
	t.Parallel()
	srv := newServer(t, mockserver.WithManualAnalyses())
	pid, items := analysisFixture(t, srv)
	id := startAnalysis(t, srv, pid, items...)
	report := "/v1/analyses/" + id + "/report"

	wantError(t, do(t, srv, "GET", report, nil), http.StatusBadRequest, "REPORT_NOT_AVAILABLE", id)
	require.NoError(t, srv.StartProcessing(id))
	wantError(t, do(t, srv, "GET", report, nil), http.StatusBadRequest, "REPORT_NOT_AVAILABLE", id)
	require.NoError(t, srv.CompleteAnalysis(id))
	require.True(t, strings.HasPrefix(id, "analysis_"), "analysis ID %q", id)
	wantDisposition := `attachment; filename="analysis_` + id + `_report.pdf"`
	for _, q := range []string{"", "?locale=en", "?locale=ko", "?includeRawData=true", "?includeRawData=false", "?locale=ko&includeRawData=true"} {
		t.Run("ok "+q, func(t *testing.T) {
			r := do(t, srv, "GET", report+q, nil)
			require.Equal(t, http.StatusOK, r.Status, "report: %s", r)
			assert.Equal(t, "application/pdf", r.Header.Get("Content-Type"), "Content-Type")
			cd := r.Header.Get("Content-Disposition")
			assert.Equal(t, wantDisposition, cd, "Content-Disposition")
			assert.Contains(t, cd, `filename="analysis_analysis_`, "the file name must start with analysis_ + the analysis ID")
			assert.True(t, strings.HasPrefix(string(r.Body), "%PDF-") && strings.Contains(string(r.Body[max(0, len(r.Body)-64):]), "%%EOF"),
				"body is not a PDF: %q...", r.Body[:min(len(r.Body), 16)])
			assert.GreaterOrEqual(t, len(r.Body), 500, "PDF of %d bytes is too small to be a report", len(r.Body))
		})
	}
	en := do(t, srv, "GET", report+"?locale=en", nil)
	ko := do(t, srv, "GET", report+"?locale=ko", nil)
	assert.NotEqual(t, string(en.Body), string(ko.Body), "the en and ko reports are the same bytes")
	for _, c := range []struct{ q, param string }{
		{"?locale=fr", "locale"},
		{"?locale=EN", "locale"},
		{"?locale=", "locale"},
		{"?includeRawData=yes", "includeRawData"},
		{"?includeRawData=1", "includeRawData"},
		{"?format=pdf", "format"},
		{"?locale=en&locale=ko", "locale"},
	} {
		t.Run("refused "+c.q, func(t *testing.T) {
			wantError(t, do(t, srv, "GET", report+c.q, nil), http.StatusBadRequest, "VALIDATION_ERROR", c.param)
		})
	}
}

func TestListAnalyses(t *testing.T) {
	t.Parallel()
	clock := mockserver.NewFakeClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	srv := newServer(t, mockserver.WithManualAnalyses(), mockserver.WithClock(clock))
	pid, items := analysisFixture(t, srv)
	empty := doJSON(t, srv, "GET", "/v1/profiles/"+pid+"/analyses", nil, http.StatusOK)
	wantExactKeys(t, "page", empty, "count", "nextCursor", "items")
	emptyItems, ok := empty["items"].([]any)
	assert.True(t, ok && len(emptyItems) == 0 && empty["count"] == float64(0), "empty listing = %v", empty)
	wantNull(t, "empty listing", empty, "nextCursor")

	var ids []string
	for i := 0; i < 3; i++ {
		clock.Advance(time.Second)
		id := startAnalysis(t, srv, pid, items...)
		if i < 2 {
			require.NoError(t, srv.CompleteAnalysis(id))
		}
		ids = append(ids, id)
	}
	page := doJSON(t, srv, "GET", "/v1/profiles/"+pid+"/analyses", nil, http.StatusOK)
	wantExactKeys(t, "page", page, "count", "nextCursor", "items")
	list := objectsField(t, "page", page, "items")
	require.True(t, len(list) == 3 && page["count"] == float64(3), "listing = %v", page)
	wantNull(t, "page", page, "nextCursor")
	want := []string{ids[2], ids[1], ids[0]}
	for i, a := range list {
		assert.Equal(t, want[i], a["id"], "items[%d] (newest first)", i)
		status := "completed"
		if i == 0 {
			status = "pending"
		}
		checkAnalysis(t, a, pid, status)
		wantSameJSON(t, "listed analysis", a, getAnalysis(t, srv, want[i]))
	}

	first := doJSON(t, srv, "GET", "/v1/profiles/"+pid+"/analyses?limit=2", nil, http.StatusOK)
	next, ok := first["nextCursor"].(string)
	require.True(t, ok && len(objectsField(t, "page", first, "items")) == 2, "first page of 2 = %v", first)
	second := doJSON(t, srv, "GET", "/v1/profiles/"+pid+"/analyses?limit=2&cursor="+next, nil, http.StatusOK)
	rest := objectsField(t, "page", second, "items")
	assert.True(t, len(rest) == 1 && rest[0]["id"] == ids[0], "second page = %v, want the oldest", second["items"])
	wantNull(t, "last page", second, "nextCursor")
}

// TestCompletedAnalysisOfAnyWorkflow: whatever the workflow's schema and
// policy, a completed analysis has every result field, consistent with the
// workflow.
func TestCompletedAnalysisOfAnyWorkflow(t *testing.T) {
	t.Parallel()
	workflows := []mockserver.Workflow{
		{ID: "wf_bare", Name: "No schema, no policy: the default workflow's run"},
		{ID: "wf_empty_schema", OutputSchema: json.RawMessage(`{"type":"object","properties":{}}`),
			Policy: []mockserver.PolicyAction{{ActionName: "lookup", Category: "mcp", Query: "Look it up."}}},
		{ID: "wf_custom", OutputSchema: json.RawMessage(`{"type":"object","properties":{"request_id":{"type":"string"},"full_name":{"type":"string"},"policy_flags":{"type":"array"}}}`),
			Policy: []mockserver.PolicyAction{
				{ActionName: "extract", Category: "Data Extraction", Query: "Extract the name."},
				{ActionName: "check", Category: "Data Consistency", Query: "Compare."},
			}},
	}
	srv := newServer(t, mockserver.WithManualAnalyses(), mockserver.WithWorkflows(workflows...))
	for _, wf := range workflows {
		t.Run(wf.ID, func(t *testing.T) {
			p := doJSON(t, srv, "POST", "/v1/workflows/"+wf.ID+"/profiles", map[string]any{"name": "Subject"}, http.StatusCreated)
			pid := p["id"].(string)
			fid := objectsField(t, "profile", p, "folders")[0]["id"].(string)
			items := []string{createTextItem(t, srv, fid, "id card", "Full name: Jane Doe\n")}
			id := startAnalysis(t, srv, pid, items...)
			require.NoError(t, srv.CompleteAnalysis(id))
			a := getAnalysis(t, srv, id)
			checkAnalysis(t, a, pid, "completed")
			// A workflow without a policy or a schema of its own runs with
			// the default workflow's.
			effective := wf
			if len(effective.Policy) == 0 {
				effective.Policy = mockserver.DefaultWorkflow().Policy
			}
			if len(effective.OutputSchema) == 0 {
				effective.OutputSchema = mockserver.DefaultWorkflow().OutputSchema
			}
			checkResultOf(t, a, pid, items, effective)
		})
	}
}
