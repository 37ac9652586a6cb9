package mockserver_test

// The test kit's waits, request matching and readable bodies; scripted
// outcomes that hold an analysis or its report; faults that cut or trickle
// an answer; NewTest's analysis duration; Snapshot and Restore; and the
// public health route, TLS and CORS. Every wait is for an event (a timer
// armed on a fake clock, a kit wait that has begun, an answer on a
// channel), never for a fixed time.

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

// ---------------------------------------------------------------------
// Helpers of this file.

// kitT0 is when the fake clocks of this file start.
var kitT0 = time.Date(2030, 4, 1, 9, 0, 0, 0, time.UTC)

// watchedCtx is a context that says when a waiter first asks for its Done
// channel. AwaitRequest and AwaitAnalysis ask for it only once they have
// looked and found nothing, with the record's (or the store's) change
// channel already in hand: a request or an analysis made after waiting is
// closed comes after the wait began, and must end it.
type watchedCtx struct {
	context.Context
	once    sync.Once
	waiting chan struct{}
}

// newWatchedCtx returns a watched context and its cancel function.
func newWatchedCtx(parent context.Context) (*watchedCtx, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	return &watchedCtx{Context: ctx, waiting: make(chan struct{})}, cancel
}

func (c *watchedCtx) Done() <-chan struct{} {
	c.once.Do(func() { close(c.waiting) })
	return c.Context.Done()
}

// outcome is what a call made in the background returned.
type outcome[T any] struct {
	v   T
	err error
}

// goCall runs f in its own goroutine; its outcome arrives on the channel.
func goCall[T any](f func() (T, error)) <-chan outcome[T] {
	ch := make(chan outcome[T], 1)
	go func() {
		v, err := f()
		ch <- outcome[T]{v, err}
	}()
	return ch
}

// receive waits for a value on ch (or its closing). It fails the test
// after a minute, a bound far above any machine's (a hang guard, not a
// measure).
func receive[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(time.Minute):
		require.FailNowf(t, "nothing came", "%s: nothing within a minute", what)
		var zero T
		return zero
	}
}

// requestIDs returns the request IDs of recorded requests, in order.
func requestIDs(rs []mockserver.RecordedRequest) []string {
	ids := []string{}
	for _, r := range rs {
		ids = append(ids, r.RequestID)
	}
	return ids
}

// recordedErrors is a testing.TB that keeps what ExpectRequests reports
// instead of failing the test; anything else goes to the real test.
type recordedErrors struct {
	testing.TB
	mu   sync.Mutex
	msgs []string
}

func (r *recordedErrors) Helper() {}

func (r *recordedErrors) Error(args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, fmt.Sprint(args...))
}

func (r *recordedErrors) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, fmt.Sprintf(format, args...))
}

func (r *recordedErrors) messages() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.msgs, "\n")
}

// injectVia injects a fault through the kit ("Go") or through POST
// /_mock/faults ("HTTP", with j, the fault's JSON form, which the answer
// must echo).
func injectVia(t *testing.T, srv *mockserver.Server, via string, f mockserver.Fault, j map[string]any) {
	t.Helper()
	switch via {
	case "Go":
		_, err := srv.InjectFault(f)
		require.NoError(t, err, "InjectFault(%+v)", f)
	case "HTTP":
		got := doJSON(t, srv, "POST", "/_mock/faults", j, http.StatusCreated)
		for k, v := range j {
			wantSameJSON(t, "the added fault's "+k, got[k], v)
		}
	default:
		t.Fatalf("unknown way %q", via)
	}
}

// advanceUntil moves the fake clock by step each time the server has a
// timer armed on it, until done delivers: it returns what came and how
// many steps it took. Between steps it waits for the timer (BlockUntil),
// never for a fixed time.
func advanceUntil[T any](t *testing.T, fc *mockserver.FakeClock, step time.Duration, done <-chan T) (T, int) {
	t.Helper()
	for steps := 0; ; steps++ {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang guard
		armed := make(chan error, 1)
		go func() { armed <- fc.BlockUntil(ctx, 1) }()
		select {
		case v := <-done:
			cancel()
			<-armed
			return v, steps
		case err := <-armed:
			cancel()
			require.NoError(t, err, "after %d steps, neither the answer nor a timer came", steps)
			fc.Advance(step)
		}
	}
}

// kitState is what the kit says of a server's whole state.
type kitState struct {
	Workflows []mockserver.Workflow
	Profiles  []*profilesvc.Profile
	Folders   map[string]*profilesvc.Folder
	Items     map[string]*profilesvc.Item
	Bytes     map[string][]byte
	Analyses  map[string][]*profilesvc.Analysis // by profile, oldest first
}

