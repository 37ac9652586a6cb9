package mockserver_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"mime"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go/mockserver"
	"github.com/profilesvc/profilesvc-go/mockserver/internal/pdftest"
)

// The golden files hold the mock's whole answers to a walk through every
// route (published, inferred, storage and control), under a fixed ID seed
// and a fake clock, and the text of an English and a Korean report: any
// change of an answer shows as a diff. Regenerate them with
//
//	go test ./mockserver -run TestGolden -args -update

// goldenUpdate reports whether -update was given: the flag is defined by
// the package's internal tests, which share this test binary.
func goldenUpdate() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// goldenDir is where the golden files live.
const goldenDir = "testdata/golden"

// goldenKey is the API key of the golden walk.
const goldenKey = "5d0c3a52-1b6e-4f0a-9c1d-2e8f7a6b5c4d"

// goldenAnswer is what a golden file holds of one answer.
type goldenAnswer struct {
	Request string            `json:"request"`
	Status  int               `json:"status"`
	Headers map[string]string `json:"headers"`
	Body    any               `json:"body,omitempty"`
}

// goldenHeaders are the headers an answer is compared on; the others
// (Date) vary from run to run.
var goldenHeaders = []string{"Content-Type", "Content-Disposition", "Retry-After", "X-Request-Id"}

// goldenWalk sends the requests of the walk one by one and checks each
// answer against its golden file.
type goldenWalk struct {
	t     *testing.T
	srv   *mockserver.Server
	clock *mockserver.FakeClock
	n     int
	seen  map[string]bool
}

// do sends a request and compares its answer with the golden file named
// after the step; it returns the answer.
func (g *goldenWalk) do(name string, r request) *response {
	g.t.Helper()
	g.n++
	g.clock.Advance(time.Second) // each request at a time of its own
	if r.Key == "" {
		r.Key = goldenKey
	}
	resp := send(g.t, g.srv, r)
	got := goldenAnswer{Request: r.Method + " " + r.Path, Status: resp.Status, Headers: map[string]string{}}
	for _, h := range goldenHeaders {
		if v := resp.Header.Get(h); v != "" {
			got.Headers[h] = v
		}
	}
	// The server's port changes from run to run.
	resp.Body = bytes.ReplaceAll(resp.Body, []byte(g.srv.URL), []byte("http://mock.test"))
	got.Body = goldenBody(g.t, resp)
	file := filepath.Join(goldenDir, fmt.Sprintf("%02d-%s.json", g.n, name))
	g.seen[filepath.Base(file)] = true
	b, err := json.MarshalIndent(got, "", "  ")
	require.NoError(g.t, err)
	b = append(b, '\n')
	if goldenUpdate() {
		require.NoError(g.t, os.MkdirAll(goldenDir, 0o755))
		require.NoError(g.t, os.WriteFile(file, b, 0o644))
		return resp
	}
	want, err := os.ReadFile(file)
	require.NoError(g.t, err, "no golden file: run go test ./mockserver -run TestGolden -update")
	if diff := cmp.Diff(string(want), string(b)); diff != "" {
		g.t.Errorf("%s: the answer differs from %s (-want +got):\n%s", got.Request, file, diff)
	}
	return resp
}

// goldenBody is an answer's body as the golden file holds it: JSON as
// JSON, text as a string, a PDF as its size and digest (its text has golden
// files of its own).
func goldenBody(t *testing.T, resp *response) any {
	t.Helper()
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch {
	case len(resp.Body) == 0:
		return nil
	case mt == "application/json":
		var v any
		require.NoError(t, json.Unmarshal(resp.Body, &v), "a JSON answer: %s", resp.Body)
		return v
	case mt == "application/pdf":
		sum := sha256.Sum256(resp.Body)
		return map[string]any{"pdfBytes": len(resp.Body), "sha256": hex.EncodeToString(sum[:])}
	default:
		return string(resp.Body)
	}
}

// goldenMultipart builds an upload with a fixed boundary, so that the
// recorded request is the same on every run.
func goldenMultipart(filename, contentType string, data []byte, fields ...[2]string) ([]byte, string) {
	const boundary = "golden-boundary-7d2c"
	var b bytes.Buffer
	for _, f := range fields {
		fmt.Fprintf(&b, "--%s\r\nContent-Disposition: form-data; name=%q\r\n\r\n%s\r\n", boundary, f[0], f[1])
	}
	fmt.Fprintf(&b, "--%s\r\nContent-Disposition: form-data; name=\"file\"; filename=%q\r\nContent-Type: %s\r\n\r\n", boundary, filename, contentType)
	b.Write(data)
	fmt.Fprintf(&b, "\r\n--%s--\r\n", boundary)
	return b.Bytes(), "multipart/form-data; boundary=" + boundary
}

