package mockserver_test

// Hostile snapshots sent to PUT /_mock/snapshot: each is refused whole,
// with 400 VALIDATION_ERROR (or 413, 415), never a 500, and the state
// stays exactly as it was.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver"
	"github.com/profilesvc/profilesvc-go/mockserver/engine"
)

// snapshotDoc is a snapshot decoded as generic JSON, for mutations.
type snapshotDoc = map[string]any

func decodeSnapshotDoc(t *testing.T, b []byte) snapshotDoc {
	t.Helper()
	var d snapshotDoc
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	require.NoError(t, dec.Decode(&d))
	return d
}

func encodeSnapshotDoc(t *testing.T, d snapshotDoc) []byte {
	t.Helper()
	b, err := json.Marshal(d)
	require.NoError(t, err)
	return b
}

// list returns the records of a list of the snapshot.
func list(d snapshotDoc, name string) []any { l, _ := d[name].([]any); return l }

func rec(d snapshotDoc, name string, i int) map[string]any { return list(d, name)[i].(map[string]any) }

// stateWithoutTaken is GET /_mock/snapshot without its "taken" time, for
// comparing states.
func stateWithoutTaken(t *testing.T, srv *mockserver.Server, key string) string {
	t.Helper()
	r := send(t, srv, request{Method: "GET", Path: "/_mock/snapshot", Key: key})
	require.Equal(t, http.StatusOK, r.Status, "%s", r)
	d := decodeSnapshotDoc(t, r.Body)
	delete(d, "taken")
	return string(encodeSnapshotDoc(t, d))
}

// fixtureSnapshot fills a server with the shared snapshot fixture and
// returns it with its snapshot over HTTP.
func fixtureSnapshot(t *testing.T) (*mockserver.Server, snapshotFixture, []byte) {
	t.Helper()
	fc := mockserver.NewFakeClock(kitT0)
	srv := newServer(t, mockserver.WithClock(fc), mockserver.WithAnalysisDuration(snapshotRunDuration))
	f := buildSnapshotFixture(t, srv, fc)
	r := do(t, srv, "GET", "/_mock/snapshot", nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r)
	return srv, f, r.Body
}