// stateOf reads a server's state through the kit: every profile, each of
// its folders, items with their bytes, and analyses. The items' URLs,
// which name the server, are given relative to it, so that the states of
// two servers compare.
func stateOf(t testing.TB, srv *mockserver.Server) kitState {
	t.Helper()
	s := kitState{
		Workflows: srv.Workflows(), Profiles: srv.Profiles(),
		Folders: map[string]*profilesvc.Folder{}, Items: map[string]*profilesvc.Item{},
		Bytes: map[string][]byte{}, Analyses: map[string][]*profilesvc.Analysis{},
	}
	for _, p := range s.Profiles {
		for _, fs := range p.Folders {
			f, ok := srv.Folder(fs.ID)
			require.True(t, ok, "Folder(%s) of profile %s", fs.ID, p.ID)
			s.Folders[f.ID] = f
			for _, sum := range f.Items {
				it, ok := srv.Item(sum.ID)
				require.True(t, ok, "Item(%s) of folder %s", sum.ID, f.ID)
				it.URL = strings.TrimPrefix(it.URL, srv.URL)
				it.StorageOriginalURL = strings.TrimPrefix(it.StorageOriginalURL, srv.URL)
				s.Items[it.ID] = it
				b, ok := srv.ItemBytes(sum.ID)
				require.True(t, ok, "ItemBytes(%s)", sum.ID)
				s.Bytes[it.ID] = b
			}
		}
		s.Analyses[p.ID] = srv.Analyses(p.ID)
	}
	return s
}

// sameJSON compares JSON values by their meaning: a snapshot keeps a
// workflow's output schema compacted.
var sameJSON = cmp.Comparer(func(a, b json.RawMessage) bool {
	var av, bv any
	if json.Unmarshal(a, &av) != nil || json.Unmarshal(b, &bv) != nil {
		return string(a) == string(b)
	}
	return cmp.Equal(av, bv)
})

// wantState fails the test unless srv's state is want.
func wantState(t testing.TB, srv *mockserver.Server, want kitState, when string) {
	t.Helper()
	if diff := cmp.Diff(want, stateOf(t, srv), sameJSON); diff != "" {
		t.Errorf("%s: the state differs from the snapshot's (-want +got):\n%s", when, diff)
	}
}

// ---------------------------------------------------------------------
// AwaitRequest and AwaitAnalysis.