// goldenID reads an ID from a JSON answer.
func goldenID(t *testing.T, resp *response, key string) string {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(resp.Body, &m), "%s", resp)
	if key == "" {
		key = "id"
	}
	v, ok := m[key].(string)
	require.True(t, ok, "no %q in %s", key, resp)
	return v
}

const goldenPassport = "PASSPORT\nFull Name: Jane Marie Doe\nNationality: Canadian\nDate of Birth: 1990-04-12\nPassport Number: AB1234567\nExpiry Date: 2031-05-01\n"

func TestGolden(t *testing.T) {
	clock := mockserver.NewFakeClock(time.Date(2030, 3, 1, 9, 0, 0, 0, time.UTC))
	srv := mockserver.NewTest(t, mockserver.WithAPIKey(goldenKey), mockserver.WithIDSeed(7),
		mockserver.WithClock(clock), mockserver.WithManualAnalyses())
	g := &goldenWalk{t: t, srv: srv, clock: clock, seen: map[string]bool{}}

	// Profiles.
	created := g.do("create-profile", request{Method: "POST", Path: "/v1/workflows/wf_default/profiles",
		JSON: map[string]any{"name": "Jane Marie Doe", "description": "Golden applicant", "metadata": map[string]any{"caseRef": "C-7"}}})
	pid := goldenID(t, created, "")
	var profile struct {
		Folders []struct {
			ID string `json:"id"`
		} `json:"folders"`
	}
	require.NoError(t, json.Unmarshal(created.Body, &profile))
	defaultFolder := profile.Folders[0].ID
	g.do("create-profile-unknown-workflow", request{Method: "POST", Path: "/v1/workflows/wf_missing/profiles", JSON: map[string]any{"name": "X"}})
	g.do("create-profile-no-name", request{Method: "POST", Path: "/v1/workflows/wf_default/profiles", JSON: map[string]any{"description": "x"}})
	g.do("get-profile", request{Method: "GET", Path: "/v1/profiles/" + pid})
	g.do("update-profile", request{Method: "PATCH", Path: "/v1/profiles/" + pid, JSON: map[string]any{"name": "Jane M. Doe", "metadata": map[string]any{"caseRef": "C-8"}}})
	g.do("get-profile-missing", request{Method: "GET", Path: "/v1/profiles/pf_missing"})
	g.do("list-profiles", request{Method: "GET", Path: "/v1/workflows/wf_default/profiles?limit=5&sort=name&order=asc"})

	// Folders.
	folder := goldenID(t, g.do("create-folder", request{Method: "POST", Path: "/v1/profiles/" + pid + "/folders", JSON: map[string]any{"name": "Statements"}}), "")
	g.do("create-folder-second", request{Method: "POST", Path: "/v1/profiles/" + pid + "/folders", JSON: map[string]any{"name": "Bills"}})
	page := g.do("list-folders-page-1", request{Method: "GET", Path: "/v1/profiles/" + pid + "/folders?limit=2&sort=name&order=asc"})
	next := goldenID(t, page, "nextCursor")
	g.do("list-folders-page-2", request{Method: "GET", Path: "/v1/profiles/" + pid + "/folders?limit=2&cursor=" + next})
	g.do("list-folders-search", request{Method: "GET", Path: "/v1/profiles/" + pid + "/folders?search=STATE"})
	g.do("list-folders-missing-profile", request{Method: "GET", Path: "/v1/profiles/pf_missing/folders"})
	g.do("rename-folder", request{Method: "PATCH", Path: "/v1/folders/" + folder, JSON: map[string]any{"name": "Bank statements"}})
	g.do("rename-default-folder", request{Method: "PATCH", Path: "/v1/folders/" + defaultFolder, JSON: map[string]any{"name": "mine"}})

	// Items.
	body, ct := goldenMultipart("passport.txt", "text/plain", []byte(goldenPassport), [2]string{"name", "Passport scan"}, [2]string{"metadata", `{"side":"front"}`})
	passport := goldenID(t, g.do("upload-file", request{Method: "POST", Path: "/v1/folders/" + defaultFolder + "/items", Body: body, ContentType: ct}), "")
	statement := goldenID(t, g.do("create-text-item", request{Method: "POST", Path: "/v1/folders/" + folder + "/items",
		JSON: map[string]any{"type": "text", "name": "Bank statement", "content": "Bank statement\nAccount holder: Jane Marie Doe\nDate of birth: 12/04/1990\nAddress: 12 Elm Street"}}), "")
	bill := goldenID(t, g.do("create-json-item", request{Method: "POST", Path: "/v1/folders/" + folder + "/items",
		JSON: map[string]any{"type": "json", "name": "Utility bill", "content": map[string]any{"document_type": "utility bill", "customer_name": "Jane Marie Doe", "address": "12 Elm Street"}}}), "")
	g.do("create-item-bad-type", request{Method: "POST", Path: "/v1/folders/" + folder + "/items", JSON: map[string]any{"type": "video", "content": "x"}})
	g.do("get-folder", request{Method: "GET", Path: "/v1/folders/" + folder})
	g.do("get-folder-missing", request{Method: "GET", Path: "/v1/folders/fld_missing"})
	g.do("get-item", request{Method: "GET", Path: "/v1/items/" + passport})
	g.do("update-item", request{Method: "PATCH", Path: "/v1/items/" + statement, JSON: map[string]any{"name": "March statement", "metadata": map[string]any{"month": "2026-03"}}})
	g.do("update-file-content", request{Method: "PATCH", Path: "/v1/items/" + passport, JSON: map[string]any{"content": "x"}})
	g.do("item-original", request{Method: "GET", Path: "/storage/items/" + passport + "/original"})
	g.do("item-text", request{Method: "GET", Path: "/storage/items/" + bill + "/text"})
	g.do("get-profile-with-items", request{Method: "GET", Path: "/v1/profiles/" + pid})

	// Analyses.
	targets := map[string]any{"targetItems": []map[string]any{{"itemId": passport}, {"itemId": statement}, {"itemId": bill}},
		"clientMetadata": map[string]any{"requestedBy": "golden"}}
	aid := goldenID(t, g.do("start-analysis", request{Method: "POST", Path: "/v1/analyses/" + pid + "/analyze", JSON: targets}), "")
	g.do("start-analysis-in-progress", request{Method: "POST", Path: "/v1/analyses/" + pid + "/analyze", JSON: targets})
	g.do("get-analysis-pending", request{Method: "GET", Path: "/v1/analyses/" + aid})
	g.do("report-not-available", request{Method: "GET", Path: "/v1/analyses/" + aid + "/report"})
	g.do("control-process", request{Method: "POST", Path: "/_mock/analyses/" + aid + "/process"})
	g.do("control-complete", request{Method: "POST", Path: "/_mock/analyses/" + aid + "/complete"})
	g.do("get-analysis-completed", request{Method: "GET", Path: "/v1/analyses/" + aid})
	g.do("long-poll-completed", request{Method: "GET", Path: "/v1/analyses/" + aid + "?waitForReport=true&timeoutSeconds=10"})
	g.do("get-analysis-missing", request{Method: "GET", Path: "/v1/analyses/analysis_missing"})
	g.do("list-analyses", request{Method: "GET", Path: "/v1/profiles/" + pid + "/analyses"})
	en := g.do("report-en", request{Method: "GET", Path: "/v1/analyses/" + aid + "/report"})
	ko := g.do("report-ko-raw", request{Method: "GET", Path: "/v1/analyses/" + aid + "/report?locale=ko&includeRawData=true"})
	g.do("report-bad-locale", request{Method: "GET", Path: "/v1/analyses/" + aid + "/report?locale=fr"})
	g.do("control-verification", request{Method: "POST", Path: "/_mock/analyses/" + aid + "/verification", JSON: map[string]any{"verificationStatus": "approved"}})

	// The control API.
	g.do("control-item-status", request{Method: "POST", Path: "/_mock/items/" + bill + "/status", JSON: map[string]any{"status": "PROCESSING"}})
	g.do("start-analysis-inactive-item", request{Method: "POST", Path: "/v1/analyses/" + pid + "/analyze", JSON: map[string]any{"targetItems": []map[string]any{{"itemId": bill}}}})
	failing := goldenID(t, g.do("start-analysis-to-fail", request{Method: "POST", Path: "/v1/analyses/" + pid + "/analyze",
		JSON: map[string]any{"targetItems": []map[string]any{{"itemId": passport}}}}), "")
	g.do("control-fail", request{Method: "POST", Path: "/_mock/analyses/" + failing + "/fail", JSON: map[string]any{"error": "the document is unreadable"}})
	g.do("control-list-workflows", request{Method: "GET", Path: "/_mock/workflows"})
	g.do("control-add-workflow", request{Method: "POST", Path: "/_mock/workflows", JSON: map[string]any{"id": "wf_kyc", "name": "KYC",
		"policy": []map[string]any{{"actionName": "check_consistency", "category": "Data Consistency", "query": "Do the documents agree?"}}}})
	g.do("control-seed", request{Method: "POST", Path: "/_mock/seed", JSON: map[string]any{"profiles": []map[string]any{{"id": "pf_seeded", "workflowId": "wf_kyc", "name": "Seeded",
		"folders": []map[string]any{{"name": "default", "items": []map[string]any{{"id": "item_seeded", "type": "text", "name": "note", "content": "Full Name: Sam Roe"}}}}}}}})
	fault := goldenID(t, g.do("control-add-fault", request{Method: "POST", Path: "/_mock/faults",
		JSON: map[string]any{"method": "GET", "path": "/v1/profiles/*", "status": 503, "retryAfterSeconds": 2, "times": 2}}), "")
	g.do("control-list-faults", request{Method: "GET", Path: "/_mock/faults"})
	g.do("fault-answer", request{Method: "GET", Path: "/v1/profiles/" + pid})
	g.do("control-remove-fault", request{Method: "DELETE", Path: "/_mock/faults/" + fault})
	g.do("control-clear-faults", request{Method: "DELETE", Path: "/_mock/faults"})
	g.do("control-requests", request{Method: "GET", Path: "/_mock/requests"})
	g.do("control-clear-requests", request{Method: "DELETE", Path: "/_mock/requests"})

	// Routes and keys the service refuses.
	g.do("unknown-route", request{Method: "GET", Path: "/v1/nothing"})
	g.do("wrong-method", request{Method: "PUT", Path: "/v1/profiles/" + pid})
	g.do("wrong-key", request{Method: "GET", Path: "/v1/profiles/" + pid, Key: "0a0b0c0d-1111-4222-8333-944455556666"})
	g.do("no-key", request{Method: "GET", Path: "/v1/profiles/" + pid, Key: noKey})

	// Deletions.
	g.do("delete-item", request{Method: "DELETE", Path: "/v1/items/" + bill})
	g.do("delete-item-missing", request{Method: "DELETE", Path: "/v1/items/" + bill})
	g.do("delete-default-folder", request{Method: "DELETE", Path: "/v1/folders/" + defaultFolder})
	g.do("delete-folder", request{Method: "DELETE", Path: "/v1/folders/" + folder})
	g.do("delete-analysis", request{Method: "DELETE", Path: "/v1/analyses/" + failing})
	g.do("get-profile-after-deletions", request{Method: "GET", Path: "/v1/profiles/" + pid})
	g.do("delete-profile", request{Method: "DELETE", Path: "/v1/profiles/" + pid})
	g.do("delete-profile-missing", request{Method: "DELETE", Path: "/v1/profiles/" + pid})
	g.do("control-reset", request{Method: "POST", Path: "/_mock/reset"})

	goldenReportText(t, "report-en.txt", en.Body)
	goldenReportText(t, "report-ko-raw.txt", ko.Body)
	goldenNoStrays(t, g.seen)
}

