package mockserver_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/internal/openapicheck"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

// The dashboard's files need no key, come with their media type and a
// Content-Security-Policy that allows nothing inline, and answer as the
// other public routes do.
func TestDashboardFiles(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	tests := []struct {
		path, mediaType, has string
	}{
		{"/_mock/ui", "text/html; charset=utf-8", `src="/_mock/ui/app.js"`},
		{"/_mock/ui/app.js", "text/javascript; charset=utf-8", ""},
		{"/_mock/ui/style.css", "text/css; charset=utf-8", ""},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			r := send(t, srv, request{Method: "GET", Path: tt.path, Key: noKey})
			wantStatus(t, r, http.StatusOK)
			assert.Equal(t, tt.mediaType, r.Header.Get("Content-Type"))
			csp := r.Header.Get("Content-Security-Policy")
			assert.Contains(t, csp, "default-src 'none'")
			assert.Contains(t, csp, "script-src 'self';")
			assert.NotContains(t, csp, "unsafe-inline")
			assert.Equal(t, "nosniff", r.Header.Get("X-Content-Type-Options"))
			assert.NotEmpty(t, r.Body)
			assert.Contains(t, string(r.Body), tt.has)

			head := send(t, srv, request{Method: "HEAD", Path: tt.path, Key: noKey})
			wantStatus(t, head, http.StatusOK)
			assert.Empty(t, head.Body)
			wantError(t, send(t, srv, request{Method: "POST", Path: tt.path, Key: noKey}), http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED")
			wantError(t, send(t, srv, request{Method: "GET", Path: tt.path + "?key=x", Key: noKey}), http.StatusBadRequest, "VALIDATION_ERROR", "key")
		})
	}
	wantError(t, send(t, srv, request{Method: "GET", Path: "/_mock/ui/other.js", Key: noKey}), http.StatusUnauthorized, "UNAUTHORIZED")
	wantError(t, send(t, srv, request{Method: "GET", Path: "/_mock/ui/other.js"}), http.StatusNotFound, "NOT_FOUND")
}

// dashboardState reads GET /_mock/state.
func dashboardState(t *testing.T, srv *mockserver.Server) (state map[string]any, etag string) {
	t.Helper()
	r := do(t, srv, "GET", "/_mock/state", nil)
	return jsonObject(t, r, http.StatusOK), r.Header.Get("ETag")
}