func TestKitAwaitRequest(t *testing.T) {
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

func TestKitAwaitAnalysis(t *testing.T) {
	srv := newServer(t, mockserver.WithManualAnalyses())

	t.Run("one started in the background", func(t *testing.T) {
		pid, _, iid := addProfileWithItem(t, srv.Tenant, "Jane Doe")
		ctx, cancel := newWatchedCtx(t.Context())
		defer cancel()
		got := goCall(func() (*profilesvc.Analysis, error) { return srv.AwaitAnalysis(ctx, pid) })
		receive(t, ctx.waiting, "AwaitAnalysis to begin waiting")
		// An analysis of another profile does not end the wait.
		other, _, otherItem := addProfileWithItem(t, srv.Tenant, "John Roe")
		startAnalysis(t, srv, other, otherItem)
		answer := awaitAnswer(t, goSend(t, srv, request{Method: "POST", Path: "/v1/analyses/" + pid + "/analyze", JSON: targets(iid)}), time.Minute)
		started := jsonObject(t, answer, http.StatusAccepted)
		res := receive(t, got, "AwaitAnalysis")
		require.NoError(t, res.err, "AwaitAnalysis")
		assert.True(t, res.v.ID == started["id"] && res.v.ProfileID == pid, "AwaitAnalysis = %s of %s, want %v of %s", res.v.ID, res.v.ProfileID, started["id"], pid)
	})

	t.Run("the newest of several", func(t *testing.T) {
		pid, _, iid := addProfileWithItem(t, srv.Tenant, "Jane Doe")
		first := startAnalysis(t, srv, pid, iid)
		require.NoError(t, srv.CompleteAnalysis(first))
		second := startAnalysis(t, srv, pid, iid)
		a, err := srv.AwaitAnalysis(t.Context(), pid)
		require.NoError(t, err, "AwaitAnalysis")
		assert.Equal(t, second, a.ID, "AwaitAnalysis of a profile with analyses %s and %s", first, second)
		assert.Equal(t, profilesvc.AnalysisPending, a.Status, "status of the newest")
	})

	t.Run("deadline", func(t *testing.T) {
		p, _ := addProfile(t, srv.Tenant, "Nobody starts")
		ctx, cancel := context.WithDeadline(t.Context(), time.Now().Add(-time.Second))
		defer cancel()
		_, err := srv.AwaitAnalysis(ctx, p.ID)
		require.ErrorIs(t, err, context.DeadlineExceeded, "AwaitAnalysis past its context's deadline")
		assert.Contains(t, err.Error(), p.ID, "the error names the profile")
	})
}

// TestKitAwaitAnalysisAcrossRestore waits for an analysis while the
// server's state is restored: the analysis started afterwards must end the
// wait, as it does across Reset.
func TestKitAwaitAnalysisAcrossRestore(t *testing.T) {
	srv := newServer(t, mockserver.WithManualAnalyses())
	pid, _, iid := addProfileWithItem(t, srv.Tenant, "Jane Doe")
	snap, err := srv.Snapshot()
	require.NoError(t, err)

	ctx, cancel := newWatchedCtx(t.Context())
	defer cancel()
	got := goCall(func() (*profilesvc.Analysis, error) { return srv.AwaitAnalysis(ctx, pid) })
	receive(t, ctx.waiting, "AwaitAnalysis to begin waiting")
	require.NoError(t, srv.Restore(snap))
	id := startAnalysis(t, srv, pid, iid)
	res := receive(t, got, "AwaitAnalysis after a Restore")
	require.NoError(t, res.err, "AwaitAnalysis")
	assert.Equal(t, id, res.v.ID, "AwaitAnalysis")
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
	srv := newServer(t)
	ids, _ := recordMatchFixture(t, srv)
	got := srv.RequestsMatching(mockserver.RequestMatch{Path: "/v1/profiles/" + "pf/x"})
	if diff := cmp.Diff([]string{ids[3]}, requestIDs(got)); diff != "" {
		t.Errorf("RequestsMatching the ID pf/x (-want +got):\n%s", diff)
	}
}

func TestKitExpectRequests(t *testing.T) {
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

// ---------------------------------------------------------------------
// Scripted outcomes: mock:stuck, mock:report-delay, WithReportDelay.

func TestKitScriptedStuck(t *testing.T) {
	const d = 2 * time.Second
	for _, tt := range []struct {
		name   string
		end    func(srv *mockserver.Server, id string) error
		status profilesvc.AnalysisStatus
	}{
		{"CompleteAnalysis", func(srv *mockserver.Server, id string) error { return srv.CompleteAnalysis(id) }, profilesvc.AnalysisCompleted},
		{"FailAnalysis", func(srv *mockserver.Server, id string) error { return srv.FailAnalysis(id, "gave up") }, profilesvc.AnalysisFailed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fc := mockserver.NewFakeClock(kitT0)
			srv := newServer(t, mockserver.WithClock(fc), mockserver.WithAnalysisDuration(d))
			p, fid := addProfile(t, srv.Tenant, "Stuck")
			it, err := srv.AddTextItem(fid, "passport.txt", passportDoc+"mock:stuck\n")
			require.NoError(t, err)
			pid := p.ID
			id := startAnalysis(t, srv, pid, it.ID)
			blockUntil(t, fc, 1)
			fc.Advance(d / 10)
			wantAnalysisStatus(t, srv.Tenant, id, profilesvc.AnalysisProcessing)
			assert.Zero(t, fc.Timers(), "timers armed for a stuck analysis once processing: nothing is to finish it")
			fc.Advance(100 * d)
			wantAnalysisStatus(t, srv.Tenant, id, profilesvc.AnalysisProcessing)
			wantStatus(t, do(t, srv, "GET", "/v1/analyses/"+id, nil), 200)
			wantError(t, do(t, srv, "POST", "/v1/analyses/"+pid+"/analyze", targets(it.ID)), 409, "ANALYSIS_IN_PROGRESS")

			require.NoError(t, tt.end(srv, id), tt.name)
			a := wantAnalysisStatus(t, srv.Tenant, id, tt.status)
			if tt.status == profilesvc.AnalysisFailed {
				assert.True(t, a.Error != nil && *a.Error == "gave up", "error = %v", a.Error)
			} else {
				assert.NotNil(t, a.PrimaryReportID, "a completed stuck analysis has its report")
			}
		})
	}
}

func TestKitReportDelay(t *testing.T) {
	const d, delay = time.Second, 5 * time.Second
	for _, tt := range []struct {
		name   string
		opts   []mockserver.Option
		script string
	}{
		{"mock:report-delay", nil, "mock:report-delay=5s\n"},
		{"WithReportDelay", []mockserver.Option{mockserver.WithReportDelay(delay)}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fc := mockserver.NewFakeClock(kitT0)
			srv := newServer(t, append([]mockserver.Option{mockserver.WithClock(fc), mockserver.WithAnalysisDuration(d)}, tt.opts...)...)
			p, fid := addProfile(t, srv.Tenant, "Delayed")
			it, err := srv.AddTextItem(fid, "passport.txt", passportDoc+tt.script)
			require.NoError(t, err)
			id := startAnalysis(t, srv, p.ID, it.ID)
			poll := longPoll(t, srv, t.Context(), "/v1/analyses/"+id+"?waitForReport=true&timeoutSeconds=300")
			blockUntil(t, fc, 3) // the run's two timers and the poll's
			fc.Advance(d)

			// Completed, the report to come.
			a := wantAnalysisStatus(t, srv.Tenant, id, profilesvc.AnalysisCompleted)
			assert.Nil(t, a.PrimaryReportID, "primaryReportId before the report delay has passed")
			viaHTTP := getAnalysis(t, srv, id)
			assert.Equal(t, "completed", viaHTTP["status"], "status GET says")
			wantNull(t, "the analysis GET gives", viaHTTP, "primaryReportId")
			wantError(t, do(t, srv, "GET", "/v1/analyses/"+id+"/report", nil), 400, "REPORT_NOT_AVAILABLE")
			// The poll is still held: its timer and the report's are armed.
			blockUntil(t, fc, 2)
			wantNotAnswered(t, poll)

			fc.Advance(delay - time.Millisecond)
			wantError(t, do(t, srv, "GET", "/v1/analyses/"+id+"/report", nil), 400, "REPORT_NOT_AVAILABLE")
			fc.Advance(time.Millisecond)
			r := awaitAnswer(t, poll, time.Minute)
			got := jsonObject(t, r, 200)
			checkAnalysis(t, got, p.ID, "completed")
			assert.Equal(t, analysisOf(t, srv.Tenant, id).PrimaryReportID, ptrTo(stringField(t, "poll's answer", got, "primaryReportId")), "the poll's report ID")
			wantStatus(t, do(t, srv, "GET", "/v1/analyses/"+id+"/report", nil), 200)
		})
	}
}

// ptrTo returns a pointer to v.
func ptrTo[T any](v T) *T { return &v }

// ---------------------------------------------------------------------
// Faults that cut or trickle an answer.