// goldenReportText compares the text of a report with its golden file.
func goldenReportText(t *testing.T, name string, pdf []byte) {
	t.Helper()
	text := goldenPDFRows(t, pdf)
	file := filepath.Join(goldenDir, name)
	if goldenUpdate() {
		require.NoError(t, os.WriteFile(file, []byte(text), 0o644))
		return
	}
	want, err := os.ReadFile(file)
	require.NoError(t, err, "no golden file: run go test ./mockserver -run TestGolden -update")
	if diff := cmp.Diff(string(want), text); diff != "" {
		t.Errorf("the text of the report differs from %s (-want +got):\n%s", file, diff)
	}
}

// goldenPDFRows is the text of a PDF a line to each row of text as a
// reader sees it, with a line between pages (pdftest.Transcript): a change
// of the report shows as a change of the rows it touches.
func goldenPDFRows(t *testing.T, pdf []byte) string {
	t.Helper()
	pdftest.Validate(t, pdf)
	return pdftest.Transcript(t, pdf)
}

// goldenNoStrays fails on a golden file the walk no longer writes.
func goldenNoStrays(t *testing.T, seen map[string]bool) {
	t.Helper()
	entries, err := os.ReadDir(goldenDir)
	require.NoError(t, err)
	step := regexp.MustCompile(`^\d\d-.*\.json$`)
	for _, e := range entries {
		if step.MatchString(e.Name()) && !seen[e.Name()] {
			if goldenUpdate() {
				require.NoError(t, os.Remove(filepath.Join(goldenDir, e.Name())))
				continue
			}
			assert.Failf(t, "a stray golden file", "%s: no step of the walk writes it any more", e.Name())
		}
	}
}
