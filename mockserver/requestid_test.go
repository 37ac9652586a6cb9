package mockserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

// hRequestIDPattern is a well-formed request ID: req_ and the 20 base32
// characters of every server ID.
var hRequestIDPattern = regexp.MustCompile(`^req_[0-9a-hjkmnp-tv-z]{20}$`)

// TestRequestIDs sends every kind of request the mock answers and checks
// that each answer carries a well-formed request ID of its own in
// X-Request-Id, and that the request record holds each recorded request
// under the ID its answer carried.
func TestRequestIDs(t *testing.T) {
	t.Parallel()
	fake := mockserver.NewFakeClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	srv := hNew(t, mockserver.WithManualAnalyses(), mockserver.WithClock(fake))
	pid, items := hAnalysisFixture(t, srv)
	srv.ClearRequests()
	profile := "/v1/profiles/" + pid

	type answer struct {
		name   string
		method string
		path   string // without the query
		resp   *hResp
		status int
		// recorded is false for the control API, which the record leaves
		// out.
		recorded bool
	}
	var answers []answer
	send := func(name string, r hReq, status int, recorded bool) *hResp {
		t.Helper()
		resp := hSend(t, srv, r)
		if resp.Status != status {
			t.Fatalf("%s: status %d, want %d; answer %s", name, resp.Status, status, resp)
		}
		path, _, _ := strings.Cut(r.Path, "?")
		answers = append(answers, answer{name, r.Method, path, resp, status, recorded})
		return resp
	}

	send("success", hReq{Method: "GET", Path: profile}, 200, true)
	send("created", hReq{Method: "POST", Path: "/v1/profiles/" + pid + "/folders", JSON: map[string]any{"name": "more"}}, 201, true)
	send("wrong key", hReq{Method: "GET", Path: profile, Key: "not-the-key"}, 401, true)
	send("no key", hReq{Method: "GET", Path: profile, Key: hNoKey}, 401, true)
	send("unknown route", hReq{Method: "GET", Path: "/v1/nowhere"}, 404, true)
	send("method not allowed", hReq{Method: "PUT", Path: profile, JSON: map[string]any{"name": "x"}}, 405, true)
	send("validation", hReq{Method: "POST", Path: "/v1/workflows/wf_default/profiles", JSON: map[string]any{"name": 7}}, 400, true)
	send("unsupported media type", hReq{Method: "PATCH", Path: profile, Body: []byte(`{}`), ContentType: "text/plain"}, 415, true)
	if _, err := srv.InjectFault(mockserver.Fault{Method: "GET", Path: "/v1/profiles/*", Status: 503, RetryAfter: time.Second, Times: 1}); err != nil {
		t.Fatal(err)
	}
	fault := send("injected fault", hReq{Method: "GET", Path: profile}, 503, true)
	if fault.Header.Get("Retry-After") != "1" {
		t.Errorf("the fault's answer lost its Retry-After: %v", fault.Header)
	}

	// A long poll, answered when the analysis completes.
	started := send("start analysis", hReq{Method: "POST", Path: "/v1/analyses/" + pid + "/analyze", JSON: hTargets(items...)}, 202, true)
	id := hStr(t, "analysis", hObj(t, started, 202), "id")
	poll := hLongPoll(t, srv, context.Background(), "/v1/analyses/"+id+"?waitForReport=true&timeoutSeconds=60")
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	if err := fake.BlockUntil(ctx, 1); err != nil {
		t.Fatalf("the long poll is not held: %v", err)
	}
	if err := srv.CompleteAnalysis(id); err != nil {
		t.Fatal(err)
	}
	p := hAwait(t, poll, 5*time.Second)
	if p.err != nil {
		t.Fatal(p.err)
	}
	if p.resp.Status != 200 {
		t.Fatalf("long poll: %s", p.resp)
	}
	answers = append(answers, answer{"long poll", "GET", "/v1/analyses/" + id, p.resp, 200, true})
	pdf := send("PDF report", hReq{Method: "GET", Path: "/v1/analyses/" + id + "/report?locale=ko"}, 200, true)
	if ct := pdf.Header.Get("Content-Type"); ct != "application/pdf" {
		t.Errorf("report Content-Type = %q", ct)
	}
	send("no content", hReq{Method: "DELETE", Path: "/v1/analyses/" + id}, 204, true)

	// The control API.
	send("control: list", hReq{Method: "GET", Path: "/_mock/faults"}, 200, false)
	send("control: create", hReq{Method: "POST", Path: "/_mock/faults", JSON: map[string]any{"path": "/nothing", "status": 500}}, 201, false)
	send("control: error", hReq{Method: "DELETE", Path: "/_mock/faults/fault_missing"}, 404, false)
	send("control: wrong key", hReq{Method: "GET", Path: "/_mock/requests", Key: "not-the-key"}, 401, false)

	records := srv.Requests()
	byID := map[string]mockserver.RecordedRequest{}
	for _, r := range records {
		if _, dup := byID[r.RequestID]; dup {
			t.Errorf("two recorded requests have the ID %s", r.RequestID)
		}
		byID[r.RequestID] = r
	}
	seen := map[string]string{}
	recorded := 0
	for _, a := range answers {
		if got := a.resp.Header.Values("X-Request-Id"); len(got) != 1 {
			t.Errorf("%s: X-Request-Id = %q, want one value", a.name, got)
		}
		rid := a.resp.Header.Get("X-Request-Id")
		if !hRequestIDPattern.MatchString(rid) {
			t.Errorf("%s: request ID %q, want req_ and 20 base32 characters", a.name, rid)
		}
		if other, dup := seen[rid]; dup {
			t.Errorf("%s: request ID %s is also that of %s", a.name, rid, other)
		}
		seen[rid] = a.name
		if a.recorded {
			recorded++
		}
		rec, ok := byID[rid]
		switch {
		case !a.recorded && ok:
			t.Errorf("%s: the control API was recorded as %+v", a.name, rec)
		case a.recorded && !ok:
			t.Errorf("%s: no recorded request has the answer's ID %s", a.name, rid)
		case a.recorded && (rec.Method != a.method || rec.Path != a.path || rec.Status != a.status):
			t.Errorf("%s: the record's request %s is %s %s %d, want %s %s %d",
				a.name, rid, rec.Method, rec.Path, rec.Status, a.method, a.path, a.status)
		}
	}
	if len(records) != recorded {
		t.Errorf("%d requests recorded, want %d", len(records), recorded)
	}

	// The record over HTTP holds the IDs too.
	var list struct {
		Items []map[string]any `json:"items"`
	}
	hDecode(t, hDo(t, srv, "GET", "/_mock/requests", nil), &list)
	if len(list.Items) != len(records) {
		t.Fatalf("GET /_mock/requests lists %d requests, want %d", len(list.Items), len(records))
	}
	for i, item := range list.Items {
		if item["requestId"] != records[i].RequestID {
			t.Errorf("GET /_mock/requests item %d: requestId %v, want %s", i, item["requestId"], records[i].RequestID)
		}
	}
}