func TestKitFaultTruncate(t *testing.T) {
	for _, via := range []string{"Go", "HTTP"} {
		t.Run(via, func(t *testing.T) {
			t.Run("JSON answer", func(t *testing.T) {
				srv := newServer(t)
				p, _ := addProfile(t, srv.Tenant, "Cut")
				injectVia(t, srv, via, mockserver.Fault{Method: "GET", Path: "/v1/profiles/*", Truncate: 20},
					map[string]any{"method": "GET", "path": "/v1/profiles/*", "truncate": 20})
				_, err := newSDK(t, srv).GetProfile(t.Context(), p.ID)
				require.Error(t, err, "GetProfile of a cut answer")

				req, err := request{Method: "GET", Path: "/v1/profiles/" + p.ID}.build(srv)
				require.NoError(t, err)
				resp, err := newHTTPClient(t).Do(req)
				require.NoError(t, err, "the headers of the cut answer")
				defer resp.Body.Close()
				body, err := io.ReadAll(resp.Body)
				assert.ErrorIs(t, err, io.ErrUnexpectedEOF, "reading the cut answer")
				assert.Len(t, body, 20, "bytes of the cut answer")
				assert.Greater(t, resp.ContentLength, int64(20), "Content-Length promises the whole answer")
			})

			t.Run("report", func(t *testing.T) {
				srv := newServer(t, mockserver.WithManualAnalyses())
				pid, _, iid := addProfileWithItem(t, srv.Tenant, "Jane Doe")
				id := startAnalysis(t, srv, pid, iid)
				require.NoError(t, srv.CompleteAnalysis(id))
				injectVia(t, srv, via, mockserver.Fault{Method: "GET", Path: "/v1/analyses/*/report", Truncate: 1000},
					map[string]any{"method": "GET", "path": "/v1/analyses/*/report", "truncate": 1000})
				c := newSDK(t, srv)
				for _, tt := range []struct {
					name string
					save func(dir string) (string, error)
				}{
					{"Client.SaveReport into a directory", func(dir string) (string, error) { return c.SaveReport(t.Context(), id, dir, nil) }},
					{"Client.SaveReport to a path", func(dir string) (string, error) {
						return c.SaveReport(t.Context(), id, filepath.Join(dir, "report.pdf"), nil)
					}},
					{"Report.SaveFile into a directory", func(dir string) (string, error) {
						rep, err := c.DownloadReport(t.Context(), id, nil)
						require.NoError(t, err, "DownloadReport: the answer's start comes whole")
						return rep.SaveFile(dir)
					}},
					{"Report.SaveFile to a path", func(dir string) (string, error) {
						rep, err := c.DownloadReport(t.Context(), id, &profilesvc.ReportParams{Locale: profilesvc.LocaleKorean})
						require.NoError(t, err, "DownloadReport: the answer's start comes whole")
						return rep.SaveFile(filepath.Join(dir, "report.pdf"))
					}},
				} {
					t.Run(tt.name, func(t *testing.T) {
						dir := t.TempDir()
						path, err := tt.save(dir)
						require.Error(t, err, "saving a cut report gave %q", path)
						assert.ErrorIs(t, err, io.ErrUnexpectedEOF, "the error of a cut download")
						entries, err := os.ReadDir(dir)
						require.NoError(t, err)
						var names []string
						for _, e := range entries {
							names = append(names, e.Name())
						}
						assert.Empty(t, names, "files left in the directory by a cut download")
					})
				}
			})
		})
	}
}

func TestKitFaultBytesPerSecond(t *testing.T) {
	const rate = 200                    // bytes a second: 20 bytes a step
	const step = 100 * time.Millisecond // the fault's step on the clock
	for _, via := range []string{"Go", "HTTP"} {
		t.Run(via, func(t *testing.T) {
			fc := mockserver.NewFakeClock(kitT0)
			srv := newServer(t, mockserver.WithClock(fc))
			p, _ := addProfile(t, srv.Tenant, "Trickled")
			whole := do(t, srv, "GET", "/v1/profiles/"+p.ID, nil)
			wantStatus(t, whole, 200)
			injectVia(t, srv, via, mockserver.Fault{Method: "GET", Path: "/v1/profiles/*", BytesPerSecond: rate},
				map[string]any{"method": "GET", "path": "/v1/profiles/*", "bytesPerSecond": rate})

			sent := goSend(t, srv, request{Method: "GET", Path: "/v1/profiles/" + p.ID})
			got, steps := advanceUntil(t, fc, step, sent)
			require.NoError(t, got.err, "the trickled answer")
			wantStatus(t, got.resp, 200)
			assert.Equal(t, string(whole.Body), string(got.resp.Body), "the trickled answer, against the same answer untouched")
			chunk := rate * int(step) / int(time.Second)
			want := int(math.Ceil(float64(len(whole.Body))/float64(chunk))) - 1
			assert.Equal(t, want, steps, "steps of %v the clock took to send %d bytes at %d bytes a second: it must not come sooner", step, len(whole.Body), rate)
			assert.Equal(t, kitT0.Add(time.Duration(steps)*step), fc.Now(), "the fake clock")
		})
	}

	t.Run("through the SDK", func(t *testing.T) {
		fc := mockserver.NewFakeClock(kitT0)
		srv := newServer(t, mockserver.WithClock(fc))
		p, _ := addProfile(t, srv.Tenant, "Trickled")
		_, err := srv.InjectFault(mockserver.Fault{Method: "GET", Path: "/v1/profiles/*", BytesPerSecond: rate})
		require.NoError(t, err)
		c := newSDK(t, srv)
		got, steps := advanceUntil(t, fc, step, goCall(func() (*profilesvc.Profile, error) { return c.GetProfile(context.Background(), p.ID) }))
		require.NoError(t, got.err, "GetProfile of a trickled answer")
		assert.Greater(t, steps, 1, "steps of the clock")
		want, _ := srv.Profile(p.ID)
		assert.True(t, got.v.ID == want.ID && got.v.Name == want.Name && got.v.CreatedAt.Equal(want.CreatedAt), "GetProfile = %+v", got.v)
	})
}