func TestDashboardState(t *testing.T) {
	t.Parallel()
	srv := newServer(t, mockserver.WithManualAnalyses())
	empty, emptyTag := dashboardState(t, srv)
	assert.Empty(t, arrayField(t, "state", empty, "profiles"))
	assert.NotEmpty(t, arrayField(t, "state", empty, "workflows"))
	require.NotEmpty(t, emptyTag)
	assert.Equal(t, `"`+stringField(t, "state", empty, "version")+`"`, emptyTag)

	pid, items := analysisFixture(t, srv)
	first := startAnalysis(t, srv, pid, items...)
	require.NoError(t, srv.CompleteAnalysis(first))
	second := startAnalysis(t, srv, pid, items[0])
	require.NoError(t, srv.SetItemStatus(items[1], "PROCESSING"))

	state, tag := dashboardState(t, srv)
	assert.NotEqual(t, emptyTag, tag, "a change changes the version")
	assert.EqualValues(t, 1, numberField(t, "state", state, "totalProfiles"))
	assert.False(t, boolField(t, "state", state, "truncated"))
	profiles := objectsField(t, "state", state, "profiles")
	require.Len(t, profiles, 1)
	p := profiles[0]
	assert.Equal(t, pid, p["id"])
	folders := objectsField(t, "profile", p, "folders")
	require.Len(t, folders, 1)
	assert.Equal(t, true, folders[0]["isDefault"])
	gotItems := objectsField(t, "folder", folders[0], "items")
	require.Len(t, gotItems, 2)
	assert.Equal(t, items[0], gotItems[0]["id"], "items in creation order")
	assert.Equal(t, "ACTIVE", gotItems[0]["status"])
	assert.Equal(t, "PROCESSING", gotItems[1]["status"])
	assert.Equal(t, "text", gotItems[0]["type"])
	assert.Positive(t, numberField(t, "item", gotItems[0], "sizeBytes"))
	analyses := objectsField(t, "profile", p, "analyses")
	require.Len(t, analyses, 2)
	assert.Equal(t, second, analyses[0]["id"], "analyses newest first")
	assert.Equal(t, "pending", analyses[0]["status"])
	wantNull(t, "pending analysis", analyses[0], "riskLevel")
	wantNull(t, "pending analysis", analyses[0], "completedAt")
	assert.Equal(t, "completed", analyses[1]["status"])
	wantOneOf(t, "risk level", analyses[1]["riskLevel"], "low", "medium", "high")
	assert.NotNil(t, analyses[1]["riskScore"])
	assert.Equal(t, "pending_review", analyses[1]["verificationStatus"])

	// Unchanged: 304, with no body, while nothing changes.
	again := send(t, srv, request{Method: "GET", Path: "/_mock/state", Header: http.Header{"If-None-Match": {tag}}})
	wantStatus(t, again, http.StatusNotModified)
	assert.Empty(t, again.Body)
	assert.Equal(t, tag, again.Header.Get("ETag"))
	weak := send(t, srv, request{Method: "GET", Path: "/_mock/state", Header: http.Header{"If-None-Match": {`"x", W/` + tag}}})
	wantStatus(t, weak, http.StatusNotModified)
	stale := send(t, srv, request{Method: "GET", Path: "/_mock/state", Header: http.Header{"If-None-Match": {emptyTag}}})
	wantStatus(t, stale, http.StatusOK)

	// Polling it changes nothing the page shows: neither the record nor
	// faults see it.
	srv.ClearRequests()
	_, err := srv.InjectFault(mockserver.Fault{Path: "/_mock/state", Status: http.StatusInternalServerError})
	require.NoError(t, err)
	for range 3 {
		_, tagNow := dashboardState(t, srv)
		assert.Equal(t, tag, tagNow)
	}
	assert.Empty(t, srv.Requests(), "the state's reads are not recorded")

	wantError(t, send(t, srv, request{Method: "GET", Path: "/_mock/state", Key: noKey}), http.StatusUnauthorized, "UNAUTHORIZED")
	wantError(t, do(t, srv, "GET", "/_mock/state?x=1", nil), http.StatusBadRequest, "VALIDATION_ERROR", "x")
}

// The state holds the newest 200 profiles, and says how many there are.
func TestDashboardStateBounded(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	var last string
	for i := range 203 {
		p, err := srv.CreateProfile("wf_default", profilesvc.CreateProfileParams{Name: fmt.Sprintf("p%03d", i)})
		require.NoError(t, err)
		last = p.ID
	}
	state, _ := dashboardState(t, srv)
	assert.EqualValues(t, 203, numberField(t, "state", state, "totalProfiles"))
	assert.True(t, boolField(t, "state", state, "truncated"))
	profiles := objectsField(t, "state", state, "profiles")
	require.Len(t, profiles, 200)
	assert.Equal(t, last, profiles[0]["id"], "newest first")
	assert.Equal(t, "p003", profiles[199]["name"])
}

// Each key sees its own namespace.
func TestDashboardStateOfEachTenant(t *testing.T) {
	t.Parallel()
	srv := newServer(t, mockserver.WithMultiTenant())
	const a, b = "6f1c1b52-4b9e-4d57-9a0e-0c8f4f1d2a3b", "0d7e5c4b-3a2f-4e1d-8c9b-7a6f5e4d3c2b"
	r := send(t, srv, request{Method: "POST", Path: "/v1/workflows/wf_default/profiles", JSON: map[string]string{"name": "A's"}, Key: a})
	wantStatus(t, r, http.StatusCreated)
	for key, n := range map[string]int{a: 1, b: 0} {
		var s struct{ Profiles []any }
		r := send(t, srv, request{Method: "GET", Path: "/_mock/state", Key: key})
		wantStatus(t, r, http.StatusOK)
		require.NoError(t, json.Unmarshal(r.Body, &s))
		assert.Len(t, s.Profiles, n, "key %s", key)
	}
}