func TestHostileSnapshotsRefusedWhole(t *testing.T) {
	t.Parallel()
	srv, f, good := fixtureSnapshot(t)
	before := stateWithoutTaken(t, srv, "")

	type mutation struct {
		name   string
		body   func(d snapshotDoc) []byte // nil: mutate, then encode
		mutate func(d snapshotDoc)
		status int
		has    string
	}
	raw := func(s string) func(snapshotDoc) []byte { return func(snapshotDoc) []byte { return []byte(s) } }
	deep := strings.Repeat(`[`, 20000) + strings.Repeat(`]`, 20000)
	tests := []mutation{
		{name: "truncated", body: func(snapshotDoc) []byte { return good[:len(good)/2] }, status: 400},
		{name: "array", body: raw(`[]`), status: 400},
		{name: "string", body: raw(`"snapshot"`), status: 400},
		{name: "null", body: raw(`null`), status: 400},
		{name: "number", body: raw(`1`), status: 400},
		{name: "empty object", body: raw(`{}`), status: 400, has: "version"},
		{name: "empty", body: raw(``), status: 400},
		{name: "two objects", body: func(snapshotDoc) []byte { return append(append([]byte{}, good...), good...) }, status: 400},
		{name: "not UTF-8", body: func(snapshotDoc) []byte { return bytes.Replace(good, []byte(`"Alpha"`), []byte("\"Al\xffpha\""), 1) }, status: 400},
		{name: "version 0", mutate: func(d snapshotDoc) { d["version"] = 0 }, status: 400, has: "version"},
		{name: "version 2", mutate: func(d snapshotDoc) { d["version"] = 2 }, status: 400, has: "version"},
		{name: "version as string", mutate: func(d snapshotDoc) { d["version"] = "1" }, status: 400, has: "version"},
		{name: "version fractional", mutate: func(d snapshotDoc) { d["version"] = json.Number("1.5") }, status: 400, has: "version"},
		{name: "version huge", mutate: func(d snapshotDoc) { d["version"] = json.Number("1" + strings.Repeat("0", 5000)) }, status: 400, has: "version"},
		{name: "seq as string", mutate: func(d snapshotDoc) { d["seq"] = "9" }, status: 400, has: "seq"},
		{name: "seq negative", mutate: func(d snapshotDoc) { d["seq"] = -1 }, status: 400, has: "seq"},
		{name: "seq beyond 2^53", mutate: func(d snapshotDoc) { d["seq"] = json.Number("9007199254740993") }, status: 400, has: "seq"},
		{name: "taken not a time", mutate: func(d snapshotDoc) { d["taken"] = "yesterday" }, status: 400},
		{name: "unknown top member", mutate: func(d snapshotDoc) { d["faults"] = []any{} }, status: 400, has: "faults"},
		{name: "member in another case", mutate: func(d snapshotDoc) { d["Profiles"] = d["profiles"]; delete(d, "profiles") }, status: 400, has: "Profiles"},
		{name: "unknown workflow member", mutate: func(d snapshotDoc) { rec(d, "workflows", 0)["owner"] = "x" }, status: 400, has: "owner"},
		{name: "unknown profile member", mutate: func(d snapshotDoc) { rec(d, "profiles", 0)["tenant"] = "x" }, status: 400, has: "tenant"},
		{name: "unknown folder member", mutate: func(d snapshotDoc) { rec(d, "folders", 0)["parent"] = "x" }, status: 400, has: "parent"},
		{name: "unknown item member", mutate: func(d snapshotDoc) { rec(d, "items", 0)["url"] = "javascript:alert(1)" }, status: 400, has: "url"},
		{name: "unknown analysis record member", mutate: func(d snapshotDoc) { rec(d, "analyses", 0)["owner"] = "x" }, status: 400, has: "owner"},
		{name: "unknown member of an analysis", mutate: func(d snapshotDoc) { rec(d, "analyses", 0)["analysis"].(map[string]any)["owner"] = "x" }, status: 400, has: "owner"},
		{name: "unknown member of an analysis input", mutate: func(d snapshotDoc) { rec(d, "analyses", 0)["input"].(map[string]any)["Owner"] = "x" }, status: 400, has: "Owner"},
		{name: "profiles not a list", mutate: func(d snapshotDoc) { d["profiles"] = map[string]any{} }, status: 400, has: "profiles"},
		{name: "duplicate profile", mutate: func(d snapshotDoc) { d["profiles"] = append(list(d, "profiles"), list(d, "profiles")[0]) }, status: 400, has: "profiles[2]"},
		{name: "duplicate item", mutate: func(d snapshotDoc) { d["items"] = append(list(d, "items"), list(d, "items")[0]) }, status: 400},
		{name: "duplicate analysis", mutate: func(d snapshotDoc) { d["analyses"] = append(list(d, "analyses"), list(d, "analyses")[0]) }, status: 400},
		{name: "a folder's ID on a profile", mutate: func(d snapshotDoc) { rec(d, "profiles", 0)["id"] = rec(d, "folders", 0)["id"] }, status: 400, has: "id"},
		{name: "an ID with a slash", mutate: func(d snapshotDoc) { rec(d, "items", 0)["id"] = "item_a/../b" }, status: 400, has: "id"},
		{name: "an ID with markup", mutate: func(d snapshotDoc) { rec(d, "profiles", 0)["id"] = "pf_<img src=x onerror=alert(1)>" }, status: 400, has: "id"},
		{name: "an ID of 10 KB", mutate: func(d snapshotDoc) { rec(d, "profiles", 0)["id"] = "pf_" + strings.Repeat("a", 10<<10) }, status: 400, has: "id"},
		{name: "dangling folder", mutate: func(d snapshotDoc) { rec(d, "folders", 0)["profileId"] = "pf_nobody" }, status: 400, has: "profileId"},
		{name: "dangling item", mutate: func(d snapshotDoc) { rec(d, "items", 0)["folderId"] = "fld_nobody" }, status: 400, has: "folderId"},
		{name: "dangling analysis", mutate: func(d snapshotDoc) {
			rec(d, "analyses", 0)["analysis"].(map[string]any)["profileId"] = "pf_nobody"
		}, status: 400, has: "profileId"},
		{name: "a profile listing an analysis it does not have", mutate: func(d snapshotDoc) {
			p := rec(d, "profiles", 0)
			p["analysisIds"] = append(p["analysisIds"].([]any), "analysis_nobody")
		}, status: 400, has: "analysisIds"},
		{name: "a folder listing an item twice", mutate: func(d snapshotDoc) {
			fd := rec(d, "folders", 0)
			ids := fd["itemIds"].([]any)
			fd["itemIds"] = append(ids, ids[0])
		}, status: 400, has: "itemIds"},
		{name: "no workflow", mutate: func(d snapshotDoc) { d["workflows"] = []any{} }, status: 400, has: "workflow"},
		{name: "workflows null", mutate: func(d snapshotDoc) { d["workflows"] = nil }, status: 400, has: "workflow"},
		{name: "a name of 1 MB", mutate: func(d snapshotDoc) { rec(d, "profiles", 0)["name"] = strings.Repeat("n", 1<<20) }, status: 400, has: "name"},
		{name: "an empty name", mutate: func(d snapshotDoc) { rec(d, "folders", 0)["name"] = "  " }, status: 400, has: "name"},
		{name: "metadata nested 20,000 deep", body: func(snapshotDoc) []byte {
			return bytes.Replace(good, []byte(`"tier":"gold"`), []byte(`"tier":`+deep), 1)
		}, status: 400},
		{name: "item data not base64", mutate: func(d snapshotDoc) { rec(d, "items", 0)["data"] = "!!!not base64!!!" }, status: 400, has: "data"},
		{name: "item data as a number", mutate: func(d snapshotDoc) { rec(d, "items", 0)["data"] = 12 }, status: 400, has: "data"},
		{name: "a text item's data not its content", mutate: func(d snapshotDoc) {
			for _, it := range list(d, "items") {
				if m := it.(map[string]any); m["type"] == "text" {
					m["data"] = "aGVsbG8="
				}
			}
		}, status: 400, has: "data"},
		{name: "an item status with a control character", mutate: func(d snapshotDoc) { rec(d, "items", 0)["status"] = "ACTIVE\n" }, status: 400, has: "status"},
		{name: "an item of no type", mutate: func(d snapshotDoc) { rec(d, "items", 0)["type"] = "<b>" }, status: 400, has: "type"},
		{name: "an analysis of an unknown status", mutate: func(d snapshotDoc) { rec(d, "analyses", 0)["analysis"].(map[string]any)["status"] = "done" }, status: 400, has: "status"},
		{name: "a completed analysis without its risk", mutate: func(d snapshotDoc) {
			for _, a := range list(d, "analyses") {
				if an := a.(map[string]any)["analysis"].(map[string]any); an["status"] == "completed" {
					delete(an, "riskAssessment")
				}
			}
		}, status: 400, has: "riskAssessment"},
		{name: "a pending analysis with a report", mutate: func(d snapshotDoc) {
			for _, a := range list(d, "analyses") {
				if an := a.(map[string]any)["analysis"].(map[string]any); an["status"] != "completed" {
					an["status"] = "pending"
					an["primaryReportId"] = "report_1"
				}
			}
		}, status: 400, has: "primaryReportId"},
		{name: "a failed analysis without its error", mutate: func(d snapshotDoc) {
			for _, a := range list(d, "analyses") {
				if an := a.(map[string]any)["analysis"].(map[string]any); an["status"] != "completed" {
					an["status"] = "failed"
					an["error"] = nil
				}
			}
		}, status: 400, has: "error"},
		{name: "an analysis as a string", mutate: func(d snapshotDoc) { rec(d, "analyses", 0)["analysis"] = "{}" }, status: 400, has: "analysis"},
		{name: "an analysis's run of a century", mutate: func(d snapshotDoc) { rec(d, "analyses", 0)["durationMs"] = json.Number("3153600000000") }, status: 400, has: "durationMs"},
		{name: "an analysis's run as a string", mutate: func(d snapshotDoc) { rec(d, "analyses", 0)["durationMs"] = "10" }, status: 400, has: "durationMs"},
		{name: "two running analyses of a profile", mutate: func(d snapshotDoc) {
			for _, a := range list(d, "analyses") {
				an := a.(map[string]any)["analysis"].(map[string]any)
				if an["id"] == f.completed {
					an["status"], an["profileId"] = "processing", f.alpha
					delete(an, "completedAt")
				}
			}
		}, status: 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var body []byte
			if tt.body != nil {
				body = tt.body(nil)
			} else {
				d := decodeSnapshotDoc(t, good)
				tt.mutate(d)
				body = encodeSnapshotDoc(t, d)
			}
			r := do(t, srv, "PUT", "/_mock/snapshot", body)
			require.Equal(t, tt.status, r.Status, "%s", r)
			code := map[int]string{400: "VALIDATION_ERROR", 413: "PAYLOAD_TOO_LARGE", 415: "UNSUPPORTED_MEDIA_TYPE"}[tt.status]
			msg := wantError(t, r, tt.status, code)
			// The message names the problem, though it may be cut short
			// (TestHostileSnapshotRefusalNamesItsProblem).
			if tt.has != "" && !strings.Contains(msg, "characters)") {
				assert.Contains(t, msg, tt.has, "the message names the problem")
			}
			assert.LessOrEqual(t, len(r.Body), 2048, "the error echoes the hostile value clipped")
			assert.Equal(t, before, stateWithoutTaken(t, srv, ""), "the state is unchanged")
		})
	}
}

