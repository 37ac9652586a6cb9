package mockserver_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

// TestRequestIDs sends every kind of request the mock answers and checks
// that each answer carries a well-formed request ID of its own in
// X-Request-Id, and that the request record holds each recorded request
// under the ID its answer carried.
func TestRequestIDs(t *testing.T) {
	t.Parallel()
	fake := mockserver.NewFakeClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	srv := newServer(t, mockserver.WithManualAnalyses(), mockserver.WithClock(fake))
	pid, items := analysisFixture(t, srv)
	srv.ClearRequests()
	profile := "/v1/profiles/" + pid

	type answer struct {
		name   string
		method string
		path   string // without the query
		resp   *response
		status int
		// recorded is false for the control API, which the record leaves
		// out.
		recorded bool
	}
	var answers []answer
	sendAs := func(name string, r request, status int, recorded bool) *response {
		t.Helper()
		resp := send(t, srv, r)
		require.Equal(t, status, resp.Status, "%s: status of the answer %s", name, resp)
		path, _, _ := strings.Cut(r.Path, "?")
		answers = append(answers, answer{name, r.Method, path, resp, status, recorded})
		return resp
	}

	sendAs("success", request{Method: "GET", Path: profile}, 200, true)
	sendAs("created", request{Method: "POST", Path: "/v1/profiles/" + pid + "/folders", JSON: map[string]any{"name": "more"}}, 201, true)
	sendAs("wrong key", request{Method: "GET", Path: profile, Key: "not-the-key"}, 401, true)
	sendAs("no key", request{Method: "GET", Path: profile, Key: noKey}, 401, true)
	sendAs("unknown route", request{Method: "GET", Path: "/v1/nowhere"}, 404, true)
	sendAs("method not allowed", request{Method: "PUT", Path: profile, JSON: map[string]any{"name": "x"}}, 405, true)
	sendAs("validation", request{Method: "POST", Path: "/v1/workflows/wf_default/profiles", JSON: map[string]any{"name": 7}}, 400, true)
	sendAs("unsupported media type", request{Method: "PATCH", Path: profile, Body: []byte(`{}`), ContentType: "text/plain"}, 415, true)
	_, err := srv.InjectFault(mockserver.Fault{Method: "GET", Path: "/v1/profiles/*", Status: 503, RetryAfter: time.Second, Times: 1})
	require.NoError(t, err)
	fault := sendAs("injected fault", request{Method: "GET", Path: profile}, 503, true)
	assert.Equal(t, "1", fault.Header.Get("Retry-After"), "the fault's answer lost its Retry-After: %v", fault.Header)

	// A long poll, answered when the analysis completes.
	started := sendAs("start analysis", request{Method: "POST", Path: "/v1/analyses/" + pid + "/analyze", JSON: targets(items...)}, 202, true)
	id := stringField(t, "analysis", jsonObject(t, started, 202), "id")
	poll := longPoll(t, srv, context.Background(), "/v1/analyses/"+id+"?waitForReport=true&timeoutSeconds=60")
	blockUntil(t, fake, 1) // the long poll is held
	require.NoError(t, srv.CompleteAnalysis(id))
	polled := awaitAnswer(t, poll, 5*time.Second)
	require.Equal(t, 200, polled.Status, "long poll: %s", polled)
	answers = append(answers, answer{"long poll", "GET", "/v1/analyses/" + id, polled, 200, true})
	pdf := sendAs("PDF report", request{Method: "GET", Path: "/v1/analyses/" + id + "/report?locale=ko"}, 200, true)
	assert.Equal(t, "application/pdf", pdf.Header.Get("Content-Type"), "report Content-Type")
	sendAs("no content", request{Method: "DELETE", Path: "/v1/analyses/" + id}, 204, true)

	// The control API.
	sendAs("control: list", request{Method: "GET", Path: "/_mock/faults"}, 200, false)
	sendAs("control: create", request{Method: "POST", Path: "/_mock/faults", JSON: map[string]any{"path": "/nothing", "status": 500}}, 201, false)
	sendAs("control: error", request{Method: "DELETE", Path: "/_mock/faults/fault_missing"}, 404, false)
	sendAs("control: wrong key", request{Method: "GET", Path: "/_mock/requests", Key: "not-the-key"}, 401, false)

	records := srv.Requests()
	byID := map[string]mockserver.RecordedRequest{}
	for _, r := range records {
		_, dup := byID[r.RequestID]
		assert.False(t, dup, "two recorded requests have the ID %s", r.RequestID)
		byID[r.RequestID] = r
	}
	seen := map[string]string{}
	recorded := 0
	for _, a := range answers {
		assert.Len(t, a.resp.Header.Values("X-Request-Id"), 1, "%s: X-Request-Id = %q, want one value", a.name, a.resp.Header.Values("X-Request-Id"))
		rid := a.resp.Header.Get("X-Request-Id")
		assert.Regexp(t, requestIDPattern, rid, "%s: request ID %q, want req_ and 20 base32 characters", a.name, rid)
		other, dup := seen[rid]
		assert.False(t, dup, "%s: request ID %s is also that of %s", a.name, rid, other)
		seen[rid] = a.name
		if a.recorded {
			recorded++
		}
		rec, ok := byID[rid]
		if !a.recorded {
			assert.False(t, ok, "%s: the control API was recorded as %+v", a.name, rec)
			continue
		}
		if assert.True(t, ok, "%s: no recorded request has the answer's ID %s", a.name, rid) {
			assert.True(t, rec.Method == a.method && rec.Path == a.path && rec.Status == a.status,
				"%s: the record's request %s is %s %s %d, want %s %s %d", a.name, rid, rec.Method, rec.Path, rec.Status, a.method, a.path, a.status)
		}
	}
	assert.Len(t, records, recorded, "requests recorded")

	// The record over HTTP holds the IDs too.
	var list struct {
		Items []map[string]any `json:"items"`
	}
	decode(t, do(t, srv, "GET", "/_mock/requests", nil), &list)
	require.Len(t, list.Items, len(records), "requests GET /_mock/requests lists")
	for i, item := range list.Items {
		assert.Equal(t, records[i].RequestID, item["requestId"], "GET /_mock/requests item %d: requestId", i)
	}
}