func TestSnapshotOverHTTP(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	pid, fid := createProfile(t, srv, "Kept")
	createTextItem(t, srv, fid, "note", "kept text")
	r := do(t, srv, "GET", "/_mock/snapshot", nil)
	wantStatus(t, r, http.StatusOK)
	assert.Contains(t, r.Header.Get("Content-Disposition"), "attachment")
	snapshot := r.Body

	wantNoContent(t, do(t, srv, "POST", "/_mock/reset", nil))
	wantStatus(t, do(t, srv, "GET", "/v1/profiles/"+pid, nil), http.StatusNotFound)

	wantNoContent(t, do(t, srv, "PUT", "/_mock/snapshot", snapshot))
	p := doJSON(t, srv, "GET", "/v1/profiles/"+pid, nil, http.StatusOK)
	assert.Equal(t, "Kept", p["name"])
	assert.EqualValues(t, 1, p["itemsCount"])

	// Refused whole, the state kept, with the first problem named.
	var broken map[string]any
	require.NoError(t, json.Unmarshal(snapshot, &broken))
	folders := broken["folders"].([]any)
	folders[0].(map[string]any)["profileId"] = "pf_nobody"
	bad, err := json.Marshal(broken)
	require.NoError(t, err)
	wantError(t, do(t, srv, "PUT", "/_mock/snapshot", bad), http.StatusBadRequest, "VALIDATION_ERROR", "profileId")
	doJSON(t, srv, "GET", "/v1/profiles/"+pid, nil, http.StatusOK)

	for name, body := range map[string]string{
		"not JSON":        `{"version":1,`,
		"another version": `{"version":2,"workflows":[]}`,
		"no workflow":     `{"version":1,"workflows":[]}`,
		"unknown member":  strings.Replace(string(snapshot), `"version":1`, `"version":1,"extra":true`, 1),
	} {
		t.Run(name, func(t *testing.T) {
			wantError(t, do(t, srv, "PUT", "/_mock/snapshot", body), http.StatusBadRequest, "VALIDATION_ERROR")
			doJSON(t, srv, "GET", "/v1/profiles/"+pid, nil, http.StatusOK)
		})
	}
	r = send(t, srv, request{Method: "PUT", Path: "/_mock/snapshot", Body: snapshot, ContentType: "text/plain"})
	wantError(t, r, http.StatusUnsupportedMediaType, "UNSUPPORTED_MEDIA_TYPE")
}