// putSnapshot restores a snapshot over HTTP with the key (request.Key).
func putSnapshot(t *testing.T, srv *mockserver.Server, key string, body []byte) *response {
	t.Helper()
	return send(t, srv, request{Method: "PUT", Path: "/_mock/snapshot", Key: key, Body: body, ContentType: "application/json"})
}

// A snapshot taken over HTTP and restored over HTTP keeps everything:
// workflows, profiles, folders, items with their bytes, analyses with
// their results and their runs; the next snapshot is the same, and the
// service answers the same.
func TestHostileSnapshotRoundTripKeepsEverything(t *testing.T) {
	t.Parallel()
	srv, f, _ := fixtureSnapshot(t)
	require.NoError(t, srv.AddWorkflow(mockserver.Workflow{ID: "wf_extra", Name: "Extra"}))
	s1 := do(t, srv, "GET", "/_mock/snapshot", nil).Body
	before := stateWithoutTaken(t, srv, "")
	answers := map[string][]byte{}
	paths := []string{"/v1/profiles/" + f.alpha, "/v1/profiles/" + f.beta, "/v1/analyses/" + f.completed, "/v1/analyses/" + f.running,
		"/v1/items/" + f.png, "/v1/items/" + f.form, "/v1/folders/" + f.idsFolder, "/v1/analyses/" + f.completed + "/report"}
	for _, p := range paths {
		r := do(t, srv, "GET", p, nil)
		require.Equal(t, http.StatusOK, r.Status, "%s: %s", p, r)
		answers[p] = r.Body
	}
	png, ok := srv.ItemBytes(f.png)
	require.True(t, ok)

	wantNoContent(t, do(t, srv, "POST", "/_mock/reset", nil))
	wantNoContent(t, putSnapshot(t, srv, "", s1))
	assert.Equal(t, before, stateWithoutTaken(t, srv, ""), "the next snapshot is the same")
	for _, p := range paths {
		r := do(t, srv, "GET", p, nil)
		require.Equal(t, http.StatusOK, r.Status, "%s: %s", p, r)
		assert.Equal(t, string(answers[p]), string(r.Body), "%s answers the same", p)
	}
	back, ok := srv.ItemBytes(f.png)
	require.True(t, ok)
	assert.Equal(t, png, back, "the item's bytes")
	// Twice over: still the same.
	wantNoContent(t, putSnapshot(t, srv, "", do(t, srv, "GET", "/_mock/snapshot", nil).Body))
	assert.Equal(t, before, stateWithoutTaken(t, srv, ""))
}