// TestRequestIDsThroughTheSDK matches an SDK error to its recorded request
// by its request ID.
func TestRequestIDsThroughTheSDK(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := srv.Client(profilesvc.WithMaxRetries(0))
	_, err := c.GetProfile(t.Context(), "pf_missing")
	var apiErr *profilesvc.APIError
	require.ErrorAs(t, err, &apiErr, "GetProfile of a missing profile, want an *APIError")
	require.Regexp(t, requestIDPattern, apiErr.RequestID, "APIError.RequestID = %q, want a req_ ID", apiErr.RequestID)
	rs := srv.Requests()
	i := slices.IndexFunc(rs, func(r mockserver.RecordedRequest) bool { return r.RequestID == apiErr.RequestID })
	require.GreaterOrEqual(t, i, 0, "no recorded request has the error's ID %s: %+v", apiErr.RequestID, rs)
	assert.True(t, rs[i].Path == "/v1/profiles/pf_missing" && rs[i].Status == 404, "the error's request is recorded as %s %s %d", rs[i].Method, rs[i].Path, rs[i].Status)
}

// TestRequestIDsSeeded checks that WithIDSeed makes request IDs
// deterministic, and that they are a sequence of their own: requests that
// create nothing leave the IDs of resources as they would be without
// them.
func TestRequestIDsSeeded(t *testing.T) {
	t.Parallel()
	// run creates a profile and a folder, with `reads` reads before each,
	// and returns the resources' IDs and the answers' request IDs.
	run := func(seed uint64, reads int) (ids, requestIDs []string) {
		srv := newServer(t, mockserver.WithIDSeed(seed))
		call := func(method, path string, body any, status int) map[string]any {
			r := do(t, srv, method, path, body)
			requestIDs = append(requestIDs, r.Header.Get("X-Request-Id"))
			require.Equal(t, status, r.Status, "%s %s: %s", method, path, r)
			var m map[string]any
			_ = json.Unmarshal(r.Body, &m)
			return m
		}
		for range reads {
			call("GET", "/v1/workflows/wf_default/profiles", nil, 200)
		}
		p := call("POST", "/v1/workflows/wf_default/profiles", map[string]any{"name": "Seeded"}, 201)
		pid := p["id"].(string)
		for range reads {
			call("GET", "/v1/profiles/"+pid, nil, 200)
			call("GET", "/v1/nowhere", nil, 404)
		}
		f := call("POST", "/v1/profiles/"+pid+"/folders", map[string]any{"name": "second"}, 201)
		return []string{pid, f["id"].(string)}, requestIDs
	}
	ids, reqs := run(7, 0)
	ids2, reqs2 := run(7, 0)
	if diff := cmp.Diff(reqs, reqs2); diff != "" {
		t.Errorf("two servers with ID seed 7 answered with different request IDs (-first +second):\n%s", diff)
	}
	if diff := cmp.Diff(ids, ids2); diff != "" {
		t.Errorf("two servers with ID seed 7 gave resources different IDs (-first +second):\n%s", diff)
	}
	for _, id := range reqs {
		assert.Regexp(t, requestIDPattern, id, "request ID %q, want req_ and 20 base32 characters", id)
	}
	_, reqs8 := run(8, 0)
	assert.NotEqual(t, reqs, reqs8, "ID seeds 7 and 8 gave the same request IDs %v", reqs)
	busy, busyReqs := run(7, 3)
	if diff := cmp.Diff(ids, busy); diff != "" {
		t.Errorf("reads between the creations changed the seeded IDs of resources (-want +got):\n%s", diff)
	}
	// The n-th answer's request ID depends on the seed and n alone.
	if diff := cmp.Diff(reqs, busyReqs[:len(reqs)]); diff != "" {
		t.Errorf("seeded request IDs do not start as those of a run without reads (-want +got):\n%s", diff)
	}
}
