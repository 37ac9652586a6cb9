package mockserver_test

// The request record: what it keeps of a request, its size, and how Reset
// and ClearRequests treat the requests under way; AwaitRequest,
// RequestMatch, RequestsMatching and ExpectRequests; recorded bodies as
// the kit and GET /_mock/requests give them. Every wait is for an event (a
// kit wait that has begun, an answer on a channel), never for a fixed
// time.

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
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

func TestKitRequestRecord(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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

// ---------------------------------------------------------------------
// AwaitRequest.

func TestKitAwaitRequest(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	p, _ := addProfile(t, srv.Tenant, "Jane Doe")
	getProfile := mockserver.RequestMatch{Method: "GET", Path: "/v1/profiles/*"}
	cancelled, cancel := context.WithCancel(t.Context())
	cancel() // a wait with it must not wait at all

	t.Run("a request sent after the wait began", func(t *testing.T) {
		srv.ClearRequests()
		ctx, cancel := newWatchedCtx(t.Context())
		defer cancel()
		got := goCall(func() (mockserver.RecordedRequest, error) { return srv.AwaitRequest(ctx, getProfile) })
		receive(t, ctx.waiting, "AwaitRequest to begin waiting")
		// One that does not match first: it must not end the wait.
		wantStatus(t, awaitAnswer(t, goSend(t, srv, request{Method: "GET", Path: "/v1/profiles/" + p.ID + "/folders"}), time.Minute), 200)
		answer := awaitAnswer(t, goSend(t, srv, request{Method: "GET", Path: "/v1/profiles/" + p.ID}), time.Minute)
		res := receive(t, got, "AwaitRequest")
		require.NoError(t, res.err, "AwaitRequest")
		assert.Equal(t, answer.Header.Get("X-Request-Id"), res.v.RequestID, "AwaitRequest returned %s %s, want the request sent", res.v.Method, res.v.Path)
		assert.True(t, res.v.Method == "GET" && res.v.Path == "/v1/profiles/"+p.ID && res.v.Status == 200,
			"AwaitRequest = %s %s → %d", res.v.Method, res.v.Path, res.v.Status)
	})

	t.Run("one already recorded, at once", func(t *testing.T) {
		srv.ClearRequests()
		first := do(t, srv, "GET", "/v1/profiles/"+p.ID, nil)
		wantStatus(t, do(t, srv, "GET", "/v1/profiles/pf_missing", nil), 404)
		got, err := srv.AwaitRequest(cancelled, getProfile)
		require.NoError(t, err, "AwaitRequest of a request already recorded, with a cancelled context")
		assert.Equal(t, first.Header.Get("X-Request-Id"), got.RequestID, "want the first request that matches, got %s %s", got.Method, got.Path)
	})

	t.Run("only since ClearRequests", func(t *testing.T) {
		srv.ClearRequests()
		wantStatus(t, do(t, srv, "GET", "/v1/profiles/"+p.ID, nil), 200)
		srv.ClearRequests()
		_, err := srv.AwaitRequest(cancelled, getProfile)
		require.ErrorIs(t, err, context.Canceled, "AwaitRequest after ClearRequests: the request before it must not count")

		ctx, cancel := newWatchedCtx(t.Context())
		defer cancel()
		got := goCall(func() (mockserver.RecordedRequest, error) { return srv.AwaitRequest(ctx, getProfile) })
		receive(t, ctx.waiting, "AwaitRequest to begin waiting")
		answer := awaitAnswer(t, goSend(t, srv, request{Method: "GET", Path: "/v1/profiles/pf_after"}), time.Minute)
		res := receive(t, got, "AwaitRequest")
		require.NoError(t, res.err, "AwaitRequest")
		assert.True(t, res.v.RequestID == answer.Header.Get("X-Request-Id") && res.v.Path == "/v1/profiles/pf_after",
			"AwaitRequest = %s %s, want the request sent after ClearRequests", res.v.Method, res.v.Path)
	})

	t.Run("context cancelled", func(t *testing.T) {
		srv.ClearRequests()
		ctx, cancel := newWatchedCtx(t.Context())
		got := goCall(func() (mockserver.RecordedRequest, error) { return srv.AwaitRequest(ctx, getProfile) })
		receive(t, ctx.waiting, "AwaitRequest to begin waiting")
		cancel()
		res := receive(t, got, "AwaitRequest")
		require.ErrorIs(t, res.err, context.Canceled, "AwaitRequest when its context is cancelled")
		assert.Contains(t, res.err.Error(), "/v1/profiles/*", "the error names what was awaited")
	})
}

// ---------------------------------------------------------------------
// RequestMatch, RequestsMatching, ExpectRequests.

// recordMatchFixture sends the requests the matching tests select from
// and returns their request IDs, in order, and the profile's ID:
//
//	0 POST   /v1/workflows/wf_default/profiles                → 201
//	1 GET    /v1/profiles/{p}                                 → 200
//	2 GET    /v1/workflows/wf_default/profiles?limit=2&search=Jane → 200
//	3 GET    /v1/profiles/pf%2Fx                              → 404
//	4 GET    /v1/profiles/pf%20y                              → 404
//	5 DELETE /v1/profiles/pf_missing                          → 404
//	6 GET    /v1/profiles/{p}/folders                         → 200
func recordMatchFixture(t *testing.T, srv *mockserver.Server) (ids []string, profileID string) {
	t.Helper()
	srv.ClearRequests()
	created := do(t, srv, "POST", "/v1/workflows/wf_default/profiles", map[string]any{"name": "Jane Doe"})
	wantStatus(t, created, 201)
	var p struct{ ID string }
	decode(t, created, &p)
	answers := []*response{created}
	for _, r := range []struct {
		method, path string
		status       int
	}{
		{"GET", "/v1/profiles/" + p.ID, 200},
		{"GET", "/v1/workflows/wf_default/profiles?limit=2&search=Jane", 200},
		{"GET", "/v1/profiles/pf%2Fx", 404},
		{"GET", "/v1/profiles/pf%20y", 404},
		{"DELETE", "/v1/profiles/pf_missing", 404},
		{"GET", "/v1/profiles/" + p.ID + "/folders", 200},
	} {
		a := do(t, srv, r.method, r.path, nil)
		wantStatus(t, a, r.status)
		answers = append(answers, a)
	}
	for _, a := range answers {
		ids = append(ids, a.Header.Get("X-Request-Id"))
	}
	require.Len(t, srv.Requests(), len(ids), "recorded requests")
	return ids, p.ID
}

func TestKitRequestsMatching(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	ids, pid := recordMatchFixture(t, srv)
	tests := []struct {
		name  string
		match mockserver.RequestMatch
		want  []int // indexes of recordMatchFixture's requests
	}{
		{"empty matches all, oldest first", mockserver.RequestMatch{}, []int{0, 1, 2, 3, 4, 5, 6}},
		{"method in any case", mockserver.RequestMatch{Method: "get"}, []int{1, 2, 3, 4, 6}},
		{"* is one segment, an escaped slash in it", mockserver.RequestMatch{Path: "/v1/profiles/*"}, []int{1, 3, 4, 5}},
		{"* between literals", mockserver.RequestMatch{Path: "/v1/profiles/*/folders"}, []int{6}},
		{"literal ID", mockserver.RequestMatch{Path: "/v1/profiles/" + pid}, []int{1}},
		{"escaped segment by its unescaped form", mockserver.RequestMatch{Path: "/v1/profiles/pf y"}, []int{4}},
		{"segments counted", mockserver.RequestMatch{Path: "/v1/profiles"}, nil},
		{"query subset", mockserver.RequestMatch{Query: url.Values{"limit": {"2"}}}, []int{2}},
		{"query in full", mockserver.RequestMatch{Query: url.Values{"limit": {"2"}, "search": {"Jane"}}}, []int{2}},
		{"query of another value", mockserver.RequestMatch{Query: url.Values{"limit": {"3"}}}, nil},
		{"query parameter absent", mockserver.RequestMatch{Query: url.Values{"cursor": {"c"}}}, nil},
		{"status", mockserver.RequestMatch{Status: 404}, []int{3, 4, 5}},
		{"every field", mockserver.RequestMatch{Method: "GET", Path: "/v1/profiles/*", Status: 404}, []int{3, 4}},
		{"no such method", mockserver.RequestMatch{Method: "PUT"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := []string{}
			for _, i := range tt.want {
				want = append(want, ids[i])
			}
			got := srv.RequestsMatching(tt.match)
			if diff := cmp.Diff(want, requestIDs(got)); diff != "" {
				t.Errorf("RequestsMatching(%s): request IDs differ (-want +got):\n%s", tt.match, diff)
			}
			for _, r := range srv.Requests() {
				assert.Equal(t, slices.Contains(want, r.RequestID), tt.match.Matches(r), "(%s).Matches(%s %s → %d)", tt.match, r.Method, r.Path, r.Status)
			}
		})
	}
}

// TestKitRequestMatchSlashInID matches a request for an ID that holds an
// escaped slash by the ID as it is, unescaped, as RequestMatch.Path says
// ("a route pattern on the path's unescaped segments ... an ID may be
// given literally").
func TestKitRequestMatchSlashInID(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	ids, _ := recordMatchFixture(t, srv)
	got := srv.RequestsMatching(mockserver.RequestMatch{Path: "/v1/profiles/" + "pf/x"})
	if diff := cmp.Diff([]string{ids[3]}, requestIDs(got)); diff != "" {
		t.Errorf("RequestsMatching the ID pf/x (-want +got):\n%s", diff)
	}
}

func TestKitExpectRequests(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	ids, pid := recordMatchFixture(t, srv)
	reqs := srv.Requests()
	// shown matches the line of the message that shows request i: its
	// method and path, then its query or its status.
	shown := func(i int) *regexp.Regexp {
		return regexp.MustCompile(regexp.QuoteMeta(reqs[i].Method+" "+reqs[i].Path) + `[ ?]`)
	}
	require.Len(t, ids, 7)

	t.Run("exactly n passes", func(t *testing.T) {
		for _, tt := range []struct {
			match mockserver.RequestMatch
			n     int
		}{
			{mockserver.RequestMatch{Method: "GET", Path: "/v1/profiles/*"}, 3},
			{mockserver.RequestMatch{Status: 404}, 3},
			{mockserver.RequestMatch{Method: "PUT"}, 0},
			{mockserver.RequestMatch{}, 7},
		} {
			tb := &recordedErrors{TB: t}
			srv.ExpectRequests(tb, tt.match, tt.n)
			assert.Empty(t, tb.messages(), "ExpectRequests(%s, %d) failed the test", tt.match, tt.n)
		}
	})

	tests := []struct {
		name  string
		match mockserver.RequestMatch
		n     int
		field string // the field the near miss differs in
		near  []int  // the near misses, by index
		far   []int  // requests differing in more than one field: not listed
	}{
		{name: "path", match: mockserver.RequestMatch{Method: "GET", Path: "/v1/profiles/" + pid + "/items", Status: 200}, n: 1,
			field: "path", near: []int{1, 2, 6}, far: []int{0, 3}},
		{name: "query", match: mockserver.RequestMatch{Method: "GET", Path: "/v1/workflows/*/profiles", Query: url.Values{"limit": {"5"}}}, n: 1,
			field: "query", near: []int{2}, far: []int{0, 1}},
		{name: "method", match: mockserver.RequestMatch{Method: "PATCH", Path: "/v1/profiles/pf_missing"}, n: 1,
			field: "method", near: []int{5}, far: []int{1, 0}},
		{name: "status", match: mockserver.RequestMatch{Method: "GET", Path: "/v1/profiles/*", Status: 200}, n: 2,
			field: "status", near: []int{3, 4}, far: []int{5, 0}},
	}
	for _, tt := range tests {
		t.Run("near misses differing in "+tt.name, func(t *testing.T) {
			tb := &recordedErrors{TB: t}
			srv.ExpectRequests(tb, tt.match, tt.n)
			msg := tb.messages()
			require.NotEmpty(t, msg, "ExpectRequests(%s, %d) did not fail", tt.match, tt.n)
			assert.Contains(t, msg, fmt.Sprintf("want %d", tt.n), "the message gives the number wanted")
			lines := strings.Split(msg, "\n")
			for _, i := range tt.near {
				assert.True(t, slices.ContainsFunc(lines, func(l string) bool {
					return shown(i).MatchString(l) && strings.Contains(l, "differs in "+tt.field)
				}), "the message does not list %s %s as differing in %s:\n%s", reqs[i].Method, reqs[i].Path, tt.field, msg)
			}
			for _, i := range tt.far {
				assert.False(t, shown(i).MatchString(msg), "%s %s, differing in more than one field, is listed:\n%s", reqs[i].Method, reqs[i].Path, msg)
			}
		})
	}

	t.Run("too many", func(t *testing.T) {
		tb := &recordedErrors{TB: t}
		srv.ExpectRequests(tb, mockserver.RequestMatch{Status: 404}, 1)
		assert.Contains(t, tb.messages(), "3 requests match", "ExpectRequests with more matches than wanted")
	})
}

// ---------------------------------------------------------------------
// Recorded bodies.

func TestKitRecordedBodies(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	p, fid := addProfile(t, srv.Tenant, "Bodies")
	const text = "name=Letters & <more>"
	wantStatus(t, do(t, srv, "POST", "/v1/workflows/wf_default/profiles", map[string]any{"name": "Jane Doe", "metadata": map[string]any{"tier": "gold"}}), 201)
	wantError(t, send(t, srv, request{Method: "POST", Path: "/v1/profiles/" + p.ID + "/folders", Body: []byte(text), ContentType: "text/plain"}), 415, "UNSUPPORTED_MEDIA_TYPE")
	upBody, upType := multipartBody(t, "scan.png", pngBytes)
	wantStatus(t, send(t, srv, request{Method: "POST", Path: "/v1/folders/" + fid + "/items", Body: upBody, ContentType: upType}), 201)
	reqs := srv.Requests()
	require.Len(t, reqs, 3)
	jsonReq, textReq, binReq := reqs[0], reqs[1], reqs[2]

	t.Run("BodyText and DecodeJSON", func(t *testing.T) {
		var body struct {
			Name     string
			Metadata map[string]any
		}
		require.NoError(t, jsonReq.DecodeJSON(&body), "DecodeJSON of a JSON body")
		assert.True(t, body.Name == "Jane Doe" && body.Metadata["tier"] == "gold", "DecodeJSON = %+v", body)
		assert.JSONEq(t, `{"name":"Jane Doe","metadata":{"tier":"gold"}}`, jsonReq.BodyText(), "BodyText of a JSON body")
		assert.Equal(t, text, textReq.BodyText(), "BodyText of a text body")
		var v any
		err := textReq.DecodeJSON(&v)
		require.Error(t, err, "DecodeJSON of a text body")
		assert.Contains(t, err.Error(), textReq.Path, "the error names the request")
		assert.Equal(t, string(upBody), binReq.BodyText(), "BodyText of a binary body")
	})

	r := do(t, srv, "GET", "/_mock/requests", nil)
	wantStatus(t, r, 200)
	var listing struct {
		Items []json.RawMessage `json:"items"`
	}
	decode(t, r, &listing)
	require.Len(t, listing.Items, 3, "GET /_mock/requests: items")
	entry := func(i int) map[string]any {
		var m map[string]any
		require.NoError(t, json.Unmarshal(listing.Items[i], &m))
		return m
	}

	t.Run("over HTTP", func(t *testing.T) {
		j := entry(0)
		wantSameJSON(t, "the JSON body", j["body"], map[string]any{"name": "Jane Doe", "metadata": map[string]any{"tier": "gold"}})
		wantNoKey(t, "the JSON body's entry", j, "bodyEncoding")

		tx := entry(1)
		assert.Equal(t, text, tx["body"], "the text body, as a string")
		assert.Equal(t, "text", tx["bodyEncoding"], "bodyEncoding of the text body")

		bin := entry(2)
		assert.Equal(t, "base64", bin["bodyEncoding"], "bodyEncoding of the binary body")
		s, ok := bin["body"].(string)
		require.True(t, ok, "the binary body = %#v, want a base64 string", bin["body"])
		b, err := base64.StdEncoding.DecodeString(s)
		require.NoError(t, err, "the binary body is not base64")
		assert.Equal(t, upBody, b, "the binary body, decoded")
	})

	t.Run("decoded equals the kit's", func(t *testing.T) {
		var got []mockserver.RecordedRequest
		for i, raw := range listing.Items {
			var rr mockserver.RecordedRequest
			require.NoError(t, json.Unmarshal(raw, &rr), "item %d: %s", i, raw)
			got = append(got, rr)
		}
		if diff := cmp.Diff(reqs, got); diff != "" {
			t.Errorf("GET /_mock/requests decoded differs from Requests() (-kit +HTTP):\n%s", diff)
		}
		// And the kit's own encoding round-trips.
		for i, r := range reqs {
			b, err := json.Marshal(r)
			require.NoError(t, err)
			var back mockserver.RecordedRequest
			require.NoError(t, json.Unmarshal(b, &back))
			if diff := cmp.Diff(r, back); diff != "" {
				t.Errorf("request %d after MarshalJSON and UnmarshalJSON (-before +after):\n%s", i, diff)
			}
		}
	})
}

// TestKitRecordedJSONBodyOverHTTP reads JSON bodies back from
// GET /_mock/requests: the same JSON value as sent, compacted, with
// nothing escaped that the client did not escape; the kit's own copy
// keeps the bytes exactly.
func TestKitRecordedJSONBodyOverHTTP(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	for _, body := range []string{"{\n  \"name\": \"Jane Doe\"\n}", `{"name":"<b>Jane</b> & co"}`} {
		srv.ClearRequests()
		wantStatus(t, do(t, srv, "POST", "/v1/workflows/wf_default/profiles", body), 201)
		raw := do(t, srv, "GET", "/_mock/requests", nil)
		assert.NotContains(t, string(raw.Body), `\u003c`, "the listing escapes what the client sent as it was")
		var listing struct {
			Items []mockserver.RecordedRequest `json:"items"`
		}
		decode(t, raw, &listing)
		require.Len(t, listing.Items, 1)
		got := listing.Items[0]
		assert.JSONEq(t, body, got.BodyText(), "the body decoded from GET /_mock/requests")
		assert.Equal(t, body, srv.Requests()[0].BodyText(), "the kit's copy of the body")
	}
}

// TestKitNearMissesDifferInOneField holds ExpectRequests's near misses
// to requests that differ from the match in exactly one of its fields:
// none for a request that differs in method, path and query at once, and
// none for a match of one field, which every other request misses.
func TestKitNearMissesDifferInOneField(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	p, fid := addProfile(t, srv.Tenant, "Near")
	srv.ClearRequests()
	wantStatus(t, do(t, srv, "GET", "/v1/folders/"+fid, nil), 200)
	wantStatus(t, do(t, srv, "GET", "/v1/profiles/"+p.ID+"/folders?limit=5", nil), 200)
	require.Len(t, srv.Requests(), 2)

	for _, tt := range []struct {
		name  string
		match mockserver.RequestMatch
		near  []string // lines of the message, each a near miss
	}{
		{name: "three fields differ", match: mockserver.RequestMatch{Method: "DELETE", Path: "/v1/items/*", Query: url.Values{"limit": {"9"}}}},
		{name: "one field set", match: mockserver.RequestMatch{Method: "DELETE"}},
		{name: "one field set: path", match: mockserver.RequestMatch{Path: "/v1/items/*"}},
		{name: "method alone differs", match: mockserver.RequestMatch{Method: "DELETE", Path: "/v1/folders/*"},
			near: []string{"GET /v1/folders/" + fid + " → 200 (differs in method)"}},
		{name: "query alone differs", match: mockserver.RequestMatch{Method: "GET", Path: "/v1/profiles/*/folders", Query: url.Values{"limit": {"9"}}},
			near: []string{"GET /v1/profiles/" + p.ID + "/folders?limit=5 → 200 (differs in query)"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tb := &recordedErrors{TB: t}
			srv.ExpectRequests(tb, tt.match, 1)
			msg := tb.messages()
			require.Contains(t, msg, "0 requests match", "ExpectRequests(%s, 1)", tt.match)
			var listed []string
			if _, after, ok := strings.Cut(msg, "near misses:\n"); ok {
				for _, l := range strings.Split(after, "\n") {
					listed = append(listed, strings.TrimSpace(l))
				}
			}
			assert.Equal(t, tt.near, listed, "near misses of %s in:\n%s", tt.match, msg)
		})
	}
}