// An analysis keeps the bytes of the items it read, for its report's
// list of documents (size and SHA-256), after the items are deleted; a
// snapshot keeps them too, so that a round trip through GET and PUT
// /_mock/snapshot (or Snapshot and Restore) gives the same report.
func TestHostileSnapshotRoundTripKeepsDeletedItemsBytes(t *testing.T) {
	t.Parallel()
	srv := newServer(t, mockserver.WithManualAnalyses())
	pid, fid := createProfile(t, srv, "Jane Doe")
	item := createTextItem(t, srv, fid, "passport", passportOf("Jane Doe"))
	id := startAnalysis(t, srv, pid, item)
	require.NoError(t, srv.CompleteAnalysis(id))
	wantNoContent(t, do(t, srv, "DELETE", "/v1/items/"+item, nil))

	report := do(t, srv, "GET", "/v1/analyses/"+id+"/report", nil)
	require.Equal(t, http.StatusOK, report.Status)
	snap := do(t, srv, "GET", "/_mock/snapshot", nil)
	require.Equal(t, http.StatusOK, snap.Status)
	wantNoContent(t, putSnapshot(t, srv, "", snap.Body))
	again := do(t, srv, "GET", "/v1/analyses/"+id+"/report", nil)
	require.Equal(t, http.StatusOK, again.Status)
	assert.True(t, bytes.Equal(report.Body, again.Body), "the report of an analysis whose item was deleted changed in a snapshot's round trip")
}

// The message of a refused snapshot names its first problem, as
// Restore's error does: the README's example, a folder of no profile,
// over HTTP.
func TestHostileSnapshotRefusalNamesItsProblem(t *testing.T) {
	t.Parallel()
	srv, _, good := fixtureSnapshot(t)
	d := decodeSnapshotDoc(t, good)
	rec(d, "folders", 0)["profileId"] = "pf_nobody"
	bad := encodeSnapshotDoc(t, d)

	var snap mockserver.Snapshot
	require.NoError(t, snap.UnmarshalJSON(bad))
	goErr := srv.Restore(&snap)
	require.Error(t, goErr)
	require.Contains(t, goErr.Error(), `names profile "pf_nobody", which the snapshot does not hold`, "Restore names the problem")

	msg := wantError(t, putSnapshot(t, srv, "", bad), http.StatusBadRequest, "VALIDATION_ERROR")
	assert.Equal(t, strings.TrimPrefix(goErr.Error(), "mockserver: "), msg, "PUT /_mock/snapshot names the problem as Restore does")
	assert.Contains(t, msg, `names profile "pf_nobody", which the snapshot does not hold`)
}