// TestRequestIDsThroughTheSDK matches an SDK error to its recorded request
// by its request ID.
func TestRequestIDsThroughTheSDK(t *testing.T) {
	t.Parallel()
	srv := hNew(t)
	c := srv.Client(profilesvc.WithMaxRetries(0))
	_, err := c.GetProfile(t.Context(), "pf_missing")
	var apiErr *profilesvc.APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("GetProfile of a missing profile = %v, want an *APIError", err)
	}
	if !hRequestIDPattern.MatchString(apiErr.RequestID) {
		t.Fatalf("APIError.RequestID = %q, want a req_ ID", apiErr.RequestID)
	}
	rs := srv.Requests()
	i := slices.IndexFunc(rs, func(r mockserver.RecordedRequest) bool { return r.RequestID == apiErr.RequestID })
	if i < 0 {
		t.Fatalf("no recorded request has the error's ID %s: %+v", apiErr.RequestID, rs)
	}
	if rs[i].Path != "/v1/profiles/pf_missing" || rs[i].Status != 404 {
		t.Errorf("the error's request is recorded as %s %s %d", rs[i].Method, rs[i].Path, rs[i].Status)
	}
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
		srv := hNew(t, mockserver.WithIDSeed(seed))
		do := func(method, path string, body any, status int) map[string]any {
			r := hDo(t, srv, method, path, body)
			requestIDs = append(requestIDs, r.Header.Get("X-Request-Id"))
			if r.Status != status {
				t.Fatalf("%s %s: %s", method, path, r)
			}
			var m map[string]any
			_ = json.Unmarshal(r.Body, &m)
			return m
		}
		for range reads {
			do("GET", "/v1/workflows/wf_default/profiles", nil, 200)
		}
		p := do("POST", "/v1/workflows/wf_default/profiles", map[string]any{"name": "Seeded"}, 201)
		pid := p["id"].(string)
		for range reads {
			do("GET", "/v1/profiles/"+pid, nil, 200)
			do("GET", "/v1/nowhere", nil, 404)
		}
		f := do("POST", "/v1/profiles/"+pid+"/folders", map[string]any{"name": "second"}, 201)
		return []string{pid, f["id"].(string)}, requestIDs
	}
	ids, reqs := run(7, 0)
	ids2, reqs2 := run(7, 0)
	if !slices.Equal(reqs, reqs2) || !slices.Equal(ids, ids2) {
		t.Errorf("two servers with ID seed 7 answered with request IDs %v and %v, resources %v and %v", reqs, reqs2, ids, ids2)
	}
	for _, id := range reqs {
		if !hRequestIDPattern.MatchString(id) {
			t.Errorf("request ID %q, want req_ and 20 base32 characters", id)
		}
	}
	if _, reqs8 := run(8, 0); slices.Equal(reqs, reqs8) {
		t.Errorf("ID seeds 7 and 8 gave the same request IDs %v", reqs)
	}
	busy, busyReqs := run(7, 3)
	if !slices.Equal(ids, busy) {
		t.Errorf("reads between the creations changed the seeded IDs of resources: %v, want %v", busy, ids)
	}
	// The n-th answer's request ID depends on the seed and n alone.
	if !slices.Equal(reqs, busyReqs[:len(reqs)]) {
		t.Errorf("seeded request IDs %v do not start as %v", busyReqs, reqs)
	}
}