// ---------------------------------------------------------------------
// NewTest's analysis duration.

func TestKitNewTestAnalysisDuration(t *testing.T) {
	for _, tt := range []struct {
		name  string
		start func(t *testing.T, fc *mockserver.FakeClock) *mockserver.Server
		d     time.Duration // how long its analyses take
	}{
		{"NewTest", func(t *testing.T, fc *mockserver.FakeClock) *mockserver.Server {
			return mockserver.NewTest(t, mockserver.WithClock(fc))
		}, 100 * time.Millisecond},
		{"New", func(t *testing.T, fc *mockserver.FakeClock) *mockserver.Server {
			srv := mockserver.New(mockserver.WithClock(fc), openapiChecked(t))
			t.Cleanup(srv.Close)
			return srv
		}, 3 * time.Second},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fc := mockserver.NewFakeClock(kitT0)
			srv := tt.start(t, fc)
			pid, _, iid := addProfileWithItem(t, srv.Tenant, "Jane Doe")
			id := startAnalysis(t, srv, pid, iid)
			blockUntil(t, fc, 2)
			fc.Advance(100*time.Millisecond - time.Millisecond)
			assert.False(t, analysisOf(t, srv.Tenant, id).Status.IsTerminal(), "finished before 100ms")
			fc.Advance(time.Millisecond)
			if tt.d == 100*time.Millisecond {
				wantAnalysisStatus(t, srv.Tenant, id, profilesvc.AnalysisCompleted)
				return
			}
			assert.False(t, analysisOf(t, srv.Tenant, id).Status.IsTerminal(), "finished after 100ms of %v", tt.d)
			fc.Advance(tt.d - 100*time.Millisecond - time.Millisecond)
			wantAnalysisStatus(t, srv.Tenant, id, profilesvc.AnalysisProcessing)
			fc.Advance(time.Millisecond)
			wantAnalysisStatus(t, srv.Tenant, id, profilesvc.AnalysisCompleted)
		})
	}
}

// ---------------------------------------------------------------------
// Snapshot and Restore.

// snapshotFixture is what buildSnapshotFixture made.
type snapshotFixture struct {
	alpha, beta        string // profiles
	idsFolder          string // alpha's second folder
	png, form          string // items of alpha
	completed, running string // beta's analysis, alpha's
}

// snapshotRunDuration is how long the fixture's analyses take.
const snapshotRunDuration = 10 * time.Second