// Long polls held while snapshots are restored: each wakes, looks at its
// analysis as the restored state has it, and answers or waits on.
func TestHostileSnapshotRestoreWithLongPolls(t *testing.T) {
	t.Parallel()
	waits := make(chan struct{}, 64)
	srv := newServer(t, mockserver.WithManualAnalyses(), mockserver.WithPollWaits(waits))
	pid, fid := createProfile(t, srv, "Polled")
	item := createTextItem(t, srv, fid, "passport", identityDoc)
	id := startAnalysis(t, srv, pid, item)
	pending := do(t, srv, "GET", "/_mock/snapshot", nil).Body
	require.NoError(t, srv.CompleteAnalysis(id))
	completed := do(t, srv, "GET", "/_mock/snapshot", nil).Body
	emptied := func() []byte {
		d := decodeSnapshotDoc(t, pending)
		rec(d, "profiles", 0)["analysisIds"] = []any{}
		d["analyses"] = []any{}
		return encodeSnapshotDoc(t, d)
	}()
	path := "/v1/analyses/" + id + "?waitForReport=true&timeoutSeconds=300"

	// A restore that leaves it pending: the poll waits on.
	wantNoContent(t, putSnapshot(t, srv, "", pending))
	held := longPoll(t, srv, t.Context(), path)
	awaitPollWait(t, waits, held)
	wantNoContent(t, putSnapshot(t, srv, "", pending))
	awaitPollWait(t, waits, held)
	wantNotAnswered(t, held)
	// A restore that completes it: the poll answers, with the report.
	wantNoContent(t, putSnapshot(t, srv, "", completed))
	a := jsonObject(t, awaitAnswer(t, held, time.Minute), http.StatusOK)
	assert.Equal(t, "completed", a["status"])
	assert.NotNil(t, a["primaryReportId"])

	// A restore without it: 404.
	wantNoContent(t, putSnapshot(t, srv, "", pending))
	held = longPoll(t, srv, t.Context(), path)
	awaitPollWait(t, waits, held)
	wantNoContent(t, putSnapshot(t, srv, "", emptied))
	wantError(t, awaitAnswer(t, held, time.Minute), http.StatusNotFound, "ANALYSIS_NOT_FOUND")

	// A refused restore changes nothing: the poll waits on.
	wantNoContent(t, putSnapshot(t, srv, "", pending))
	held = longPoll(t, srv, t.Context(), path)
	awaitPollWait(t, waits, held)
	wantError(t, putSnapshot(t, srv, "", []byte(`{"version":1,"workflows":[]}`)), http.StatusBadRequest, "VALIDATION_ERROR")
	wantNotAnswered(t, held)
	require.NoError(t, srv.CompleteAnalysis(id))
	assert.Equal(t, "completed", jsonObject(t, awaitAnswer(t, held, time.Minute), http.StatusOK)["status"])

	// Many polls, many restores at once: once the last restore completes
	// it, each answers completed.
	wantNoContent(t, putSnapshot(t, srv, "", pending))
	var polls []<-chan poll
	for range 4 {
		p := longPoll(t, srv, t.Context(), path)
		awaitPollWait(t, waits, p)
		polls = append(polls, p)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			_, _ = sendWith(rawClient, srv, request{Method: "PUT", Path: "/_mock/snapshot", Body: [][]byte{pending, completed}[i%2], ContentType: "application/json"})
		})
	}
	wg.Wait()
	wantNoContent(t, putSnapshot(t, srv, "", completed))
	for _, p := range polls {
		assert.Equal(t, "completed", jsonObject(t, awaitAnswer(t, p, time.Minute), http.StatusOK)["status"])
	}
}

