package mockserver_test

// The request record: what it keeps of a request, its size, and how Reset
// and ClearRequests treat the requests under way.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

func TestKitRequestRecord(t *testing.T) {
	srv := mockserver.NewTest(t)
	c := srv.Client()
	ctx := t.Context()
	p, err := c.CreateProfile(ctx, mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Recorded", Metadata: profilesvc.Object{"k": "v"}})
	require.NoError(t, err)
	_, err = c.ListFoldersPage(ctx, p.ID, &profilesvc.ListParams{Limit: 2, Search: "def ault"})
	require.NoError(t, err)
	// An escaped ID, sent raw.
	wantError(t, do(t, srv, "GET", "/v1/profiles/pf%2Fodd%20id", nil), 404, "PROFILE_NOT_FOUND")
	// A wrong key is recorded too, redacted.
	wantError(t, send(t, srv, request{Method: "GET", Path: "/v1/profiles/" + p.ID, Key: "wrong-key-value"}), 401, "UNAUTHORIZED")
	// The control API is not recorded.
	wantStatus(t, do(t, srv, "GET", "/_mock/requests", nil), 200)
	wantStatus(t, do(t, srv, "GET", "/_mock/faults", nil), 200)

	reqs := srv.Requests()
	var recorded []string
	for _, r := range reqs {
		recorded = append(recorded, r.Method+" "+r.Path)
	}
	require.Len(t, reqs, 4, "recorded requests %q, want 4 (no /_mock/ calls)", recorded)
	create := reqs[0]
	assert.True(t, create.Method == "POST" && create.Path == "/v1/workflows/wf_default/profiles" && create.Status == 201,
		"first request = %s %s %d", create.Method, create.Path, create.Status)
	var body map[string]any
	assert.True(t, json.Unmarshal(create.Body, &body) == nil && body["name"] == "Recorded", "recorded body %q: want the JSON the client sent", create.Body)
	assert.Equal(t, "application/json", create.Header.Get("Content-Type"), "recorded Content-Type")
	assert.Equal(t, "[REDACTED]", create.Header.Get("X-Api-Key"), "recorded x-api-key")
	list := reqs[1]
	assert.True(t, list.Method == "GET" && list.Path == "/v1/profiles/"+p.ID+"/folders", "second request = %s %s", list.Method, list.Path)
	assert.True(t, list.Query.Get("limit") == "2" && list.Query.Get("search") == "def ault", "recorded query = %v, want limit=2 and search=\"def ault\"", list.Query)
	assert.Empty(t, list.Body, "a GET recorded a body %q", list.Body)
	assert.Equal(t, "/v1/profiles/pf%2Fodd%20id", reqs[2].Path, "recorded path, want the escaped path as sent")
	// A request that failed authentication: its method and path only.
	assert.True(t, reqs[3].Status == 401 && reqs[3].Header == nil && reqs[3].Body == nil && reqs[3].Method != "" && reqs[3].Path != "",
		"the wrong-key request is recorded as %+v, want 401 with its method and path only", reqs[3])

	// The key is nowhere in the record.
	all, err := json.Marshal(reqs)
	require.NoError(t, err)
	for _, secret := range []string{srv.APIKey, "wrong-key-value"} {
		assert.NotContains(t, string(all), secret, "the record holds the key %q", secret)
	}
	// Nor in the record served over HTTP.
	r := do(t, srv, "GET", "/_mock/requests", nil)
	assert.NotContains(t, string(r.Body), srv.APIKey, "GET /_mock/requests holds the key")

	srv.ClearRequests()
	assert.Empty(t, srv.Requests(), "Requests() after ClearRequests")
}

// TestKitRequestRecordBodyAsSent checks that the record holds the body the
// client sent even when no handler read it: an answer from a fault, an
// unknown route; but not of a request that failed authentication, whose
// method and path alone are kept. The record is there to assert on what a
// client sent, and a retried upload's first attempt is exactly what such a
// test checks.
func TestKitRequestRecordBodyAsSent(t *testing.T) {
	srv := mockserver.NewTest(t)
	p, _ := addProfile(t, srv.Tenant, "Body")
	_, err := srv.InjectFault(mockserver.Fault{Method: "PATCH", Path: "/v1/profiles/*", Status: 503, Times: 1})
	require.NoError(t, err)
	const body = `{"name":"renamed"}`
	wantError(t, do(t, srv, "PATCH", "/v1/profiles/"+p.ID, body), 503, "SERVICE_UNAVAILABLE")
	wantError(t, send(t, srv, request{Method: "PATCH", Path: "/v1/profiles/" + p.ID, Key: "wrong-key", Body: []byte(body), ContentType: "application/json"}), 401, "UNAUTHORIZED")
	wantError(t, do(t, srv, "PATCH", "/v1/nowhere", body), 404, "NOT_FOUND")
	wantStatus(t, do(t, srv, "PATCH", "/v1/profiles/"+p.ID, body), 200)
	reqs := srv.Requests()
	require.Len(t, reqs, 4, "recorded requests")
	for i, what := range []string{"answered by a fault", "refused with 401", "to an unknown route", "handled"} {
		want := body
		if i == 1 {
			want = "" // failed authentication: method and path only
		}
		assert.Equal(t, want, string(reqs[i].Body), "request %s: recorded body", what)
	}
}

func TestKitRequestRecordTruncatesLongBodies(t *testing.T) {
	srv := mockserver.NewTest(t)
	_, fid := addProfile(t, srv.Tenant, "Long")
	long := strings.Repeat("x", 100<<10)
	raw, _ := json.Marshal(map[string]any{"type": "text", "name": "long", "content": long})
	wantStatus(t, do(t, srv, "POST", "/v1/folders/"+fid+"/items", raw), 201)
	reqs := srv.Requests()
	last := reqs[len(reqs)-1]
	assert.True(t, len(last.Body) == 64<<10 && last.BodyTruncated && bytes.Equal(last.Body, raw[:64<<10]),
		"recorded %d bytes, truncated %v; want the first 64 KiB and the flag", len(last.Body), last.BodyTruncated)
}

func TestKitRequestRecordRing(t *testing.T) {
	srv := mockserver.NewTest(t, mockserver.WithRequestRecordSize(5))
	for i := range 8 {
		do(t, srv, "GET", fmt.Sprintf("/v1/profiles/pf_%d", i), nil)
	}
	var paths []string
	for _, r := range srv.Requests() {
		paths = append(paths, r.Path)
	}
	want := []string{"/v1/profiles/pf_3", "/v1/profiles/pf_4", "/v1/profiles/pf_5", "/v1/profiles/pf_6", "/v1/profiles/pf_7"}
	if diff := cmp.Diff(want, paths); diff != "" {
		t.Errorf("record after 8 requests (-want +got):\n%s", diff)
	}
	srv.ClearRequests()
	do(t, srv, "GET", "/v1/profiles/pf_after", nil)
	got := srv.Requests()
	assert.True(t, len(got) == 1 && got[0].Path == "/v1/profiles/pf_after", "record after ClearRequests and one request = %+v", got)

	t.Run("size 0 keeps none", func(t *testing.T) {
		srv := mockserver.NewTest(t, mockserver.WithRequestRecordSize(0))
		do(t, srv, "GET", "/v1/profiles/pf_x", nil)
		assert.Empty(t, srv.Requests(), "record of size 0")
	})
}

// TestKitResetDropsRequestsUnderWay holds a long poll, resets, and waits
// for the poll's 404: the poll arrived before the Reset, so the record it
// is answered into is empty, however the answer and the Reset interleave.
// A request that arrives after the Reset is recorded as usual.
func TestKitResetDropsRequestsUnderWay(t *testing.T) {
	fc := mockserver.NewFakeClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	srv := mockserver.NewTest(t, mockserver.WithManualAnalyses(), mockserver.WithClock(fc))
	pid, _, iid := addProfileWithItem(t, srv.Tenant, "Jane Doe")
	aid := startAnalysis(t, srv, pid, iid)
	poll := longPoll(t, srv, context.Background(), "/v1/analyses/"+aid+"?waitForReport=true&timeoutSeconds=10")
	blockUntil(t, fc, 1)

	srv.Reset()
	r := awaitAnswer(t, poll, 5*time.Second)
	wantError(t, r, 404, "ANALYSIS_NOT_FOUND")
	require.Empty(t, srv.Requests(), "the long poll held across Reset was recorded")

	after := do(t, srv, "GET", "/v1/profiles/"+pid, nil)
	wantError(t, after, 404, "PROFILE_NOT_FOUND")
	rs := srv.Requests()
	assert.True(t, len(rs) == 1 && rs[0].RequestID == after.Header.Get("X-Request-Id") && rs[0].Status == 404,
		"record after Reset and one request = %+v, want that request (%s) alone", rs, after.Header.Get("X-Request-Id"))
}

// TestKitClearRequestsDropsRequestsUnderWay holds a long poll, clears the
// record, then lets the poll time out: it arrived before ClearRequests, so
// it is not recorded when it is answered.
func TestKitClearRequestsDropsRequestsUnderWay(t *testing.T) {
	fc := mockserver.NewFakeClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	srv := mockserver.NewTest(t, mockserver.WithManualAnalyses(), mockserver.WithClock(fc))
	pid, _, iid := addProfileWithItem(t, srv.Tenant, "Jane Doe")
	aid := startAnalysis(t, srv, pid, iid)
	poll := longPoll(t, srv, context.Background(), "/v1/analyses/"+aid+"?waitForReport=true&timeoutSeconds=10")
	blockUntil(t, fc, 1)

	srv.ClearRequests()
	fc.Advance(10 * time.Second)
	wantStatus(t, awaitAnswer(t, poll, 5*time.Second), 200)
	require.Empty(t, srv.Requests(), "the long poll held across ClearRequests was recorded")

	// Over HTTP too, and the record goes on with the next request.
	poll = longPoll(t, srv, context.Background(), "/v1/analyses/"+aid+"?waitForReport=true&timeoutSeconds=10")
	blockUntil(t, fc, 1)
	wantStatus(t, do(t, srv, "DELETE", "/_mock/requests", nil), 204)
	after := do(t, srv, "GET", "/v1/analyses/"+aid, nil)
	wantStatus(t, after, 200)
	fc.Advance(10 * time.Second)
	wantStatus(t, awaitAnswer(t, poll, 5*time.Second), 200)
	rs := srv.Requests()
	assert.True(t, len(rs) == 1 && rs[0].RequestID == after.Header.Get("X-Request-Id"),
		"record = %+v, want the request after the clearing (%s) alone", rs, after.Header.Get("X-Request-Id"))
}