// buildSnapshotFixture fills srv: two profiles, a second folder, items of
// each type (text, JSON, files with their bytes), beta's analysis
// completed and approved, alpha's running, halfway through its run.
func buildSnapshotFixture(t *testing.T, srv *mockserver.Server, fc *mockserver.FakeClock) snapshotFixture {
	t.Helper()
	var f snapshotFixture
	alpha, err := srv.CreateProfile(mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Alpha", Description: "first", Metadata: map[string]any{"tier": "gold"}})
	require.NoError(t, err)
	f.alpha = alpha.ID
	ids, err := srv.CreateFolder(alpha.ID, "IDs")
	require.NoError(t, err)
	f.idsFolder = ids.ID
	passport, err := srv.AddTextItem(alpha.Folders[0].ID, "passport.txt", passportOf("Jane Doe"))
	require.NoError(t, err)
	form, err := srv.AddItem(ids.ID, mockserver.SeedItem{Type: profilesvc.ItemJSON, Name: "form",
		Content: json.RawMessage(`{"full_name":"Jane Doe","age":40}`), Metadata: map[string]any{"source": "web"}})
	require.NoError(t, err)
	f.form = form.ID
	png, err := srv.AddFileItem(ids.ID, "scan.png", pngBytes)
	require.NoError(t, err)
	f.png = png.ID
	_, err = srv.AddFileItem(ids.ID, "letter.pdf", pdfBytes)
	require.NoError(t, err)

	beta, err := srv.CreateProfile(mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Beta"})
	require.NoError(t, err)
	f.beta = beta.ID
	betaDoc, err := srv.AddTextItem(beta.Folders[0].ID, "passport.txt", passportOf("John Roe"))
	require.NoError(t, err)
	f.completed = startAnalysis(t, srv, beta.ID, betaDoc.ID)
	blockUntil(t, fc, 2)
	fc.Advance(snapshotRunDuration)
	wantAnalysisStatus(t, srv.Tenant, f.completed, profilesvc.AnalysisCompleted)
	require.NoError(t, srv.SetVerificationStatus(f.completed, profilesvc.VerificationApproved))

	f.running = startAnalysis(t, srv, alpha.ID, passport.ID, form.ID)
	blockUntil(t, fc, 2)
	fc.Advance(snapshotRunDuration / 2)
	wantAnalysisStatus(t, srv.Tenant, f.running, profilesvc.AnalysisProcessing)
	return f
}

// changeEverything deletes, adds, renames and finishes, through the API
// and the kit, without moving the clock.
func changeEverything(t *testing.T, srv *mockserver.Server, f snapshotFixture, round int) {
	t.Helper()
	wantNoContent(t, do(t, srv, "DELETE", "/v1/profiles/"+f.beta, nil))
	doJSON(t, srv, "PATCH", "/v1/profiles/"+f.alpha, map[string]any{"name": fmt.Sprintf("Alpha %d", round), "metadata": map[string]any{"tier": "silver"}}, 200)
	doJSON(t, srv, "PATCH", "/v1/folders/"+f.idsFolder, map[string]any{"name": fmt.Sprintf("Papers %d", round)}, 200)
	doJSON(t, srv, "PATCH", "/v1/items/"+f.form, map[string]any{"name": "form 2", "metadata": map[string]any{"source": "post"}}, 200)
	wantNoContent(t, do(t, srv, "DELETE", "/v1/items/"+f.png, nil))
	createTextItem(t, srv, f.idsFolder, "new note", "added after the snapshot")
	addProfileWithItem(t, srv.Tenant, fmt.Sprintf("Gamma %d", round))
	require.NoError(t, srv.FailAnalysis(f.running, "changed"))
	require.NoError(t, srv.AddWorkflow(mockserver.Workflow{ID: fmt.Sprintf("wf_added_%d", round),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"extracted_values":{"type":"object"}}}`)}))
}

func TestKitSnapshotRestore(t *testing.T) {
	fc := mockserver.NewFakeClock(kitT0)
	srv := newServer(t, mockserver.WithClock(fc), mockserver.WithAnalysisDuration(snapshotRunDuration))
	f := buildSnapshotFixture(t, srv, fc)
	want := stateOf(t, srv)
	require.Len(t, want.Profiles, 2)
	require.Len(t, want.Items, 5)
	snap, err := srv.Snapshot()
	require.NoError(t, err, "Snapshot")
	encoded, err := snap.MarshalJSON()
	require.NoError(t, err, "MarshalJSON")

	// Restore the same snapshot twice, with changes before each: the
	// state is the snapshot's each time, and the snapshot is unchanged.
	for round := 1; round <= 2; round++ {
		changeEverything(t, srv, f, round)
		if diff := cmp.Diff(want, stateOf(t, srv), sameJSON); diff == "" {
			t.Fatalf("round %d: the changes changed nothing", round)
		}
		require.NoError(t, srv.Restore(snap), "Restore, round %d", round)
		wantState(t, srv, want, fmt.Sprintf("after Restore, round %d", round))
		again, err := snap.MarshalJSON()
		require.NoError(t, err)
		assert.JSONEq(t, string(encoded), string(again), "round %d: the snapshot changed with the state restored from it", round)
	}

	// The JSON round trip, into a new server whose clock stands where the
	// old one did.
	var decoded mockserver.Snapshot
	require.NoError(t, decoded.UnmarshalJSON(encoded), "UnmarshalJSON")
	fc2 := mockserver.NewFakeClock(fc.Now())
	srv2 := newServer(t, mockserver.WithClock(fc2), mockserver.WithAnalysisDuration(snapshotRunDuration))
	require.NoError(t, srv2.Restore(&decoded), "Restore of the decoded snapshot")
	wantState(t, srv2, want, "in a new server, after the JSON round trip")

	// The running analysis resumes on each server's clock: it completes
	// after the rest of its run.
	for name, s := range map[string]struct {
		srv *mockserver.Server
		fc  *mockserver.FakeClock
	}{"restored in place": {srv, fc}, "restored in a new server": {srv2, fc2}} {
		t.Run(name, func(t *testing.T) {
			blockUntil(t, s.fc, 1)
			rest := snapshotRunDuration / 2
			s.fc.Advance(rest - time.Millisecond)
			wantAnalysisStatus(t, s.srv.Tenant, f.running, profilesvc.AnalysisProcessing)
			s.fc.Advance(time.Millisecond)
			a := wantAnalysisStatus(t, s.srv.Tenant, f.running, profilesvc.AnalysisCompleted)
			end := kitT0.Add(2 * snapshotRunDuration) // beta's run, then alpha's
			assert.True(t, a.CompletedAt != nil && a.CompletedAt.Equal(end), "completedAt = %v, want the end of its run, %v", a.CompletedAt, end)
			wantStatus(t, do(t, s.srv, "GET", "/v1/analyses/"+f.completed+"/report", nil), 200)
		})
	}
}

// TestKitRestoreLongPolls restores a snapshot while long polls are held:
// one on an analysis the snapshot has goes on waiting, and answers when
// the restored analysis completes; one on an analysis it lacks answers
// 404.
func TestKitRestoreLongPolls(t *testing.T) {
	fc := mockserver.NewFakeClock(kitT0)
	srv := newServer(t, mockserver.WithClock(fc), mockserver.WithAnalysisDuration(snapshotRunDuration))
	kept, _, keptItem := addProfileWithItem(t, srv.Tenant, "Jane Doe")
	keptID := startAnalysis(t, srv, kept, keptItem)
	blockUntil(t, fc, 2)
	fc.Advance(snapshotRunDuration / 2)
	snap, err := srv.Snapshot()
	require.NoError(t, err)
	gone, _, goneItem := addProfileWithItem(t, srv.Tenant, "John Roe")
	goneID := startAnalysis(t, srv, gone, goneItem)
	const wait = "?waitForReport=true&timeoutSeconds=300"
	keptPoll := longPoll(t, srv, t.Context(), "/v1/analyses/"+keptID+wait)
	gonePoll := longPoll(t, srv, t.Context(), "/v1/analyses/"+goneID+wait)
	blockUntil(t, fc, 5) // the runs' three timers, the polls' two

	require.NoError(t, srv.Restore(snap))
	wantError(t, awaitAnswer(t, gonePoll, time.Minute), 404, "ANALYSIS_NOT_FOUND")
	wantNotAnswered(t, keptPoll)
	blockUntil(t, fc, 2) // the restored run's end, the poll's timeout
	fc.Advance(snapshotRunDuration / 2)
	a := jsonObject(t, awaitAnswer(t, keptPoll, time.Minute), 200)
	checkAnalysis(t, a, kept, "completed")
}

func TestKitSnapshotRestoreErrors(t *testing.T) {
	srv := newServer(t)
	assert.Error(t, srv.Restore(nil), "Restore(nil)")
	var s mockserver.Snapshot
	assert.Error(t, s.UnmarshalJSON([]byte(`{"version":99}`)), "a snapshot of an unknown version")
	assert.Error(t, s.UnmarshalJSON([]byte(`{"version":`)), "malformed JSON")
}

// BenchmarkRestore restores a snapshot of 100 items (text, JSON and file
// items in turn) into the server it was taken of: one op is one Restore.
func BenchmarkRestore(b *testing.B) {
	srv := mockserver.NewTest(b)
	p, err := srv.CreateProfile(mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Bench"})
	require.NoError(b, err)
	fid := p.Folders[0].ID
	for i := range 100 {
		var err error
		switch i % 3 {
		case 0:
			_, err = srv.AddTextItem(fid, fmt.Sprintf("note %d", i), passportOf(fmt.Sprintf("Person %d", i)))
		case 1:
			_, err = srv.AddItem(fid, mockserver.SeedItem{Type: profilesvc.ItemJSON, Name: fmt.Sprintf("form %d", i),
				Content: json.RawMessage(fmt.Sprintf(`{"full_name":"Person %d"}`, i))})
		default:
			_, err = srv.AddFileItem(fid, fmt.Sprintf("scan %d.pdf", i), pdfBytes)
		}
		require.NoError(b, err)
	}
	snap, err := srv.Snapshot()
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		if err := srv.Restore(snap); err != nil {
			b.Fatal(err)
		}
	}
}

// ---------------------------------------------------------------------
// The public health route, TLS and CORS.

func TestKitHealth(t *testing.T) {
	srv := newServer(t)
	for _, key := range []string{noKey, "wrong-key", ""} {
		r := send(t, srv, request{Method: "GET", Path: "/_mock/health", Key: key})
		if diff := cmp.Diff(map[string]any{"status": "ok", "version": profilesvc.Version}, jsonObject(t, r, 200)); diff != "" {
			t.Errorf("GET /_mock/health with key %q (-want +got):\n%s", key, diff)
		}
		assert.Regexp(t, requestIDPattern, r.Header.Get("X-Request-Id"), "the health answer's request ID")
	}
	assert.Empty(t, srv.Requests(), "health checks are not recorded")
	wantError(t, send(t, srv, request{Method: "POST", Path: "/_mock/health", Key: noKey}), 405, "METHOD_NOT_ALLOWED")
}

func TestKitWithTLS(t *testing.T) {
	srv := newServer(t, mockserver.WithTLS())
	require.True(t, strings.HasPrefix(srv.URL, "https://127.0.0.1:"), "URL %q: want https", srv.URL)
	cert := srv.Certificate()
	require.NotNil(t, cert, "Certificate() of a TLS server")

	p, err := srv.Client(profilesvc.WithMaxRetries(0)).CreateProfile(t.Context(), mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Over TLS"})
	require.NoError(t, err, "CreateProfile through Client()")
	_, ok := srv.Profile(p.ID)
	assert.True(t, ok, "the profile created over TLS")

	hc := srv.HTTPClient()
	t.Cleanup(hc.CloseIdleConnections)
	resp, err := hc.Get(srv.URL + "/_mock/health")
	require.NoError(t, err, "HTTPClient()")
	_ = resp.Body.Close()
	require.NotNil(t, resp.TLS, "the answer came without TLS")
	require.NotEmpty(t, resp.TLS.PeerCertificates)
	assert.True(t, resp.TLS.PeerCertificates[0].Equal(cert), "Certificate() is not the certificate served")
	assert.Contains(t, string(mockserver.CertificatePEM(cert)), "-----BEGIN CERTIFICATE-----", "CertificatePEM")

	t.Run("a client that does not trust it", func(t *testing.T) {
		tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: x509.NewCertPool(), MinVersion: tls.VersionTLS12}}
		t.Cleanup(tr.CloseIdleConnections)
		_, err := (&http.Client{Transport: tr}).Get(srv.URL + "/_mock/health")
		var verr *tls.CertificateVerificationError
		require.ErrorAs(t, err, &verr, "a client without the certificate")
		var unknown x509.UnknownAuthorityError
		assert.ErrorAs(t, err, &unknown, "the error of a client without the certificate")

		c, err := profilesvc.NewClient(profilesvc.WithBaseURL(srv.URL), profilesvc.WithAPIKey(srv.APIKey), profilesvc.WithMaxRetries(0),
			profilesvc.WithHTTPClient(&http.Client{Transport: tr}))
		require.NoError(t, err)
		_, err = c.GetProfile(t.Context(), p.ID)
		assert.ErrorAs(t, err, &verr, "the SDK without the certificate")
	})

	t.Run("plain HTTP has none", func(t *testing.T) {
		assert.Nil(t, newServer(t).Certificate(), "Certificate() of a plain HTTP server")
	})
}

func TestKitCORS(t *testing.T) {
	const app, other = "https://app.test", "https://evil.test"
	allowed := newServer(t, mockserver.WithCORS(app))
	anyOrigin := newServer(t, mockserver.WithCORS("*"))
	plain := newServer(t)
	// preflight sends a browser's preflight of a POST with the headers
	// asked for (none: no Access-Control-Request-Headers).
	preflightAsking := func(t *testing.T, srv *mockserver.Server, origin, headers string) *response {
		t.Helper()
		h := http.Header{"Origin": {origin}, "Access-Control-Request-Method": {"POST"}}
		if headers != "" {
			h.Set("Access-Control-Request-Headers", headers)
		}
		return send(t, srv, request{Method: "OPTIONS", Path: "/v1/workflows/wf_default/profiles", Key: noKey, Header: h})
	}
	preflight := func(t *testing.T, srv *mockserver.Server, origin string) *response {
		t.Helper()
		return preflightAsking(t, srv, origin, "X-Api-Key, Content-Type")
	}
	real := func(t *testing.T, srv *mockserver.Server, origin string) *response {
		t.Helper()
		r := send(t, srv, request{Method: "POST", Path: "/v1/workflows/wf_default/profiles", JSON: map[string]any{"name": "From a browser"},
			Header: http.Header{"Origin": {origin}}})
		wantStatus(t, r, 201)
		return r
	}
	// list splits a header of comma-separated names, lower-cased.
	list := func(h http.Header, name string) []string {
		var out []string
		for _, v := range h.Values(name) {
			for _, s := range strings.Split(v, ",") {
				out = append(out, strings.ToLower(strings.TrimSpace(s)))
			}
		}
		return out
	}

	for _, tt := range []struct {
		name   string
		srv    *mockserver.Server
		origin string
	}{
		{"an allowed origin", allowed, app},
		{"any origin with *", anyOrigin, other},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pre := preflight(t, tt.srv, tt.origin)
			wantNoContent(t, pre)
			assert.Contains(t, []string{tt.origin, "*"}, pre.Header.Get("Access-Control-Allow-Origin"), "preflight: Access-Control-Allow-Origin")
			assert.Contains(t, list(pre.Header, "Access-Control-Allow-Methods"), "post", "preflight: Access-Control-Allow-Methods")
			headers := list(pre.Header, "Access-Control-Allow-Headers")
			assert.True(t, slices.Contains(headers, "x-api-key") && slices.Contains(headers, "content-type"), "preflight: Access-Control-Allow-Headers = %v", headers)
			headers = list(preflightAsking(t, tt.srv, tt.origin, "").Header, "Access-Control-Allow-Headers")
			assert.Contains(t, headers, "x-api-key", "preflight asking no headers: Access-Control-Allow-Headers")

			r := real(t, tt.srv, tt.origin)
			assert.Contains(t, []string{tt.origin, "*"}, r.Header.Get("Access-Control-Allow-Origin"), "request: Access-Control-Allow-Origin")
			exposed := list(r.Header, "Access-Control-Expose-Headers")
			assert.True(t, slices.Contains(exposed, "content-disposition") && slices.Contains(exposed, "x-request-id"), "request: Access-Control-Expose-Headers = %v", exposed)
		})
	}

	t.Run("an origin not allowed", func(t *testing.T) {
		pre := preflight(t, allowed, other)
		wantErrorShape(t, pre)
		assert.Equal(t, 403, pre.Status, "preflight from an origin not allowed")
		assert.Empty(t, pre.Header.Get("Access-Control-Allow-Origin"), "preflight: Access-Control-Allow-Origin")
		assert.Empty(t, real(t, allowed, other).Header.Get("Access-Control-Allow-Origin"), "request: Access-Control-Allow-Origin")
	})

	t.Run("without WithCORS", func(t *testing.T) {
		// The answers are those of the same requests without an Origin.
		pre := preflight(t, plain, app)
		bare := send(t, plain, request{Method: "OPTIONS", Path: "/v1/workflows/wf_default/profiles", Key: noKey})
		assert.Equal(t, bare.Status, pre.Status, "a preflight without WithCORS, against an OPTIONS request: %s", pre)
		assert.Equal(t, bare.Header.Values("Vary"), pre.Header.Values("Vary"), "Vary of a preflight without WithCORS")
		r := real(t, plain, app)
		assert.Empty(t, r.Header.Values("Vary"), "Vary of a request without WithCORS")
		for _, r := range []*response{pre, r} {
			for k := range r.Header {
				assert.False(t, strings.HasPrefix(strings.ToLower(k), "access-control-"), "header %s set without WithCORS", k)
			}
		}
	})
}