// Restores at once, of two snapshots, with readers: every snapshot read
// is one of the two, whole, never a mixture; and with writers among
// them, every one read still holds together.
func TestHostileSnapshotConcurrentRestores(t *testing.T) {
	t.Parallel()
	srv, f, sa := fixtureSnapshot(t)
	wantNoContent(t, do(t, srv, "DELETE", "/v1/profiles/"+f.beta, nil))
	createProfile(t, srv, "Gamma")
	sb := do(t, srv, "GET", "/_mock/snapshot", nil).Body
	wantNoContent(t, putSnapshot(t, srv, "", sa))
	wantA := stateWithoutTaken(t, srv, "")
	wantNoContent(t, putSnapshot(t, srv, "", sb))
	wantB := stateWithoutTaken(t, srv, "")
	require.NotEqual(t, wantA, wantB)

	hc := newHTTPClient(t)
	var errs sync.Map
	var wg sync.WaitGroup
	for i := range 6 {
		wg.Go(func() {
			for j := range 10 {
				r, err := sendWith(hc, srv, request{Method: "PUT", Path: "/_mock/snapshot", Body: [][]byte{sa, sb}[(i+j)%2], ContentType: "application/json"})
				if err != nil || r.Status != http.StatusNoContent {
					errs.Store(fmt.Sprintf("PUT: %v %v", r, err), true)
				}
			}
		})
	}
	for range 2 {
		wg.Go(func() {
			for range 15 {
				r, err := sendWith(hc, srv, request{Method: "GET", Path: "/_mock/snapshot"})
				if err != nil || r.Status != http.StatusOK {
					errs.Store(fmt.Sprintf("GET: %v %v", r, err), true)
					continue
				}
				var d snapshotDoc
				if json.Unmarshal(r.Body, &d) != nil {
					errs.Store("GET: not JSON", true)
					continue
				}
				delete(d, "taken")
				b, _ := json.Marshal(d)
				if got := string(b); got != wantA && got != wantB {
					errs.Store("a snapshot read between restores is neither of them: "+got[:min(len(got), 300)], true)
				}
			}
		})
	}
	wg.Wait()
	errs.Range(func(k, _ any) bool { t.Error(k); return true })

	// With writers: whatever is read holds together.
	checker := newServer(t)
	var writers sync.WaitGroup
	for i := range 3 {
		writers.Go(func() {
			for j := range 10 {
				_, _ = sendWith(hc, srv, request{Method: "POST", Path: "/v1/workflows/wf_default/profiles", JSON: map[string]any{"name": fmt.Sprintf("w%d-%d", i, j)}})
				_, _ = sendWith(hc, srv, request{Method: "PUT", Path: "/_mock/snapshot", Body: [][]byte{sa, sb}[j%2], ContentType: "application/json"})
				_, _ = sendWith(hc, srv, request{Method: "POST", Path: "/v1/profiles/" + f.alpha + "/folders", JSON: map[string]any{"name": "x"}})
				_, _ = sendWith(hc, srv, request{Method: "DELETE", Path: "/v1/items/" + f.png})
			}
		})
	}
	for range 10 {
		r, err := sendWith(hc, srv, request{Method: "GET", Path: "/_mock/snapshot"})
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, r.Status)
		back, err := sendWith(hc, checker, request{Method: "PUT", Path: "/_mock/snapshot", Body: r.Body, ContentType: "application/json"})
		require.NoError(t, err)
		assert.Equal(t, http.StatusNoContent, back.Status, "a snapshot read under writes restores: %s", back)
	}
	writers.Wait()
}