// A snapshot larger than the upload limit is refused with 413.
func TestSnapshotOverHTTPBounded(t *testing.T) {
	t.Parallel()
	srv := newServer(t, mockserver.WithMaxUploadSize(1<<10))
	body := `{"version":1,"workflows":[],"pad":"` + strings.Repeat("x", 2<<10) + `"}`
	wantError(t, do(t, srv, "PUT", "/_mock/snapshot", body), http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE")
}

func TestRequestRecordFilters(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	pid, _ := createProfile(t, srv, "Filtered")
	for range 3 {
		wantStatus(t, do(t, srv, "GET", "/v1/analyses/analysis_unknown000000000000", nil), http.StatusNotFound)
	}
	doJSON(t, srv, "GET", "/v1/profiles/"+pid, nil, http.StatusOK)

	list := func(query string) (count int, paths []string) {
		var page struct {
			Count int
			Items []struct {
				Method, Path string
				Status       int
			}
		}
		r := do(t, srv, "GET", "/_mock/requests"+query, nil)
		wantStatus(t, r, http.StatusOK)
		require.NoError(t, json.Unmarshal(r.Body, &page))
		for _, it := range page.Items {
			paths = append(paths, it.Method+" "+it.Path+fmt.Sprintf(" %d", it.Status))
		}
		return page.Count, paths
	}
	n, all := list("")
	require.Equal(t, 5, n, "%v", all)
	n, got := list("?status=404")
	assert.Equal(t, 3, n, "%v", got)
	n, got = list("?path=/v1/analyses/*&method=get")
	assert.Equal(t, 3, n, "%v", got)
	n, got = list("?limit=2")
	assert.Equal(t, all[3:], got, "limit keeps the newest, oldest first")
	assert.Equal(t, 2, n)
	n, got = list("?method=POST&status=201")
	assert.Equal(t, []string{"POST /v1/workflows/wf_default/profiles 201"}, got)
	assert.Equal(t, 1, n)
	n, _ = list("?method=DELETE")
	assert.Zero(t, n)

	for _, q := range []string{"?limit=0", "?limit=1001", "?limit=x", "?status=99", "?status=600", "?status=x", "?method=", "?method=G%20T", "?path=" + strings.Repeat("/a", 600), "?order=desc"} {
		t.Run(q, func(t *testing.T) {
			wantError(t, do(t, srv, "GET", "/_mock/requests"+q, nil), http.StatusBadRequest, "VALIDATION_ERROR")
		})
	}
}

// The dashboard's control routes answer as api/mock-control.yaml says,
// their errors included.
func TestDashboardRoutesAreTheControlDocument(t *testing.T) {
	t.Parallel()
	control, err := openapicheck.NewMockControl()
	require.NoError(t, err)
	srv := newServer(t, mockserver.WithManualAnalyses())
	pid, items := analysisFixture(t, srv)
	id := startAnalysis(t, srv, pid, items...)
	require.NoError(t, srv.CompleteAnalysis(id))
	snapshot := do(t, srv, "GET", "/_mock/snapshot", nil).Body
	tests := []request{
		{Method: "GET", Path: "/_mock/ui", Key: noKey},
		{Method: "GET", Path: "/_mock/ui/app.js", Key: noKey},
		{Method: "GET", Path: "/_mock/ui/style.css", Key: noKey},
		{Method: "GET", Path: "/_mock/state"},
		{Method: "GET", Path: "/_mock/state", Key: noKey},
		{Method: "GET", Path: "/_mock/snapshot"},
		{Method: "PUT", Path: "/_mock/snapshot", Body: snapshot, ContentType: "application/json"},
		{Method: "PUT", Path: "/_mock/snapshot", Body: []byte(`{"version":1,"workflows":[]}`), ContentType: "application/json"},
		{Method: "PUT", Path: "/_mock/snapshot", Body: snapshot, ContentType: "text/plain"},
		{Method: "GET", Path: "/_mock/requests?method=GET&path=/v1/*/*&status=200&limit=5"},
		{Method: "GET", Path: "/_mock/requests?limit=0"},
	}
	for _, r := range tests {
		t.Run(r.Method+" "+r.Path, func(t *testing.T) {
			resp := send(t, srv, r)
			header := http.Header{}
			if r.ContentType != "" {
				header.Set("Content-Type", r.ContentType)
			}
			if r.Key != noKey {
				header.Set("X-Api-Key", srv.APIKey)
			}
			err := control.Check(t.Context(), openapicheck.Exchange{
				Method: r.Method, URL: r.Path, Header: header, Body: r.Body,
				Status: resp.Status, ResponseHeader: resp.Header, ResponseBody: resp.Body,
			})
			assert.NoError(t, err, "%s", resp)
		})
	}
	// 304 too.
	first := do(t, srv, "GET", "/_mock/state", nil)
	header := http.Header{"If-None-Match": {first.Header.Get("ETag")}, "X-Api-Key": {srv.APIKey}}
	resp := send(t, srv, request{Method: "GET", Path: "/_mock/state", Header: header})
	wantStatus(t, resp, http.StatusNotModified)
	assert.NoError(t, control.Check(t.Context(), openapicheck.Exchange{
		Method: "GET", URL: "/_mock/state", Header: header, Status: resp.Status, ResponseHeader: resp.Header,
	}))
}