// A snapshot's body is bounded by the upload limit: a declared length
// over it, a chunked body over it and a length that lies are refused
// (413, 400), never a 500, and the state stays.
func TestHostileSnapshotBodyLimits(t *testing.T) {
	t.Parallel()
	srv := newServer(t, mockserver.WithMaxUploadSize(64<<10))
	createProfile(t, srv, "Kept")
	good := do(t, srv, "GET", "/_mock/snapshot", nil).Body
	before := stateWithoutTaken(t, srv, "")
	d := decodeSnapshotDoc(t, good)
	rec(d, "profiles", 0)["description"] = strings.Repeat("d", 100<<10)
	big := encodeSnapshotDoc(t, d)

	wantError(t, putSnapshot(t, srv, "", big), http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE")
	// Chunked: no length declared.
	req, err := http.NewRequestWithContext(t.Context(), "PUT", srv.URL+"/_mock/snapshot", io.MultiReader(bytes.NewReader(big)))
	require.NoError(t, err)
	req.Header.Set("x-api-key", srv.APIKey)
	req.Header.Set("Content-Type", "application/json")
	req.ContentLength = -1 // chunked
	r, err := roundTrip(rawClient, req)
	require.NoError(t, err)
	wantError(t, r, http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE")
	// A length shorter than the body: the JSON is cut.
	host := strings.TrimPrefix(srv.URL, "http://")
	short := sendRawBody(t, host, fmt.Sprintf("PUT /_mock/snapshot HTTP/1.1\r\nHost: %s\r\nx-api-key: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n", host, srv.APIKey, len(good)/2), good)
	assert.Equal(t, http.StatusBadRequest, short.Status, "%s", short)
	// A length longer than the body, the client then closing: 400.
	long := sendRawBody(t, host, fmt.Sprintf("PUT /_mock/snapshot HTTP/1.1\r\nHost: %s\r\nx-api-key: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", host, srv.APIKey, len(good)+10), good)
	assert.Equal(t, http.StatusBadRequest, long.Status, "%s", long)
	// Not JSON.
	wantError(t, send(t, srv, request{Method: "PUT", Path: "/_mock/snapshot", Body: good, ContentType: "text/json"}), http.StatusUnsupportedMediaType, "UNSUPPORTED_MEDIA_TYPE")
	wantError(t, send(t, srv, request{Method: "PUT", Path: "/_mock/snapshot", Body: good}), http.StatusUnsupportedMediaType, "UNSUPPORTED_MEDIA_TYPE")
	assert.Equal(t, before, stateWithoutTaken(t, srv, ""))
}

// sendRawBody writes a request's head and body on a fresh connection,
// closes its writing side, and reads the answer.
func sendRawBody(t *testing.T, host, head string, body []byte) *response {
	t.Helper()
	conn, err := net.Dial("tcp", host)
	require.NoError(t, err)
	defer conn.Close()
	_, err = io.WriteString(conn, head)
	require.NoError(t, err)
	_, err = conn.Write(body)
	require.NoError(t, err)
	require.NoError(t, conn.(*net.TCPConn).CloseWrite())
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return &response{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// hogSnapshot starts PUT /_mock/snapshot in-process with key and a body
// that arrives through a pipe, declaring length (-1: none). It returns
// once the handler has read the body's first byte, having taken its
// memory (readStarted true), or has answered without reading
// (readStarted false); release ends the request.
func hogSnapshot(t *testing.T, srv *mockserver.Server, key string, length int64) (readStarted bool, rec *httptest.ResponseRecorder, release func()) {
	t.Helper()
	pr, pw := io.Pipe()
	req := httptest.NewRequestWithContext(t.Context(), "PUT", "/_mock/snapshot", pr)
	req.ContentLength = length
	req.Header.Set("x-api-key", key)
	req.Header.Set("Content-Type", "application/json")
	rec = httptest.NewRecorder()
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Handler().ServeHTTP(rec, req)
	}()
	wrote := make(chan error, 1)
	go func() {
		_, err := pw.Write([]byte("{"))
		wrote <- err
	}()
	var werr error
	select {
	case <-done:
		_ = pr.Close()
		werr = <-wrote
	case werr = <-wrote:
	}
	release = func() {
		_ = pw.CloseWithError(io.ErrUnexpectedEOF)
		<-done
	}
	t.Cleanup(release)
	return werr == nil, rec, release
}

// A snapshot's body takes memory from the budget of uploads under way as
// it arrives, not before: a body that never comes (one byte of a chunked
// body) holds a block, and one that declares more than the limit is
// refused at once, so that another tenant's upload still fits.
func TestHostileSnapshotBodyNotSentHoldsLittle(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		length int64
	}{
		{"chunked", -1},
		{"declared over the limit", 26 << 20},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newServer(t, mockserver.WithMultiTenant())
			_, fid := createProfile(t, srv, "Uploads")
			const other = "6f1c1b52-4b9e-4d57-9a0e-0c8f4f1d2a3b"
			readStarted, rec, release := hogSnapshot(t, srv, other, tt.length)
			if !readStarted {
				assert.Equal(t, http.StatusRequestEntityTooLarge, rec.Code, "refused before its body: %s", rec.Body)
				return
			}
			r := upload(t, srv, fid, "passport.txt", []byte(identityDoc))
			assert.Equal(t, http.StatusCreated, r.Status,
				"an upload of 100 bytes while another tenant's PUT /_mock/snapshot has sent one byte of its body: %s", r)
			release()
		})
	}
}

// A snapshot restored over HTTP takes from the budget of uploads under
// way what decoding it takes, by its size and by its number of values: a
// snapshot of many small JSON values (a profile's metadata of a million
// empty objects, 3 MiB), which would keep 20 times its size once
// decoded, is refused rather than kept past the budget.
func TestHostileSnapshotMemoryWithinItsBudget(t *testing.T) {
	// Not parallel: the heap is measured.
	const budget = 40 << 20
	srv := newServer(t)
	createProfile(t, srv, "Heavy")
	d := decodeSnapshotDoc(t, do(t, srv, "GET", "/_mock/snapshot", nil).Body)
	const n = 1 << 20
	rec(d, "profiles", 0)["metadata"] = json.RawMessage(`{"k":[` + strings.Repeat(`{},`, n-1) + `{}]}`)
	body := encodeSnapshotDoc(t, d)
	require.Less(t, len(body), budget/5, "within the body limit of the budget")

	dst := newServer(t, mockserver.WithUploadMemory(budget))
	before := liveHeap()
	r := putSnapshot(t, dst, "", body)
	kept := int64(liveHeap()) - int64(before)
	if r.Status != http.StatusNoContent {
		assert.Contains(t, []int{400, 413, 503}, r.Status, "refused: %s", r)
		return
	}
	assert.LessOrEqual(t, kept, int64(budget),
		"a snapshot of %d bytes, restored, keeps %d bytes (%.1f times its size), more than the whole upload budget of %d", len(body), kept, float64(kept)/float64(len(body)), budget)
}

// liveHeap is the heap in use after a collection.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// Browser code of an origin WithCORS allows may call the control API,
// PUT /_mock/snapshot included: the preflight allows PUT.
func TestHostileCORSPreflightAllowsPut(t *testing.T) {
	t.Parallel()
	srv := newServer(t, mockserver.WithCORS("https://app.example"))
	r := send(t, srv, request{Method: "OPTIONS", Path: "/_mock/snapshot", Key: noKey, Header: http.Header{
		"Origin": {"https://app.example"}, "Access-Control-Request-Method": {"PUT"}, "Access-Control-Request-Headers": {"x-api-key, content-type"},
	}})
	require.Equal(t, http.StatusNoContent, r.Status, "%s", r)
	allowed := strings.Split(strings.ReplaceAll(r.Header.Get("Access-Control-Allow-Methods"), " ", ""), ",")
	assert.Contains(t, allowed, "PUT", "Access-Control-Allow-Methods: %s", r.Header.Get("Access-Control-Allow-Methods"))
}

// GET /_mock/snapshot is written record by record: a client that reads
// only the head of the answer holds a record's encoding, not the whole
// namespace's (16 MiB of files here), for as long as it keeps the
// connection.
func TestHostileSnapshotDownloadStreams(t *testing.T) {
	// Not parallel: the heap is measured.
	srv := newServer(t)
	p, err := srv.CreateProfile("wf_default", profilesvc.CreateProfileParams{Name: "Files"})
	require.NoError(t, err)
	const files, size = 16, 1 << 20
	for i := range files {
		data := make([]byte, size)
		for j := range data {
			data[j] = byte(j*7 + i)
		}
		_, err := srv.AddFileItem(p.Folders[0].ID, fmt.Sprintf("f%d.bin", i), data)
		require.NoError(t, err)
	}
	base := liveHeap()
	host := strings.TrimPrefix(srv.URL, "http://")
	conn, err := net.Dial("tcp", host)
	require.NoError(t, err)
	defer conn.Close()
	_, err = fmt.Fprintf(conn, "GET /_mock/snapshot HTTP/1.1\r\nHost: %s\r\nx-api-key: %s\r\n\r\n", host, srv.APIKey)
	require.NoError(t, err)
	// The head, and not a byte more of the body than the reader's buffer.
	resp, err := http.ReadResponse(bufio.NewReaderSize(conn, 16), nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	held := int64(liveHeap()) - int64(base)
	assert.LessOrEqual(t, held, int64(4*size),
		"a client reading the head of GET /_mock/snapshot holds %.1f MiB, for %d MiB of items", float64(held)/(1<<20), files*size>>20)
}

// A run under way when a snapshot is restored never lands in the
// restored state: the engine finishes after the PUT, and the analysis
// stays as the snapshot has it.
func TestHostileSnapshotRestoreDuringARun(t *testing.T) {
	t.Parallel()
	entered, release := make(chan struct{}), make(chan struct{})
	srv := newServer(t, mockserver.WithManualAnalyses(), mockserver.WithAnalyzer(func(ctx context.Context, in mockserver.AnalysisInput) (mockserver.AnalysisResult, error) {
		entered <- struct{}{}
		<-release
		return engine.Default(ctx, in)
	}))
	pid, fid := createProfile(t, srv, "Raced")
	item := createTextItem(t, srv, fid, "passport", identityDoc)
	id := startAnalysis(t, srv, pid, item)
	pending := do(t, srv, "GET", "/_mock/snapshot", nil).Body
	before := stateWithoutTaken(t, srv, "")

	completing := goSend(t, srv, request{Method: "POST", Path: "/_mock/analyses/" + id + "/complete"})
	<-entered
	wantNoContent(t, putSnapshot(t, srv, "", pending))
	close(release)
	r := awaitAnswer(t, completing, time.Minute)
	assert.Less(t, r.Status, 500, "%s", r)
	assert.Equal(t, "pending", getAnalysis(t, srv, id)["status"], "the run begun before the restore did not land")
	assert.Equal(t, before, stateWithoutTaken(t, srv, ""))
	// And the restored analysis runs, when asked.
	go func() { <-entered }()
	require.NoError(t, srv.CompleteAnalysis(id))
	assert.Equal(t, "completed", getAnalysis(t, srv, id)["status"])
}
